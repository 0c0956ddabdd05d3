"""The image service's route table: the Image API v2 under ``/image``.

Path -> {method: handler}, as the compute API's table
(:mod:`nova_lite.wsgi.router`); nova-lite-api's deploy mounts it next to
the compute API's. Under ``/image`` Glance's 405 answers a known path
asked with another method, and a trailing slash is ignored.
"""

from nova_lite.image.handlers import cache
from nova_lite.image.handlers import image_actions
from nova_lite.image.handlers import image_data
from nova_lite.image.handlers import image_import
from nova_lite.image.handlers import image_members
from nova_lite.image.handlers import images
from nova_lite.image.handlers import metadefs
from nova_lite.image.handlers import schemas
from nova_lite.image import openapi
from nova_lite.wsgi import openapi as wsgi_openapi
from nova_lite.wsgi import util

PREFIX = '/image'

ROUTES = {
    PREFIX: {'GET': images.versions},
    PREFIX + '/versions': {'GET': images.versions},
    PREFIX + '/v2/images': {'GET': images.list_images,
                            'POST': images.create_image},
    PREFIX + '/v2/images/{image_id}': {'GET': images.show_image,
                                       'PATCH': images.update_image,
                                       'DELETE': images.delete_image},
    PREFIX + '/v2/images/{image_id}/file': {'GET': image_data.download,
                                            'PUT': image_data.upload},
    PREFIX + '/v2/images/{image_id}/actions/deactivate': {
        'POST': image_actions.deactivate},
    PREFIX + '/v2/images/{image_id}/actions/reactivate': {
        'POST': image_actions.reactivate},
    PREFIX + '/v2/images/{image_id}/tasks': {'GET': images.list_tasks},
    PREFIX + '/v2/images/{image_id}/tags/{tag}': {
        'PUT': images.add_tag, 'DELETE': images.delete_tag},
    PREFIX + '/v2/images/{image_id}/members': {
        'GET': image_members.list_members,
        'POST': image_members.add_member},
    PREFIX + '/v2/images/{image_id}/members/{member_id}': {
        'GET': image_members.show_member,
        'PUT': image_members.update_member,
        'DELETE': image_members.delete_member},
    PREFIX + '/v2/images/{image_id}/stage': {'PUT': image_import.stage},
    PREFIX + '/v2/images/{image_id}/import': {
        'POST': image_import.import_image},
    PREFIX + '/v2/info/import': {'GET': image_import.info_import},
    PREFIX + '/v2/info/stores': {'GET': image_import.info_stores},
    PREFIX + '/v2/tasks': {'GET': image_import.list_tasks,
                           'POST': image_import.create_task},
    PREFIX + '/v2/tasks/{task_id}': {'GET': image_import.show_task},
    PREFIX + '/v2/cache': {'GET': cache.list_cache,
                           'DELETE': cache.clear_cache},
    PREFIX + '/v2/cache/{image_id}': {'PUT': cache.queue_image,
                                      'DELETE': cache.delete_image},
    PREFIX + '/v2/schemas/{name}': {'GET': schemas.show},
    PREFIX + '/v2/schemas/metadefs/{name}': {'GET': schemas.show_metadef},
}
_NS = PREFIX + '/v2/metadefs/namespaces'
ROUTES.update({
    _NS: {'GET': metadefs.list_namespaces,
          'POST': metadefs.create_namespace},
    _NS + '/{namespace}': {'GET': metadefs.show_namespace,
                           'PUT': metadefs.update_namespace,
                           'DELETE': metadefs.delete_namespace},
    _NS + '/{namespace}/properties': {
        'GET': metadefs.list_properties, 'POST': metadefs.create_property,
        'DELETE': metadefs.delete_properties},
    _NS + '/{namespace}/properties/{property_name}': {
        'GET': metadefs.show_property, 'PUT': metadefs.update_property,
        'DELETE': metadefs.delete_property},
    _NS + '/{namespace}/objects': {
        'GET': metadefs.list_objects, 'POST': metadefs.create_object,
        'DELETE': metadefs.delete_objects},
    _NS + '/{namespace}/objects/{object_name}': {
        'GET': metadefs.show_object, 'PUT': metadefs.update_object,
        'DELETE': metadefs.delete_object},
    _NS + '/{namespace}/resource_types': {
        'GET': metadefs.list_associations,
        'POST': metadefs.create_association},
    _NS + '/{namespace}/resource_types/{resource_type}': {
        'DELETE': metadefs.delete_association},
    _NS + '/{namespace}/tags': {
        'GET': metadefs.list_tags, 'POST': metadefs.create_tags,
        'DELETE': metadefs.delete_tags},
    _NS + '/{namespace}/tags/{tag_name}': {
        'GET': metadefs.show_tag, 'POST': metadefs.create_tag,
        'PUT': metadefs.update_tag, 'DELETE': metadefs.delete_tag},
    PREFIX + '/v2/metadefs/resource_types': {
        'GET': metadefs.list_resource_types},
})

# This table's own description (doc/openapi.md).
ROUTES[openapi.PATH] = {'GET': wsgi_openapi.serving_handler(
    lambda: openapi.document(ROUTES),
    lambda req, doc: util.json_response(doc))}

# Requests whose body is image data, streamed past the input guard's
# size bound.
is_data_upload = image_data.is_data_upload
# Paths answered without credentials.
PUBLIC_PATHS = frozenset([PREFIX, PREFIX + '/versions', openapi.PATH])
