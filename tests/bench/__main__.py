"""Run benchmarks: ``python -m tests.bench [NAME ...] [--quick]``."""

import argparse
import importlib
import json
import os
import platform
import sys
import time

BENCHMARKS = ('db_floor', 'rpc_floor', 'placement_candidates',
              'placement_cpu', 'compute_periodic', 'compute_registration',
              'hypervisor_list', 'server_scale',
              'scheduler_select', 'scheduler_race', 'lab_scale',
              'boot_throughput', 'move_latency', 'dashboard',
              'boot_side_by_side', 'placement_side_by_side', 'sim',
              'sim_example')
RESULTS_DIR = 'bench-results'


def _print_table(name, result):
    print('\n== %s' % name)
    for row in result.get('rows', []):
        print('  ' + '  '.join('%s=%s' % (k, v) for k, v in row.items()))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('names', nargs='*', default=list(BENCHMARKS),
                        help='benchmarks to run (default: all): %s'
                        % ', '.join(BENCHMARKS))
    parser.add_argument('--quick', action='store_true',
                        help='fewer iterations, for a smoke run')
    args = parser.parse_args()
    os.makedirs(RESULTS_DIR, exist_ok=True)
    for name in args.names:
        if name not in BENCHMARKS:
            parser.error('unknown benchmark %r' % name)
        module = importlib.import_module('tests.bench.%s' % name)
        started = time.time()
        result = module.run(args)
        result.update(benchmark=name, started=started,
                      machine={'cpus': os.cpu_count(),
                               'python': platform.python_version()})
        path = os.path.join(RESULTS_DIR, '%s.json' % name)
        with open(path, 'w') as f:
            json.dump(result, f, indent=2, default=str)
        _print_table(name, result)
        print('  -> %s' % path)
    return 0


if __name__ == '__main__':
    sys.exit(main())
