"""Options in [quota]: the default limits of every project.

A project's own limits (``PUT /os-quota-sets/{project_id}``) override
these; -1 means unlimited.
"""

from oslo_config import cfg

quota_group = cfg.OptGroup('quota', title='Quota', help="""
Default per-project limits of the compute API.
""")


def _limit(name, default, what):
    return cfg.IntOpt(name, default=default, min=-1, help="""
Default limit of %s per project (-1: unlimited).
""" % what)


quota_opts = [
    _limit('instances', 10, 'servers'),
    _limit('cores', 20, 'vCPUs of the servers'),
    _limit('ram', 51200, 'MiB of RAM of the servers'),
    _limit('metadata_items', 128, 'metadata items per server'),
    _limit('key_pairs', 100, 'key pairs per user'),
    _limit('server_groups', 10, 'server groups'),
    _limit('server_group_members', 10, 'servers per server group'),
    _limit('injected_files', 5, 'injected files (accepted, unused)'),
    _limit('injected_file_content_bytes', 10240,
           'bytes per injected file (accepted, unused)'),
    _limit('injected_file_path_length', 255,
           'characters of an injected file path (accepted, unused)'),
]


def register_opts(conf):
    conf.register_group(quota_group)
    conf.register_opts(quota_opts, group=quota_group)


def list_opts():
    return [(quota_group, quota_opts)]
