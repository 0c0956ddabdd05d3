"""nova_lite placement: the resource inventory and claim service.

A separate WSGI service (``nova-lite-placement``) with its own database that
speaks the OpenStack Placement REST API. The package is split the way the
reference service is, so the place of a behaviour is obvious:

* ``deploy.py``     the shared pipeline (``nova_lite.wsgi``) with placement's
                    router, auth settings and version table
* ``handler.py``    the route table (one dict), on the shared dispatcher
* ``faults.py``     the JSON error shape, domain exceptions -> HTTP
* ``auth.py``       who a noauth2 token is; ``/`` public
* ``handlers/``     one module of small request handlers per URL family
* ``schemas/``      JSON schemas of request bodies and query strings
* ``policies/``     oslo.policy rules
* ``objects/``      domain objects and all SQL (no webob here)
* ``db/``           models, alembic migrations, the transaction context
* ``microversion.py``, ``errors.py``, ``exception.py``, ``util.py``
"""
