"""The image service's JSON schemas: one definition, two uses.

The image and member definitions below are what
``GET /image/v2/schemas/{image,images,member,members}`` publish, in
Glance 2.x's shape (the image schema is permissive: extra properties are
strings), and what :func:`check_attribute_value` validates a request's
core attributes against, so the published schema and the service's
checks cannot drift apart. python-glanceclient fetches these schemas
before it lists, shows or changes an image, and validates responses and
patches against them.
"""

import copy

import jsonschema
import webob.exc

UUID_PATTERN = ('^([0-9a-fA-F]){8}-([0-9a-fA-F]){4}-([0-9a-fA-F]){4}'
                '-([0-9a-fA-F]){4}-([0-9a-fA-F]){12}$')
STATUSES = ('queued', 'saving', 'active', 'killed', 'deleted', 'uploading',
            'importing', 'pending_delete', 'deactivated')
VISIBILITIES = ('community', 'public', 'private', 'shared')
DISK_FORMATS = ('ami', 'ari', 'aki', 'vhd', 'vhdx', 'vmdk', 'raw', 'qcow2',
                'vdi', 'iso', 'ploop')
CONTAINER_FORMATS = ('ami', 'ari', 'aki', 'bare', 'ovf', 'ova', 'docker',
                     'compressed')
MEMBER_STATUSES = ('pending', 'accepted', 'rejected')
INT_MAX = 2 ** 31 - 1


def _ro(schema, description):
    return dict(schema, readOnly=True, description=description)


def _string(description, nullable=False, **extra):
    return dict({'type': ['null', 'string'] if nullable else 'string',
                 'description': description}, **extra)


# The core attributes of an image, as Glance 2.x reports them.
IMAGE_PROPERTIES = {
    'id': _string('The image identifier (a UUID).', pattern=UUID_PATTERN),
    'name': _string('A name for the image.', nullable=True, maxLength=255),
    'status': _ro({'type': 'string', 'enum': list(STATUSES)},
                  'Where the image is in its life cycle.'),
    'visibility': {'type': 'string', 'enum': list(VISIBILITIES),
                   'description': 'Who may see the image.'},
    'protected': {'type': 'boolean',
                  'description': 'Whether the image may not be deleted.'},
    'os_hidden': {'type': 'boolean', 'description':
                  'Whether default image listings leave the image out.'},
    'checksum': _ro({'type': ['null', 'string'], 'maxLength': 32},
                    'MD5 of the image data.'),
    'os_hash_algo': _ro({'type': ['null', 'string'], 'maxLength': 64},
                        'The algorithm of os_hash_value.'),
    'os_hash_value': _ro({'type': ['null', 'string'], 'maxLength': 128},
                         'The digest of the image data by os_hash_algo.'),
    'owner': _string('The project owning the image.', nullable=True,
                     maxLength=255),
    'size': _ro({'type': ['null', 'integer']}, 'Data size in bytes.'),
    'virtual_size': _ro({'type': ['null', 'integer']},
                        'Virtual disk size in bytes.'),
    'container_format': {'type': ['null', 'string'],
                         'enum': [None] + list(CONTAINER_FORMATS),
                         'description': 'The container format of the data.'},
    'disk_format': {'type': ['null', 'string'],
                    'enum': [None] + list(DISK_FORMATS),
                    'description': 'The disk format of the data.'},
    'created_at': _ro({'type': 'string'}, 'When the image was created.'),
    'updated_at': _ro({'type': 'string'},
                      'When the image last changed.'),
    'tags': {'type': 'array', 'description': 'Strings about the image.',
             'items': {'type': 'string', 'minLength': 1, 'maxLength': 255}},
    'direct_url': _ro({'type': 'string'},
                      'Where the data is kept (not shown here).'),
    'min_ram': {'type': 'integer', 'minimum': 0, 'maximum': INT_MAX,
                'description': 'RAM (MiB) needed to boot the image.'},
    'min_disk': {'type': 'integer', 'minimum': 0, 'maximum': INT_MAX,
                 'description': 'Disk (GiB) needed to boot the image.'},
    'self': _ro({'type': 'string'}, 'The image URL.'),
    'file': _ro({'type': 'string'}, 'The image data URL.'),
    'stores': _ro({'type': 'string'}, 'The stores holding the data.'),
    'schema': _ro({'type': 'string'}, 'The image schema URL.'),
    'locations': {
        'type': 'array', 'description': 'Where the data is kept.',
        'items': {'type': 'object', 'required': ['url', 'metadata'],
                  'properties': {'url': {'type': 'string',
                                         'maxLength': 255},
                                 'metadata': {'type': 'object'}}}},
}

