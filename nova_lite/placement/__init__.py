"""nova_lite placement: the resource inventory and claim service.

A separate WSGI service (``nova-lite-placement``) with its own database that
speaks the OpenStack Placement REST API. The package is split the way the
reference service is, so the place of a behaviour is obvious:

* ``deploy.py``     middleware pipeline, assembled in one function
* ``handler.py``    the route table (one dict) and dispatch, 404/405
* ``handlers/``     one module of small request handlers per URL family
* ``schemas/``      JSON schemas of request bodies and query strings
* ``policies/``     oslo.policy rules
* ``objects/``      domain objects and all SQL (no webob here)
* ``db/``           models, alembic migrations, the transaction context
* ``microversion.py``, ``errors.py``, ``exception.py``, ``util.py``
"""
