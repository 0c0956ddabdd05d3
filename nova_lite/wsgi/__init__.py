"""What nova_lite's REST services share: the compute API, placement,
and the image, network and dashboard services nova-lite-api mounts.

Both services answer the same way at the HTTP level - the same auth
strategies, request ids, microversion negotiation, 404/405 dispatch and
last-resort 500 - and differ only in how an error body looks, which
versions they speak and who a token is. Those differences are passed in;
the mechanics live here once:

* ``layer.py``         the base of the layers: one request object handed
                       down, the inner response taken as it is
* ``faults.py``        the error-format contract and the last-resort
                       wrapper; one format per mounted service
* ``auth.py``          noauth2, http_basic, keystone; public paths
* ``microversion.py``  version parsing, a service's version table, the
                       middleware that negotiates and echoes the version
* ``request_input.py`` the body read whole and bounded: size, JSON depth,
                       lone surrogates, broken chunked bodies
* ``router.py``        dispatch on a ``{path: {method: handler}}`` table
* ``pipeline.py``      the middleware order both services assemble
* ``server.py``        gunicorn driven from our entry points
* ``util.py``          the handler helpers (context, responses, paging)
* ``policy.py``        oslo.policy enforcers, one per service, one policy
                       file (nova-lite-api's services; placement has its own)

This package is neutral ground: it imports none of the services
(``nova_lite.api``, ``placement``, ``image``, ``network``, ``dashboard``;
import rule NL311), so each can use it without depending on another.
"""
