"""Metadata definitions under ``/image/v2/metadefs`` (Glance's shapes).

Namespaces and, inside each, properties, objects, tags and resource type
associations; ``/v2/metadefs/resource_types`` lists the resource types.
Anyone reads the public namespaces (the owner and admins the private
ones); only admins create, change and delete, as Glance's default
policy. The store is :mod:`nova_lite.image.metadefs`.
"""

import contextlib

import jsonschema

from oslo_utils import strutils
import webob.exc

from nova_lite.image.handlers import images
from nova_lite.image import metadefs
from nova_lite.image import schemas
from nova_lite.wsgi import util

BASE = '/v2/metadefs/namespaces'
SCHEMA = '/v2/schemas/metadefs/'
PROPERTY_TYPES = ('string', 'integer', 'number', 'boolean', 'array',
                  'object')
_NS_FIELDS = ('namespace', 'display_name', 'description', 'visibility',
              'protected', 'owner', 'created_at', 'updated_at')


# -- plumbing -----------------------------------------------------------------

@contextlib.contextmanager
def _store(req, write=False):
    """(context, conf) with the store locked; writes are for admins."""
    context = images._ctx(req, 'images:metadefs:write' if write
                          else 'images:list')
    conf = util.conf(req)
    with metadefs.locked(conf):
        yield context, conf


def _namespace(context, conf, name):
    try:
        record = metadefs.read(conf, name)
    except metadefs.NotFound:
        record = None
    if record is None or not metadefs.can_see(context, record):
        raise webob.exc.HTTPNotFound(
            'Metadata definition namespace=%s was not found.' % name)
    return record


def _save(conf, record):
    record['updated_at'] = metadefs.now()
    metadefs.write(conf, record)


def _string(body, key, required=False, maximum=255):
    """``body[key]``, a string of at most ``maximum`` characters (the
    published schema's bounds); a required one (a name) not empty."""
    value = body.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value) or \
            len(value) > maximum:
        raise webob.exc.HTTPBadRequest(
            "Invalid value for '%s': a string of %d to %d characters is "
            "required." % (key, 1 if required else 0, maximum))
    return value


def _compact(body):
    return {k: v for k, v in body.items() if v is not None}


# -- views --------------------------------------------------------------------

def _object_view(ns, obj):
    body = dict(obj)
    body.update(self='%s/%s/objects/%s' % (BASE, ns, obj['name']),
                schema=SCHEMA + 'object')
    return _compact(body)


def _namespace_view(record, full=True):
    body = {key: record.get(key) for key in _NS_FIELDS}
    body.update(self='%s/%s' % (BASE, record['namespace']),
                schema=SCHEMA + 'namespace')
    if record['resource_type_associations']:
        body['resource_type_associations'] = \
            record['resource_type_associations']
    if full:
        if record['properties']:
            body['properties'] = record['properties']
        if record['objects']:
            body['objects'] = [
                {k: v for k, v in o.items()
                 if k not in ('created_at', 'updated_at')}
                for o in record['objects']]
        if record['tags']:
            body['tags'] = [{'name': t['name']} for t in record['tags']]
    return _compact(body)


# -- namespaces ---------------------------------------------------------------

def _namespace_values(body, old=None):
    values = dict(old or {})
    values['namespace'] = _string(body, 'namespace', required=True,
                                  maximum=80)
    for key, maximum in (('display_name', 80), ('description', 500)):
        if key in body:
            values[key] = _string(body, key, maximum=maximum)
    visibility = body.get('visibility', values.get('visibility',
                                                   'private'))
    if visibility not in metadefs.VISIBILITIES:
        raise webob.exc.HTTPBadRequest(
            "Invalid value '%s' for 'visibility'." % visibility)
    protected = body.get('protected', values.get('protected', False))
    if not isinstance(protected, bool):
        raise webob.exc.HTTPBadRequest(
            "Invalid value for 'protected': a boolean is required.")
    values.update(visibility=visibility, protected=protected)
    return values


def list_namespaces(req):
    """GET /image/v2/metadefs/namespaces (``visibility``,
    ``resource_types`` filters)."""
    with _store(req) as (context, conf):
        found = [r for r in metadefs.all_namespaces(conf)
                 if metadefs.can_see(context, r)]
    if 'visibility' in req.GET:
        found = [r for r in found if r['visibility'] == req.GET['visibility']]
    if 'resource_types' in req.GET:
        wanted = set(req.GET['resource_types'].split(','))
        found = [r for r in found if wanted & {
            a['name'] for a in r['resource_type_associations']}]
    return util.json_response({
        'namespaces': [_namespace_view(r, full=False) for r in found],
        'first': BASE, 'schema': SCHEMA + 'namespaces'})


