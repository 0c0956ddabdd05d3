"""os-simple-tenant-usage: hours, vCPU-, RAM- and disk-hours of projects
over a period, computed from their instances' launch and terminate times
and flavors, as Nova computes them.

``start`` and ``end`` (``YYYY-MM-DDTHH:MM:SS[.ffffff]``, default now;
the end never past now) bound the period; an instance counts for the
time it ran inside it, deleted instances included. The index (admins)
sums per project, with each server's usage when ``detailed=1``; show
(the project's readers) always lists them. From 2.40 ``limit`` and
``marker`` (an instance uuid) page over the instances, with a ``next``
link when a page is full.
"""

import datetime
from urllib import parse

from oslo_utils import timeutils
import webob.exc

from nova_lite.api import microversion
from nova_lite.api import policy
from nova_lite.api import util
from nova_lite.api import validation
from nova_lite import cells
from nova_lite import conf as nl_conf
from nova_lite import exception
from nova_lite import objects

CONF = nl_conf.CONF

_FORMATS = ('%Y-%m-%dT%H:%M:%S', '%Y-%m-%dT%H:%M:%S.%f',
            '%Y-%m-%d %H:%M:%S.%f')
_QUERY = {'start': {'type': 'string'}, 'end': {'type': 'string'},
          'detailed': {'type': 'string'}}
_PAGING = {'limit': {'type': 'string'}, 'marker': {'type': 'string'}}


def query_schema(req, index):
    properties = dict(_QUERY) if index else {
        k: v for k, v in _QUERY.items() if k != 'detailed'}
    if microversion.at_least(req, '2.40'):
        properties.update(_PAGING)
    return {'type': 'object', 'properties': properties,
            'additionalProperties': not microversion.at_least(req, '2.75')}


def _parse_time(text):
    if not text:
        return timeutils.utcnow()
    for fmt in _FORMATS:
        try:
            return datetime.datetime.strptime(text, fmt)
        except ValueError:
            continue
    raise webob.exc.HTTPBadRequest(
        'Invalid input: Datetime is in invalid format')


def _period(req):
    start = _parse_time(req.GET.get('start'))
    stop = _parse_time(req.GET.get('end'))
    if not start < stop:
        raise webob.exc.HTTPBadRequest(
            'Invalid start time. The start time cannot occur after the end '
            'time.')
    return start, min(stop, timeutils.utcnow())


def _hours(instance, start, stop):
    launched, ended = instance.launched_at, instance.terminated_at
    launched = launched and launched.replace(tzinfo=None)
    ended = ended and ended.replace(tzinfo=None)
    if launched is None or (ended and ended < start) or launched > stop:
        return 0
    return (min(stop, ended or stop) - max(launched, start)
            ).total_seconds() / 3600.0


def _instances(context, start, stop, project_id, limit, marker):
    """Across the cells in order, as Nova pages them."""
    found = []
    for cell in objects.CellMappingList.get_all(context):
        with cells.target_cell(context, cell) as cctxt:
            try:
                instances = objects.InstanceList.get_active_by_window(
                    cctxt, start, stop, project_id=project_id,
                    limit=limit, marker=marker).objects
            except exception.MarkerNotFound:
                continue
        found.extend(instances)
        marker = None
        if limit:
            limit -= len(instances)
            if limit <= 0:
                break
    if marker is not None and not found:
        raise webob.exc.HTTPBadRequest('Marker %s could not be found.'
                                       % marker)
    return found


def _server_usage(instance, start, stop, now):
    flavor = instance.flavor or {}
    started = instance.launched_at.replace(tzinfo=None)
    ended = instance.terminated_at and instance.terminated_at.replace(
        tzinfo=None)
    return {
        'hours': _hours(instance, start, stop),
        'flavor': flavor.get('name', ''),
        'instance_id': instance.uuid, 'name': instance.display_name,
        'tenant_id': instance.project_id,
        'memory_mb': instance.flavor_value('memory_mb'),
        'local_gb': (instance.flavor_value('root_gb') +
                     instance.flavor_value('ephemeral_gb')),
        'vcpus': instance.flavor_value('vcpus'),
        'started_at': started, 'ended_at': ended,
        'state': 'terminated' if ended else instance.vm_state,
        'uptime': int(((ended or now) - started).total_seconds()),
    }


def _usages(context, start, stop, project_id, detailed, limit, marker):
    """([per-project summary], [every server usage])."""
    now = timeutils.utcnow()
    summaries = {}
    servers = []
    for instance in _instances(context, start, stop, project_id, limit,
                               marker):
        info = _server_usage(instance, start, stop, now)
        summary = summaries.get(info['tenant_id'])
        if summary is None:
            summary = summaries[info['tenant_id']] = {
                'tenant_id': info['tenant_id'], 'total_local_gb_usage': 0,
                'total_vcpus_usage': 0, 'total_memory_mb_usage': 0,
                'total_hours': 0, 'start': start, 'stop': stop}
            if detailed:
                summary['server_usages'] = []
        hours = info['hours']
        summary['total_local_gb_usage'] += info['local_gb'] * hours
        summary['total_vcpus_usage'] += info['vcpus'] * hours
        summary['total_memory_mb_usage'] += info['memory_mb'] * hours
        summary['total_hours'] += hours
        servers.append(info)
        if detailed:
            summary['server_usages'].append(info)
    return list(summaries.values()), servers


def _paging(req):
    if not microversion.at_least(req, '2.40'):
        return CONF.api.max_limit, None
    limit = util.query_int(req, 'limit', minimum=0)
    limit = CONF.api.max_limit if limit is None else min(
        limit, CONF.api.max_limit)
    return limit, req.GET.get('marker')


def _links(req, servers, limit, collection):
    if not microversion.at_least(req, '2.40') or not servers or \
            len(servers) != limit:
        return None
    params = [(k, v) for k, v in req.GET.items() if k != 'marker']
    params.append(('marker', servers[-1]['instance_id']))
    return [{'rel': 'next', 'href': '%s/%s?%s' % (
        util.base_url(req), collection, parse.urlencode(params))}]


def list_usages(req):
    """GET /os-simple-tenant-usage (admins)."""
    context = util.context(req)
    policy.authorize(context, 'os-simple-tenant-usage:list')
    validation.query(req, query_schema(req, index=True))
    start, stop = _period(req)
    limit, marker = _paging(req)
    usages, servers = _usages(context, start, stop, None,
                              req.GET.get('detailed') == '1', limit, marker)
    body = {'tenant_usages': usages}
    links = _links(req, servers, limit, 'os-simple-tenant-usage')
    if links:
        body['tenant_usages_links'] = links
    return util.json_response(body)


def show_usage(req):
    """GET /os-simple-tenant-usage/{tenant_id}: ``{}`` when the project
    used nothing."""
    context = util.context(req)
    project_id = req.urlvars['tenant_id']
    policy.authorize(context, 'os-simple-tenant-usage:show',
                     {'project_id': project_id})
    validation.query(req, query_schema(req, index=False))
    start, stop = _period(req)
    limit, marker = _paging(req)
    usages, servers = _usages(context, start, stop, project_id, True,
                              limit, marker)
    body = {'tenant_usage': usages[0] if usages else {}}
    links = _links(req, servers, limit,
                   'os-simple-tenant-usage/%s' % project_id)
    if links:
        body['tenant_usage_links'] = links
    return util.json_response(body)
