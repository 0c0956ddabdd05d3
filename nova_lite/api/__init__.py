"""nova_lite's compute REST API (``nova-lite-api``).

Laid out like placement, so the place of a behaviour is obvious:

* ``deploy.py``        the shared pipeline (``nova_lite.wsgi``) with the
                       compute API's router, auth settings, versions,
                       and the image, network and dashboard services
                       mounted next to it (``nova_lite.image``,
                       ``nova_lite.network``, ``nova_lite.dashboard``)
* ``router.py``        the route table (one dict of path -> method ->
                       handler function) and dispatch, 404/405
* ``handlers/``        one module of small request handlers per URL family
* ``compute/``         the compute API layer the handlers call: one object
                       per concern (create, actions, delete, resize,
                       live migration, shelve) behind a thin ``API``
* ``schemas/``         JSON schemas of bodies and query strings, as data
* ``policies/``        oslo.policy defaults, as data; ``policy.py`` enforces
* ``microversion.py``  2.1 to 2.100: the version table, guards, what
                       changes where
* ``auth.py``          who a noauth2 token is; the public version documents
* ``faults.py``        Nova's fault format and the wording of shared errors
* ``validation.py``    schema checks whose errors name the field
* ``util.py``          the handler contract (context, responses, paging;
                       the parts every service shares are in
                       ``nova_lite.wsgi.util``)
* ``cells.py``         scatter-gather over cells with a per-cell timeout
* ``host_info.py``     services, compute nodes and zones of every cell
* ``quota.py``         limits and usage;
  ``default_flavors.py`` m1.tiny to m1.xlarge; ``extra_specs_validator.py``
  and ``keypair_crypto.py`` the checks behind flavors and key pairs
* ``wsgi.py``          what gunicorn loads; ``versions.py`` the documents
"""
