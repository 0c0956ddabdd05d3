"""Placement domain objects: plain classes and functions holding all SQL.

Handlers call these with a request context; transactions are explicit
(``db_api.writer`` / ``db_api.reader`` on the functions that open them).
Nothing here knows about HTTP.

Ready for part 2 (allocation candidates, reshaper): ``provider_filters``
turns member_of / required / in_tree / resources into provider id sets,
and ``allocation.replace_all`` writes many consumers atomically with the
generation and capacity checks a reshape needs.
"""
