"""The image service's OpenAPI 3.1 document, made from its route table.

Paths and methods come from ``router.ROUTES``; the image, member and
task schemas are the ones the service publishes under
``/image/v2/schemas`` (and checks image attributes with), used for the
bodies they describe. Bodies the handlers check in code are marked
missing (doc/openapi.md). Served at ``/image/openapi.json`` without
credentials, as the version document is.
"""

from nova_lite.image.handlers import cache
from nova_lite.image.handlers import image_actions
from nova_lite.image.handlers import image_data
from nova_lite.image.handlers import image_import
from nova_lite.image.handlers import image_members
from nova_lite.image.handlers import images
from nova_lite.image.handlers import metadefs
from nova_lite.image.handlers import schemas as schema_handlers
from nova_lite.image import importer
from nova_lite.image import schemas
from nova_lite.wsgi import openapi

PATH = '/image/openapi.json'
Op = openapi.Operation
_DATA = {'type': 'string', 'contentMediaType': image_data.OCTET_STREAM}


VERSIONS = {'type': 'object', 'required': ['versions'], 'properties': {
    'versions': {'type': 'array', 'items': {
        'type': 'object', 'required': ['id', 'status', 'links']}}}}

# A JSON patch (v2.1's RFC 6902 operations; Glance's v2.0 form,
# {"replace": "/name", "value": ...}, is taken too and not described).
_PATH = {'type': 'string', 'pattern': '^/[^/]+$'}
PATCH = {'type': 'array', 'items': {'anyOf': [
    dict(openapi.fields(('op', 'path', 'value'),
                        op={'enum': ['add', 'replace']}, path=_PATH,
                        value={}), additionalProperties=False),
    dict(openapi.fields(('op', 'path'), op={'const': 'remove'},
                        path=_PATH), additionalProperties=False)]}}


def _published(name):
    schema = dict(schemas.PUBLISHED[name]())
    schema.setdefault('type', 'object')
    return schema


def _metadef(name):
    """A metadefs schema the service publishes under
    ``/image/v2/schemas/metadefs``."""
    schema = dict(schemas.METADEFS[name]())
    schema.setdefault('type', 'object')
    return schema


_STRINGS = {'type': 'array', 'items': {'type': 'string'}}
CACHE = openapi.fields(('cached_images', 'queued_images'),
                       cached_images={'type': 'array'},
                       queued_images=_STRINGS)
IMPORT_INFO = openapi.one('import-methods', openapi.fields(
    ('value',), value=_STRINGS, description='string', type='string'))
# Glance marks the default store with the text "true", not a boolean.
STORES = openapi.many('stores', openapi.fields(
    ('id',), id='string', description='string',
    default={'type': 'string', 'enum': ['true']}))
RESOURCE_TYPES = openapi.many('resource_types', openapi.fields(
    ('name',), name='string', created_at='string', updated_at='string'))
# The bodies the handlers check in code, as they check them.
_PROPERTY = {'type': 'string', 'maxLength': 65535}
_PROPERTY_NAME = {'minLength': 1, 'maxLength': 255}
# The published image schema, with the bounds the service puts on other
# properties (Glance's schema says only that they are strings).
NEW_IMAGE = dict(_published('image'), additionalProperties=_PROPERTY,
                 propertyNames=_PROPERTY_NAME)
_HTTP_URI = {'type': 'string', 'pattern': '^https?://[^/:?#]+'}
ADD_MEMBER = dict(openapi.fields(('member',), member={
    'type': 'string', 'minLength': 1, 'maxLength': 255}),
    additionalProperties=False)
UPDATE_MEMBER = openapi.fields(('status',), status={
    'type': 'string', 'enum': list(schemas.MEMBER_STATUSES)})
IMPORT = openapi.fields(
    ('method',),
    method={'anyOf': [
        openapi.fields(('name',), name={'const': 'glance-direct'}),
        openapi.fields(('name', 'uri'), name={'const': 'web-download'},
                       uri=_HTTP_URI)]},
    stores={'type': 'array', 'items': {'const': importer.STORE_ID},
            'minItems': 1, 'maxItems': 1},
    all_stores='boolean', all_stores_must_succeed='boolean')
_IMAGE = schemas.image()['properties']
# A task's image properties are checked as an image create's are.
TASK = openapi.fields(('type', 'input'), type={'const': 'import'},
                      input=openapi.fields(
                          ('import_from',), import_from=_HTTP_URI,
                          import_from_format=_IMAGE['disk_format'],
                          image_properties=dict(openapi.fields(
                              disk_format=_IMAGE['disk_format'],
                              container_format=_IMAGE[
                                  'container_format']),
                              propertyNames=_PROPERTY_NAME,
                              additionalProperties=_PROPERTY)))
CREATE_TAGS = openapi.one('tags', {'type': 'array', 'items': dict(
    openapi.fields(('name',), name={'type': 'string', 'minLength': 1,
                                    'maxLength': 255}),
    additionalProperties=False)})

# A schema document: a JSON schema, with Glance's name and links.
SCHEMA = openapi.fields(('name', 'properties'), name='string',
                        properties='object', links={'type': 'array'})