# Common extra properties, typed as a default Glance deployment
# publishes them (its schema-image.json): clients use them to know that
# e.g. kernel_id may be null.
EXTRA_PROPERTIES = {
    'kernel_id': _string('The kernel image of an AMI-style image.',
                         nullable=True, pattern=UUID_PATTERN),
    'ramdisk_id': _string('The ramdisk image of an AMI-style image.',
                          nullable=True, pattern=UUID_PATTERN),
    'instance_uuid': _string('The server a snapshot was taken of.'),
    'architecture': _string('The CPU architecture the image needs.'),
    'os_distro': _string('The operating system distribution.'),
    'os_version': _string('The operating system version.'),
    'description': _string('A description of the image.'),
}

IMAGE_LINKS = [{'rel': 'self', 'href': '{self}'},
               {'rel': 'enclosure', 'href': '{file}'},
               {'rel': 'describedby', 'href': '{schema}'}]

MEMBER_PROPERTIES = {
    'member_id': _string('The project the image is shared with.'),
    'image_id': _string('The image identifier.', pattern=UUID_PATTERN),
    'created_at': _string('When the member was added.'),
    'updated_at': _string('When the member last changed.'),
    'status': {'type': 'string', 'enum': list(MEMBER_STATUSES),
               'description': 'Whether the member accepted the image.'},
    'schema': {'type': 'string', 'readOnly': True},
}


def image():
    """The image schema (permissive: extra properties are strings)."""
    properties = copy.deepcopy(IMAGE_PROPERTIES)
    properties.update(copy.deepcopy(EXTRA_PROPERTIES))
    return {'name': 'image', 'properties': properties,
            'additionalProperties': {'type': 'string'},
            'links': copy.deepcopy(IMAGE_LINKS)}


def member():
    return {'name': 'member',
            'properties': copy.deepcopy(MEMBER_PROPERTIES),
            'additionalProperties': False}


def collection(name, item):
    """A list schema around ``item``, as Glance wraps its items."""
    return {'name': name,
            'properties': {name: {'type': 'array', 'items': item},
                           'first': {'type': 'string'},
                           'next': {'type': 'string'},
                           'schema': {'type': 'string'}},
            'links': [{'rel': 'first', 'href': '{first}'},
                      {'rel': 'next', 'href': '{next}'},
                      {'rel': 'describedby', 'href': '{schema}'}]}


def members():
    # Glance's members collection schema carries the same pagination
    # links as the images one.
    return collection('members', member())


def images():
    return collection('images', image())


TASK_PROPERTIES = {
    'id': _string('The task identifier.', pattern=UUID_PATTERN),
    'type': {'type': 'string', 'description': 'What the task does.',
             'enum': ['import', 'api_image_import', 'location_import']},
    'status': {'type': 'string', 'description': 'Where the task is.',
               'enum': ['pending', 'processing', 'success', 'failure']},
    'input': {'type': ['null', 'object'],
              'description': 'What the task was asked to do.'},
    'result': {'type': ['null', 'object'],
               'description': 'What the task produced.'},
    'owner': _string('The project that asked for the task.',
                     nullable=True),
    'message': _string('Why the task failed, if it did.'),
    'image_id': _string('The image the task works on.', nullable=True),
    'request_id': _string('The request that made the task.',
                          nullable=True),
    'user_id': _string('The user who made the task.', nullable=True),
    'expires_at': _string('When the task record goes away.',
                          nullable=True),
    'created_at': _string('When the task was created.'),
    'updated_at': _string('When the task last changed.'),
    'self': {'type': 'string'},
    'schema': {'type': 'string'},
}


def task():
    return {'name': 'task', 'properties': copy.deepcopy(TASK_PROPERTIES),
            'additionalProperties': False}


def tasks():
    return collection('tasks', task())


PUBLISHED = {'image': image, 'images': images, 'member': member,
             'members': members, 'task': task, 'tasks': tasks}


def check_attribute_value(name, value):
    """400 unless ``value`` is valid for the attribute ``name`` (its
    definition in :data:`IMAGE_PROPERTIES` or :data:`EXTRA_PROPERTIES`,
    the published schema's)."""
    definition = IMAGE_PROPERTIES.get(name) or EXTRA_PROPERTIES.get(name)
    if definition is None:
        return
    try:
        jsonschema.validate(value, definition)
    except jsonschema.ValidationError as exc:
        raise webob.exc.HTTPBadRequest(
            "Invalid value for '%s': %s" % (name, exc.message))


# -- metadata definitions -----------------------------------------------------

# A property needs a type (the service refuses null, which Glance's
# schema lists).
_PROPERTY_TYPES = ['array', 'boolean', 'integer', 'number', 'object',
                   'string']
