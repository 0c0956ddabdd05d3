"""What the compute API and placement share as REST services.

Both services answer the same way at the HTTP level - the same auth
strategies, request ids, microversion negotiation, 404/405 dispatch and
last-resort 500 - and differ only in how an error body looks, which
versions they speak and who a token is. Those differences are passed in;
the mechanics live here once:

* ``layer.py``         the base of the layers: one request object handed
                       down, the inner response taken as it is
* ``faults.py``        the error-format contract and the last-resort wrapper
* ``auth.py``          noauth2, http_basic, keystone; public paths
* ``microversion.py``  version parsing, a service's version table, the
                       middleware that negotiates and echoes the version
* ``request_input.py`` the body read whole and bounded: size, JSON depth,
                       lone surrogates, broken chunked bodies
* ``router.py``        dispatch on a ``{path: {method: handler}}`` table
* ``pipeline.py``      the middleware order both services assemble
* ``server.py``        gunicorn driven from our entry points

This package is neutral ground: it imports neither ``nova_lite.api`` nor
``nova_lite.placement``, so placement can use it without depending on
nova's services.
"""