OPERATIONS = {
    images.list_images: Op(responses={'200': _published('images')}),
    images.show_image: Op(responses={'200': _published('image')}),
    images.create_image: Op(body=NEW_IMAGE,
                            responses={'201': _published('image')}),
    images.update_image: Op(body=PATCH, media_type=images.PATCH_TYPES[0],
                            responses={'200': _published('image')}),
    images.delete_image: Op(responses={'204': None}),
    images.add_tag: Op(no_body=True, responses={'204': None}),
    images.delete_tag: Op(responses={'204': None}),
    image_data.upload: Op(body=_DATA, media_type=image_data.OCTET_STREAM,
                          responses={'204': None}),
    # 206 for a Range, 204 for an image with no data yet (as Glance).
    image_data.download: Op(responses={
        '200': openapi.Media(image_data.OCTET_STREAM, _DATA),
        '206': openapi.Media(image_data.OCTET_STREAM, _DATA),
        '204': None}),
    # Glance answers its version list with 300 Multiple Choices.
    images.versions: Op(responses={'300': VERSIONS, '200': VERSIONS}),
    image_import.stage: Op(body=_DATA, media_type=image_data.OCTET_STREAM,
                           responses={'204': None}),
    image_actions.deactivate: Op(no_body=True, responses={'204': None}),
    image_actions.reactivate: Op(no_body=True, responses={'204': None}),
    image_members.list_members: Op(responses={'200': _published('members')}),
    image_members.show_member: Op(responses={'200': _published('member')}),
    image_members.add_member: Op(body=ADD_MEMBER,
                                 responses={'200': _published('member')}),
    image_members.update_member: Op(
        body=UPDATE_MEMBER, responses={'200': _published('member')}),
    image_members.delete_member: Op(responses={'204': None}),
    image_import.list_tasks: Op(responses={'200': _published('tasks')}),
    image_import.show_task: Op(responses={'200': _published('task')}),
    image_import.create_task: Op(body=TASK,
                                 responses={'201': _published('task')}),
    image_import.import_image: Op(body=IMPORT, responses={'202': None}),
    image_import.info_import: Op(responses={'200': IMPORT_INFO}),
    image_import.info_stores: Op(responses={'200': STORES}),
    images.list_tasks: Op(responses={'200': openapi.many(
        'tasks', _published('task'))}),
    cache.list_cache: Op(responses={'200': CACHE}),
    cache.queue_image: Op(no_body=True, responses={'202': None}),
    cache.delete_image: Op(responses={'204': None}),
    cache.clear_cache: Op(responses={'204': None}),
    schema_handlers.show: Op(responses={'200': SCHEMA}),
    schema_handlers.show_metadef: Op(responses={'200': SCHEMA}),
    metadefs.list_resource_types: Op(responses={'200': RESOURCE_TYPES}),
    metadefs.list_namespaces: Op(responses={'200': _metadef('namespaces')}),
    metadefs.create_namespace: Op(body=_metadef('namespace'),
        responses={'201': _metadef('namespace')}),
    metadefs.show_namespace: Op(responses={'200': _metadef('namespace')}),
    metadefs.update_namespace: Op(body=_metadef('namespace'),
        responses={'200': _metadef('namespace')}),
    metadefs.delete_namespace: Op(responses={'204': None}),
    metadefs.list_objects: Op(responses={'200': _metadef('objects')}),
    metadefs.create_object: Op(body=_metadef('object'),
        responses={'201': _metadef('object')}),
    metadefs.show_object: Op(responses={'200': _metadef('object')}),
    metadefs.update_object: Op(body=_metadef('object'),
        responses={'200': _metadef('object')}),
    metadefs.delete_object: Op(responses={'204': None}),
    metadefs.delete_objects: Op(responses={'204': None}),
    metadefs.list_properties: Op(responses={
        '200': _metadef('properties')}),
    metadefs.create_property: Op(body=_metadef('property'),
        responses={'201': _metadef('property')}),
    metadefs.show_property: Op(responses={'200': _metadef('property')}),
    metadefs.update_property: Op(body=_metadef('property'),
        responses={'200': _metadef('property')}),
    metadefs.delete_property: Op(responses={'204': None}),
    metadefs.delete_properties: Op(responses={'204': None}),
    metadefs.list_associations: Op(responses={
        '200': _metadef('resource_types')}),
    metadefs.create_association: Op(body=_metadef('resource_type'),
        responses={
        '201': _metadef('resource_type')}),
    metadefs.delete_association: Op(responses={'204': None}),
    metadefs.list_tags: Op(responses={'200': _metadef('tags')}),
    metadefs.create_tags: Op(body=CREATE_TAGS,
        responses={'201': _metadef('tags')}),
    metadefs.delete_tags: Op(responses={'204': None}),
    metadefs.show_tag: Op(responses={'200': _metadef('tag')}),
    metadefs.create_tag: Op(no_body=True, responses={
        '201': _metadef('tag')}),
    metadefs.update_tag: Op(body=_metadef('tag'),
        responses={'200': _metadef('tag')}),
    metadefs.delete_tag: Op(responses={'204': None}),
}


def service(routes):
    """The image service as :mod:`nova_lite.wsgi.openapi` describes it."""
    return openapi.Service(
        name='image', title='nova_lite image service',
        description='The Image API v2 (Glance\'s shapes) as nova-lite-api '
                    'serves it under /image.',
        routes=routes, operations=OPERATIONS, error_schema=openapi.FAULT,
        public=frozenset(['/image', '/image/versions', PATH]), tag_depth=2)


def document(routes):
    """The image service's document for its route table."""
    return openapi.document(service(routes))
