"""Options in [notifications]: which notifications nova_lite sends.

Where they go (driver, transport) is oslo.messaging's
``[oslo_messaging_notifications]`` group
(:mod:`nova_lite.conf.oslo_messaging_notifications`).
"""

from oslo_config import cfg

notifications_group = cfg.OptGroup('notifications', title='Notifications',
                                   help="""
Nova's notifications: versioned (``nova_object`` payloads on the
``versioned_notifications`` topic) and the older unversioned format. Nothing
is sent unless ``[oslo_messaging_notifications] driver`` names a driver
(``messagingv2`` sends them on the bus).
""")

notifications_opts = [
    cfg.StrOpt('notification_format', default='versioned',
               choices=[
                   ('versioned', 'Only versioned notifications.'),
                   ('unversioned', 'Only the unversioned (legacy) format.'),
                   ('both', 'Both formats, each on its own topics.'),
                   ('none', 'No notification at all.'),
               ],
               help="""
Which notification format to send.

Related options: ``versioned_notifications_topics``,
``[oslo_messaging_notifications] driver`` and ``topics`` (the unversioned
format's topics).
"""),
    cfg.StrOpt('notify_on_state_change',
               choices=[
                   (None, 'No instance.update notification.'),
                   ('vm_state', 'When the VM state changes.'),
                   ('vm_and_task_state',
                    'When the VM state or the task state changes.'),
               ],
               help="""
Send an ``instance.update`` notification when an instance's state changes,
as Nova does. Unset (the default): none.
"""),
    cfg.ListOpt('versioned_notifications_topics',
                default=['versioned_notifications'],
                help="""
Topics the versioned notifications are sent to (each topic gets every
notification). The unversioned format uses ``[oslo_messaging_notifications]
topics``.
"""),
]


def register_opts(conf):
    conf.register_group(notifications_group)
    conf.register_opts(notifications_opts, group=notifications_group)


def list_opts():
    return [(notifications_group, notifications_opts)]