def create_namespace(req):
    """POST /image/v2/metadefs/namespaces: 201; 409 on a taken name."""
    body = images._json_object(req)
    with _store(req, write=True) as (context, conf):
        values = _namespace_values(body)
        try:
            metadefs.read(conf, values['namespace'])
            raise webob.exc.HTTPConflict(
                'A metadata definition namespace with name=%s already '
                'exists.' % values['namespace'])
        except metadefs.NotFound:
            pass
        values['owner'] = body.get('owner') or context.project_id
        for key in ('properties', 'objects', 'tags',
                    'resource_type_associations'):
            if key in body:
                values[key] = body[key]
        _check_parts(values)
        record = metadefs.stamped(values)
        metadefs.write(conf, record)
    return util.json_response(_namespace_view(record), status=201)


def _only_known(item, known, what):
    """400 for a key the published schema of ``what`` does not have."""
    if not isinstance(item, dict):
        raise webob.exc.HTTPBadRequest(
            'Invalid value for %s: an object is required.' % what)
    unknown = sorted(set(item) - set(known))
    if unknown:
        raise webob.exc.HTTPBadRequest(
            'Additional properties are not allowed in %s (%s).'
            % (what, ', '.join(map(repr, unknown))))


def _check_parts(values):
    for name, prop in (values.get('properties') or {}).items():
        _check_property(dict(prop, name=name))
    for obj in values.get('objects') or []:
        _only_known(obj, schemas.METADEF_OBJECT, 'an object')
        _string(obj, 'name', required=True, maximum=80)
        for name, prop in (obj.get('properties') or {}).items():
            _check_property(dict(prop, name=name))
    for tag in values.get('tags') or []:
        _only_known(tag, schemas.METADEF_TAG, 'a tag')
        _string(tag, 'name', required=True)
    for assoc in values.get('resource_type_associations') or []:
        _only_known(assoc, schemas.RESOURCE_TYPE_ASSOCIATION,
                    'a resource type association')
        _string(assoc, 'name', required=True, maximum=80)


def show_namespace(req):
    """GET /image/v2/metadefs/namespaces/{namespace}."""
    with _store(req) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
    return util.json_response(_namespace_view(record))


def update_namespace(req):
    """PUT /image/v2/metadefs/namespaces/{namespace}: 200 (a rename too;
    409 onto a taken name)."""
    body = images._json_object(req)
    with _store(req, write=True) as (context, conf):
        old = _namespace(context, conf, req.urlvars['namespace'])
        values = _namespace_values(body, old)
        if values['namespace'] != old['namespace']:
            try:
                metadefs.read(conf, values['namespace'])
                raise webob.exc.HTTPConflict(
                    'A metadata definition namespace with name=%s already '
                    'exists.' % values['namespace'])
            except metadefs.NotFound:
                pass
            metadefs.remove(conf, old['namespace'])
        _save(conf, values)
    return util.json_response(_namespace_view(values))


def delete_namespace(req):
    """DELETE /image/v2/metadefs/namespaces/{namespace}: 204; 403 when
    protected."""
    with _store(req, write=True) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
        if record['protected']:
            raise webob.exc.HTTPForbidden(
                'Namespace %s is protected and cannot be deleted.'
                % record['namespace'])
        metadefs.remove(conf, record['namespace'])
    return util.no_content()


# -- properties ---------------------------------------------------------------

_PROPERTY_CHECK = jsonschema.Draft7Validator(
    {'type': 'object', 'properties': schemas.METADEF_PROPERTY})


def _check_property(prop):
    """400 unless ``prop`` is a property as the published schema
    describes it (each keyword of its JSON type: a minimum a number,
    operators a list...), with a name, a title and a type."""
    _string(prop, 'name', required=True, maximum=80)
    _string(prop, 'title', required=True)
    if prop.get('type') not in PROPERTY_TYPES:
        raise webob.exc.HTTPBadRequest(
            "Invalid value for 'type': one of %s is required."
            % ', '.join(PROPERTY_TYPES))
    error = jsonschema.exceptions.best_match(
        _PROPERTY_CHECK.iter_errors(prop))
    if error is not None:
        raise webob.exc.HTTPBadRequest(
            "Invalid value for '%s': %s" % (
                '/'.join(map(str, error.absolute_path)) or 'property',
                error.message))


def list_properties(req):
    with _store(req) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
    return util.json_response({'properties': record['properties'],
                               'schema': SCHEMA + 'properties'})


def _property(record, name):
    if name not in record['properties']:
        raise webob.exc.HTTPNotFound(
            'Metadata definition property=%s not found in namespace=%s.'
            % (name, record['namespace']))
    return dict(record['properties'][name], name=name)