METADEF_PROPERTY = {
    'name': {'type': 'string', 'minLength': 1, 'maxLength': 80},
    'title': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    'description': {'type': 'string'},
    'operators': {'type': 'array', 'items': {'type': 'string'}},
    'type': {'type': 'string', 'enum': _PROPERTY_TYPES},
    'default': {},
    'readonly': {'type': 'boolean'},
    'minimum': {'type': 'number'}, 'maximum': {'type': 'number'},
    'minLength': {'type': 'integer', 'minimum': 0},
    'maxLength': {'type': 'integer', 'minimum': 0},
    'pattern': {'type': 'string', 'format': 'regex'},
    'enum': {'type': 'array'},
    'items': {'type': 'object'},
    'minItems': {'type': 'integer', 'minimum': 0},
    'maxItems': {'type': 'integer', 'minimum': 0},
    'uniqueItems': {'type': 'boolean', 'default': False},
    'additionalItems': {'type': 'boolean'},
}
_TIMES = {'created_at': _ro({'type': 'string', 'format': 'date-time'},
                            'When it was created.'),
          'updated_at': _ro({'type': 'string', 'format': 'date-time'},
                            'When it last changed.')}
RESOURCE_TYPE_ASSOCIATION = dict({
    'name': _string('The resource type, e.g. OS::Glance::Image.',
                    minLength=1, maxLength=80),
    'prefix': _string('The prefix of the properties on that resource.',
                      maxLength=80),
    'properties_target': _string('Where on the resource the properties '
                                 'go (e.g. image for a volume).',
                                 maxLength=80)}, **_TIMES)
# A property inside an object or a namespace (named by its key).
_NESTED_PROPERTY = {'type': 'object', 'properties': METADEF_PROPERTY,
                    'required': ['title', 'type'],
                    'additionalProperties': False}
METADEF_OBJECT = dict({
    'name': {'type': 'string', 'minLength': 1, 'maxLength': 80},
    'description': {'type': 'string'},
    'required': {'type': 'array', 'items': {'type': 'string'}},
    'properties': {'type': 'object',
                   'propertyNames': {'minLength': 1, 'maxLength': 80},
                   'additionalProperties': _NESTED_PROPERTY},
    'schema': {'type': 'string', 'readOnly': True},
    'self': {'type': 'string', 'readOnly': True}}, **_TIMES)
METADEF_TAG = dict({'name': {'type': 'string', 'minLength': 1,
                              'maxLength': 255}}, **_TIMES)
METADEF_NAMESPACE = dict({
    'namespace': _string('The namespace, unique.', minLength=1,
                         maxLength=80),
    'display_name': _string('A name to show.', maxLength=80),
    'description': _string('What the namespace defines.',
                           maxLength=500),
    'visibility': {'type': 'string', 'enum': ['public', 'private'],
                   'description': 'Who may see the namespace.'},
    'protected': {'type': 'boolean',
                  'description': 'Whether it may not be deleted.'},
    'owner': _string('The project owning it.', maxLength=255),
    'schema': {'type': 'string', 'readOnly': True},
    'self': {'type': 'string', 'readOnly': True},
    'resource_type_associations': {
        'type': 'array',
        'items': {'type': 'object',
                  'properties': RESOURCE_TYPE_ASSOCIATION,
                  'required': ['name'], 'additionalProperties': False}},
    'properties': {'type': 'object',
                   'propertyNames': {'minLength': 1, 'maxLength': 80},
                   'additionalProperties': _NESTED_PROPERTY},
    'objects': {'type': 'array',
                'items': {'type': 'object', 'properties': METADEF_OBJECT,
                          'required': ['name'],
                          'additionalProperties': False}},
    'tags': {'type': 'array',
             'items': {'type': 'object', 'properties': METADEF_TAG,
                       'required': ['name'],
                       'additionalProperties': False}}},
    **_TIMES)


def _item(name, properties, required=()):
    schema = {'name': name, 'properties': copy.deepcopy(properties),
              'additionalProperties': False}
    if required:
        schema['required'] = list(required)
    return schema


def _metadef_builders():
    single = {
        'namespace': lambda: _item('namespace', METADEF_NAMESPACE,
                                   ['namespace']),
        'object': lambda: _item('object', METADEF_OBJECT, ['name']),
        'property': lambda: _item('property', dict(METADEF_PROPERTY),
                                  ['name', 'title', 'type']),
        'resource_type': lambda: _item('resource_type_association',
                                       RESOURCE_TYPE_ASSOCIATION,
                                       ['name']),
        'tag': lambda: _item('tag', METADEF_TAG, ['name']),
    }
    plural = {'namespaces': ('namespaces', 'namespace'),
              'objects': ('objects', 'object'),
              'resource_types': ('resource_type_associations',
                                 'resource_type'),
              'tags': ('tags', 'tag')}
    builders = dict(single)
    for path, (key, one) in plural.items():
        builders[path] = (lambda k=key, o=one:
                          collection(k, single[o]()))
    builders['properties'] = lambda: {
        'name': 'properties',
        'properties': {'properties': {
            'type': 'object',
            'additionalProperties': _item('property', METADEF_PROPERTY,
                                          ['title', 'type'])},
            'schema': {'type': 'string'}},
        'links': [{'rel': 'describedby', 'href': '{schema}'}]}
    return builders


METADEFS = _metadef_builders()
