"""Options in [image_catalog]: nova_lite's image service.

nova-lite-api serves an Image API v2 under ``/image``: the configured
images of this catalog (read-only, always there for the labs to boot)
and the images users create, upload and snapshot, kept in the API
database with their data as files under ``store_path``.
"""

from oslo_config import cfg

image_catalog_group = cfg.OptGroup(
    'image_catalog', title='Image catalog', help="""
The images nova-lite-api serves under /image/v2/images: one configured
default image, the entries of ``images_file``, and the images created
through the API (stored under ``store_path``).
""")

DEFAULT_IMAGE_UUID = 'c1a7e0a5-5e1f-4b7b-9f0e-0000000000c1'

image_catalog_opts = [
    cfg.BoolOpt('include_default_image', default=True, help="""
Whether the catalog contains the default (cirros-like) image.

Related options:

* ``default_image_uuid``, ``default_image_name``,
  ``default_image_properties``
"""),
    cfg.StrOpt('default_image_uuid', default=DEFAULT_IMAGE_UUID, help="""
Id of the default image. Fixed, so scripts and tests can name it.
"""),
    cfg.StrOpt('default_image_name', default='cirros-0.6.3-x86_64-disk',
               help='Name of the default image.'),
    cfg.DictOpt('default_image_properties',
                default={'hw_architecture': 'x86_64'}, help="""
Image properties of the default image, as ``key:value`` pairs (for
example ``hw_architecture:x86_64,img_hv_type:fake``). The scheduler's
ImagePropertiesFilter matches them against the hosts.
"""),
    cfg.IntOpt('default_image_size', default=21430272, min=0,
               help='Size in bytes reported for the default image.'),
    cfg.IntOpt('default_image_min_disk', default=0, min=0,
               help='``min_disk`` (GiB) of the default image.'),
    cfg.IntOpt('default_image_min_ram', default=0, min=0,
               help='``min_ram`` (MiB) of the default image.'),
    cfg.StrOpt('images_file', help="""
Path of a JSON file with more images: a list of objects with ``id`` (a
UUID), ``name`` and optionally ``properties`` (a dict), ``size``,
``min_disk``, ``min_ram``, ``disk_format``, ``container_format``,
``os_hidden``, ``visibility``.

Possible values:

* unset: only the default image
* a path readable by nova-lite-api
"""),
    cfg.StrOpt('store_path', default='$state_path/images', help="""
Directory holding the data of the images created through the image API
and of the server snapshots, one file per image named by its id.
nova-lite-api writes and reads it; with several API hosts it must be a
shared directory.

Related options:

* ``[DEFAULT] state_path``
"""),
    cfg.StrOpt('cache_path', default='$state_path/image-cache', help="""
Directory of the image cache (Glance's ``image_cache_dir``): local copies
of image data, queued and managed through ``/image/v2/cache``, read by
downloads of the images they copy. With several API hosts each host may
have its own.

Possible values:

* a directory nova-lite-api may write
* empty: no cache; ``/image/v2/cache`` answers 404 as Glance without one

Related options:

* ``[DEFAULT] state_path``, ``store_path``
"""),
    cfg.IntOpt('image_size_cap', default=1099511627776, min=1, help="""
Largest image data an upload may store, in bytes (Glance's
``image_size_cap``, 1 TiB by default); a larger upload answers 413.
"""),
]


def register_opts(conf):
    conf.register_group(image_catalog_group)
    conf.register_opts(image_catalog_opts, group=image_catalog_group)


def list_opts():
    return [(image_catalog_group, image_catalog_opts)]