def create_property(req):
    """POST .../properties: 201, the property; 409 on a taken name."""
    body = images._json_object(req)
    _check_property(body)
    with _store(req, write=True) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
        if body['name'] in record['properties']:
            raise webob.exc.HTTPConflict(
                'A metadata definition property with name=%s already '
                'exists in namespace=%s.' % (body['name'],
                                             record['namespace']))
        record['properties'][body['name']] = {
            k: v for k, v in body.items() if k != 'name'}
        _save(conf, record)
    return util.json_response(body, status=201)


def show_property(req):
    with _store(req) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
    return util.json_response(_property(record,
                                        req.urlvars['property_name']))


def update_property(req):
    """PUT .../properties/{name}: 200, the property (renames too)."""
    body = images._json_object(req)
    _check_property(body)
    with _store(req, write=True) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
        old = req.urlvars['property_name']
        _property(record, old)
        if body['name'] != old and body['name'] in record['properties']:
            raise webob.exc.HTTPConflict(
                'A metadata definition property with name=%s already '
                'exists.' % body['name'])
        del record['properties'][old]
        record['properties'][body['name']] = {
            k: v for k, v in body.items() if k != 'name'}
        _save(conf, record)
    return util.json_response(body)


def delete_property(req):
    with _store(req, write=True) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
        _property(record, req.urlvars['property_name'])
        del record['properties'][req.urlvars['property_name']]
        _save(conf, record)
    return util.no_content()


def delete_properties(req):
    """DELETE .../properties: every property of the namespace."""
    with _store(req, write=True) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
        record['properties'] = {}
        _save(conf, record)
    return util.no_content()


# -- objects ------------------------------------------------------------------

def _object_index(record, name):
    for index, obj in enumerate(record['objects']):
        if obj['name'] == name:
            return index
    raise webob.exc.HTTPNotFound(
        'Metadata definition object=%s not found in namespace=%s.'
        % (name, record['namespace']))


def _object_values(body):
    values = {'name': _string(body, 'name', required=True, maximum=80),
              'description': body.get('description'),
              'required': body.get('required', []),
              'properties': body.get('properties', {})}
    if not isinstance(values['properties'], dict) or not isinstance(
            values['required'], list):
        raise webob.exc.HTTPBadRequest(
            "'properties' must be an object and 'required' a list.")
    for name, prop in values['properties'].items():
        _check_property(dict(prop, name=name))
    return _compact(values)


def list_objects(req):
    with _store(req) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
    ns = record['namespace']
    return util.json_response({
        'objects': [_object_view(ns, o) for o in record['objects']],
        'schema': SCHEMA + 'objects'})


def create_object(req):
    """POST .../objects: 201, the object; 409 on a taken name."""
    body = images._json_object(req)
    values = _object_values(body)
    with _store(req, write=True) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
        if any(o['name'] == values['name'] for o in record['objects']):
            raise webob.exc.HTTPConflict(
                'A metadata definition object with name=%s already exists '
                'in namespace=%s.' % (values['name'], record['namespace']))
        values['created_at'] = values['updated_at'] = metadefs.now()
        record['objects'].append(values)
        _save(conf, record)
    return util.json_response(_object_view(record['namespace'], values),
                              status=201)


def show_object(req):
    with _store(req) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
    obj = record['objects'][_object_index(record,
                                          req.urlvars['object_name'])]
    return util.json_response(_object_view(record['namespace'], obj))


def update_object(req):
    """PUT .../objects/{name}: 200, the object (renames too)."""
    body = images._json_object(req)
    values = _object_values(body)
    with _store(req, write=True) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
        index = _object_index(record, req.urlvars['object_name'])
        if values['name'] != req.urlvars['object_name'] and any(
                o['name'] == values['name'] for o in record['objects']):
            raise webob.exc.HTTPConflict(
                'A metadata definition object with name=%s already '
                'exists.' % values['name'])
        values['created_at'] = record['objects'][index]['created_at']
        values['updated_at'] = metadefs.now()
        record['objects'][index] = values
        _save(conf, record)
    return util.json_response(_object_view(record['namespace'], values))


def delete_object(req):
    with _store(req, write=True) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
        del record['objects'][_object_index(
            record, req.urlvars['object_name'])]
        _save(conf, record)
    return util.no_content()


def delete_objects(req):
    """DELETE .../objects: every object of the namespace."""
    with _store(req, write=True) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
        record['objects'] = []
        _save(conf, record)
    return util.no_content()


# -- resource types -----------------------------------------------------------

def list_resource_types(req):
    """GET /image/v2/metadefs/resource_types."""
    with _store(req) as (_context, conf):
        names = metadefs.resource_types(conf)
    when = '2026-01-01T00:00:00Z'
    return util.json_response({'resource_types': [
        {'name': n, 'created_at': when, 'updated_at': when}
        for n in names]})


def list_associations(req):
    with _store(req) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
    return util.json_response({'resource_type_associations':
                               record['resource_type_associations']})


