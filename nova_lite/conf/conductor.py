"""Options in [conductor]: the super conductor and the cell conductors."""

from oslo_config import cfg

conductor_group = cfg.OptGroup('conductor', title='Conductor', help="""
nova-lite-conductor runs as the super conductor (API bus) or, with
``--cell NAME``, as one cell's conductor (that cell's bus and database).
""")

conductor_opts = [
    cfg.IntOpt('workers', default=1, min=1,
               help='Number of conductor worker processes.'),
    cfg.IntOpt('scheduling_decision_max_age', default=7 * 24 * 3600, min=0,
               help="""
Seconds a scheduling decision record (why an instance landed where it did,
shown by ``nova-lite-manage scheduler explain`` and the dashboard) is kept.
Each cell conductor deletes its cell's older records once an hour; the
super conductor does it for cell0. 0 keeps them forever.
"""),
]


def register_opts(conf):
    conf.register_group(conductor_group)
    conf.register_opts(conductor_opts, group=conductor_group)


def list_opts():
    return [(conductor_group, conductor_opts)]
