"""The image service nova-lite-api serves under ``/image``.

A small but real image service in Glance v2's shapes: the configured
catalog (:mod:`.catalog`) and the images users create, with their data
on disk (:mod:`.store`), members and tags, under Glance's rules
(:mod:`.service`). It has its own route table (:mod:`.router`),
handlers (:mod:`.handlers`) and policy (:mod:`.policy`); nova-lite-api's
deploy mounts it next to the compute API. The compute API and the
conductors use it only through :mod:`.interface`, as Nova uses Glance.
"""