def create_association(req):
    """POST .../resource_types: 201, the association."""
    body = images._json_object(req)
    values = {'name': _string(body, 'name', required=True, maximum=80),
              'prefix': body.get('prefix'),
              'properties_target': body.get('properties_target')}
    with _store(req, write=True) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
        if any(a['name'] == values['name']
               for a in record['resource_type_associations']):
            raise webob.exc.HTTPConflict(
                'The metadata definition resource-type association of '
                'resource-type=%s to namespace=%s already exists.'
                % (values['name'], record['namespace']))
        values = _compact(values)
        values['created_at'] = values['updated_at'] = metadefs.now()
        record['resource_type_associations'].append(values)
        _save(conf, record)
    return util.json_response(values, status=201)


def delete_association(req):
    with _store(req, write=True) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
        name = req.urlvars['resource_type']
        kept = [a for a in record['resource_type_associations']
                if a['name'] != name]
        if len(kept) == len(record['resource_type_associations']):
            raise webob.exc.HTTPNotFound(
                'The metadata definition resource-type association of '
                'resource-type=%s to namespace=%s, was not found.'
                % (name, record['namespace']))
        record['resource_type_associations'] = kept
        _save(conf, record)
    return util.no_content()


# -- tags ---------------------------------------------------------------------

def _tag_view(tag):
    return {k: tag[k] for k in ('name', 'created_at', 'updated_at')}


def _tag_index(record, name):
    for index, tag in enumerate(record['tags']):
        if tag['name'] == name:
            return index
    raise webob.exc.HTTPNotFound(
        'Metadata tag with name=%s was not found in namespace=%s.'
        % (name, record['namespace']))


def list_tags(req):
    with _store(req) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
    return util.json_response({'tags': [_tag_view(t)
                                        for t in record['tags']]})


def create_tags(req):
    """POST .../tags {"tags": [{"name": ...}]}: 201; replaces the tags
    unless ``X-Openstack-Append: true``."""
    body = images._json_object(req)
    tags = body.get('tags')
    if not isinstance(tags, list) or not all(
            isinstance(t, dict) for t in tags):
        raise webob.exc.HTTPBadRequest("'tags' must be a list of objects.")
    names = [_string(t, 'name', required=True) for t in tags]
    if len(set(names)) != len(names):
        raise webob.exc.HTTPConflict('Duplicate tags in the request.')
    append = strutils.bool_from_string(
        req.headers.get('X-Openstack-Append', 'false'))
    with _store(req, write=True) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
        kept = record['tags'] if append else []
        if set(names) & {t['name'] for t in kept}:
            raise webob.exc.HTTPConflict(
                'A metadata tag in the request already exists.')
        when = metadefs.now()
        new = [{'name': n, 'created_at': when, 'updated_at': when}
               for n in names]
        record['tags'] = kept + new
        _save(conf, record)
    return util.json_response({'tags': [_tag_view(t) for t in new]},
                              status=201)


def delete_tags(req):
    with _store(req, write=True) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
        record['tags'] = []
        _save(conf, record)
    return util.no_content()


def create_tag(req):
    """POST .../tags/{tag_name}: 201, the tag; 409 when it exists."""
    name = req.urlvars['tag_name']
    with _store(req, write=True) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
        if any(t['name'] == name for t in record['tags']):
            raise webob.exc.HTTPConflict(
                'A metadata tag with name=%s already exists in '
                'namespace=%s.' % (name, record['namespace']))
        when = metadefs.now()
        tag = {'name': name, 'created_at': when, 'updated_at': when}
        record['tags'].append(tag)
        _save(conf, record)
    return util.json_response(_tag_view(tag), status=201)


def show_tag(req):
    with _store(req) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
    return util.json_response(_tag_view(record['tags'][_tag_index(
        record, req.urlvars['tag_name'])]))


def update_tag(req):
    """PUT .../tags/{tag_name} {"name": ...}: 200, the renamed tag."""
    body = images._json_object(req)
    new_name = _string(body, 'name', required=True)
    with _store(req, write=True) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
        index = _tag_index(record, req.urlvars['tag_name'])
        if new_name != req.urlvars['tag_name'] and any(
                t['name'] == new_name for t in record['tags']):
            raise webob.exc.HTTPConflict(
                'A metadata tag with name=%s already exists.' % new_name)
        tag = record['tags'][index]
        tag.update(name=new_name, updated_at=metadefs.now())
        _save(conf, record)
    return util.json_response(_tag_view(tag))


def delete_tag(req):
    with _store(req, write=True) as (context, conf):
        record = _namespace(context, conf, req.urlvars['namespace'])
        del record['tags'][_tag_index(record, req.urlvars['tag_name'])]
        _save(conf, record)
    return util.no_content()
