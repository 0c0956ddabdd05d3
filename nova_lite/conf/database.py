"""Options of the three databases.

[database], [api_database] and [placement_database].

[database] is the cell database of a conductor (or the default cell); each
group takes oslo.db's full set of engine options (pool sizes, retries,
connection debug) so the three engines are tuned the same way.
"""

import copy

from oslo_config import cfg
from oslo_db import options as oslo_db_options

api_db_group = cfg.OptGroup('api_database', title='API database', help="""
The API-level database: cell and host mappings, instance mappings, build
requests, request specs, flavors, aggregates, server groups, key pairs,
quotas. Used by nova-lite-api, the super conductor, the scheduler and
nova-lite-manage.
""")

placement_db_group = cfg.OptGroup(
    'placement_database', title='Placement database', help="""
The database of nova-lite-placement: providers, inventories, allocations,
consumers, traits, resource classes, aggregates.
""")

database_group = cfg.OptGroup('database', title='Cell database', help="""
The cell database of this process (a cell conductor, or the default cell of
API-level services). Computes never set it.
""")

SQLITE_BUSY_TIMEOUT_HELP = """
Milliseconds a SQLite connection waits for a lock held by another process
before failing with "database is locked". Ignored by other engines.
"""


def _oslo_db_opts():
    return [copy.deepcopy(o) for o in oslo_db_options.database_opts]


extra_opts = [
    cfg.IntOpt('sqlite_busy_timeout', default=30000, min=0,
               help=SQLITE_BUSY_TIMEOUT_HELP),
]

retry_opts = [
    cfg.IntOpt('transient_retry_timeout', default=60, min=0, help="""
Seconds during which a database transaction that failed for a transient
reason (the connection lost or refused while the database restarts, a
deadlock, SQLite's "database is locked") is run again from the start,
reads as well as writes, for every database this process reaches (API,
cell, placement). Past it the error goes to the caller: the REST APIs
answer 503, a conductor's caller sees the error. The default outlasts a
MariaDB restart of 30 s or more; 0 never retries.
"""),
    cfg.FloatOpt('transient_retry_max_interval', default=2.0, min=0.01,
                 help="""
Longest pause in seconds between two attempts of a failed transaction (the
pause starts at 0.05 s and doubles): short enough to notice quickly that
the database is back.
"""),
]

database_opts = (_oslo_db_opts() + copy.deepcopy(extra_opts) +
                 retry_opts)
api_db_opts = _oslo_db_opts() + copy.deepcopy(extra_opts)
placement_db_opts = _oslo_db_opts() + copy.deepcopy(extra_opts)


def register_opts(conf):
    conf.register_group(database_group)
    conf.register_opts(database_opts, group=database_group)
    conf.register_group(api_db_group)
    conf.register_opts(api_db_opts, group=api_db_group)
    conf.register_group(placement_db_group)
    conf.register_opts(placement_db_opts, group=placement_db_group)


def list_opts():
    return [(database_group, database_opts),
            (api_db_group, api_db_opts),
            (placement_db_group, placement_db_opts)]
