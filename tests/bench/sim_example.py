"""The worked example of doc/simulation.md at full size.

A synthetic 1,000-host cloud (:func:`nova_lite.sim.synthetic.cloud`,
``NOVA_LITE_BENCH_SIM_HOSTS``) and a generated trace of
``NOVA_LITE_BENCH_SIM_EXAMPLE_CREATES`` creates (default 14,000 and
about 9,300 deletes: more than 20,000 events; 1,000 with ``--quick``;
10 per simulated second, mean lifetime 500 s, the deletes after the last
create left out so the end state is a cloud in use, flavors
small:medium:large 5:3:1, seed 1)
replayed under the packing and the spreading weigher settings, as
``nova-lite-manage sim run`` does. The reports (both runs' JSON, the
comparison, report.html) go to ``bench-results/sim_example/``.

The rows: per configuration, placed and NoValidHost, hosts never used,
the VCPU and memory spread over time (standard deviation of the hosts'
utilisation, mean over the samples) and the replay's wall time; then
the number of differing decisions, whether every listed one carries both
runs' explanation, and ``expected_difference``: packing's spread above
twice spreading's for VCPU and memory, and packing leaving more hosts
unused.
"""

import json
import os
import tempfile

from nova_lite import conf as nl_conf
from nova_lite import objects
from nova_lite.sim import report
from nova_lite.sim import report_html
from nova_lite.sim import runner
from nova_lite.sim import synthetic
from nova_lite.sim import workload
from nova_lite.testing import placement_fixture

CONF = nl_conf.CONF
OUT = os.path.join('bench-results', 'sim_example')


def run(args):
    objects.register_all()
    placement_fixture.ensure_parsed(CONF)
    hosts = int(os.environ.get('NOVA_LITE_BENCH_SIM_HOSTS', 1000))
    creates = int(os.environ.get('NOVA_LITE_BENCH_SIM_EXAMPLE_CREATES',
                                 1000 if args.quick else 14000))
    doc = synthetic.cloud(hosts)
    events = workload.generate(synthetic.MIX, creates, rate=10.0,
                               lifetime=500.0, seed=1,
                               end_at_last_create=True)
    os.makedirs(OUT, exist_ok=True)
    rows, reports = [], []
    with tempfile.TemporaryDirectory(prefix='bench-sim-example-') as work:
        seeded, _refused = runner.seed_database(doc, work)
        for name, text in (('pack', synthetic.PACK),
                           ('spread', synthetic.SPREAD)):
            path = os.path.join(work, name + '.conf')
            with open(path, 'w') as f:
                f.write(text)
            rep = runner.run_one(doc, events, path, seeded, work, name,
                                 samples=20)
            reports.append(rep)
            over_time = rep['utilisation_over_time']
            rows.append({
                'config': name, 'hosts': hosts, 'events': len(events),
                'placed': rep['placed'],
                'no_valid_host': rep['no_valid_host'],
                'hosts_never_used': rep['hosts_never_used'],
                'vcpu_spread': over_time['VCPU']['stdev'],
                'memory_spread': over_time['MEMORY_MB']['stdev'],
                'vcpu_mean': over_time['VCPU']['mean'],
                'decisions_per_second': rep['decisions_per_second'],
                'replay_wall_s': rep['wall_seconds']})
    comparison = report.compare(reports)
    for rep in reports:
        with open(os.path.join(OUT, rep['name'] + '.json'), 'w') as f:
            json.dump(rep, f, indent=1, sort_keys=True)
    with open(os.path.join(OUT, 'comparison.json'), 'w') as f:
        json.dump(comparison, f, indent=1, sort_keys=True)
    with open(os.path.join(OUT, 'report.html'), 'w') as f:
        f.write(report_html.render(reports, comparison,
                                   'worked example: pack vs spread'))
    pack, spread = rows
    explained = all(d['runs'][n]['why'] for d in comparison['differing']
                    for n in ('pack', 'spread'))
    expected = (pack['vcpu_spread'] > 2 * spread['vcpu_spread'] and
                pack['memory_spread'] > 2 * spread['memory_spread'] and
                pack['hosts_never_used'] > spread['hosts_never_used'])
    return {'rows': rows,
            'differing_decisions': comparison['differing_decisions'],
            'first_difference': comparison['first_difference'],
            'differing_explained': explained,
            'expected_difference': expected,
            'reports': OUT}
