"""Plain records of the API database, for what never crosses RPC.

Aggregates, key pairs, server groups, host mappings and quota limits are
read and written by the API process only (the scheduler and the
conductors read aggregates and groups themselves), so they need no
version and no fingerprint: like placement's objects, they are plain
classes holding the columns the API uses, built from a row of the API
database, with the reads and writes of their resource beside them.
The API uses these, never :mod:`nova_lite.db`.
"""


class Record:
    """The ``FIELDS`` of one row, as attributes (and the context read)."""

    FIELDS = ()

    def __init__(self, context, **values):
        self._context = context
        for name in self.FIELDS:
            setattr(self, name, values.get(name))

    @classmethod
    def _from_row(cls, context, row):
        return cls(context, **{name: getattr(row, name)
                               for name in cls.FIELDS})

    @classmethod
    def _from_rows(cls, context, rows):
        return [cls._from_row(context, row) for row in rows]

    def __repr__(self):
        return '<%s %s>' % (type(self).__name__, ', '.join(
            '%s=%r' % (name, getattr(self, name)) for name in self.FIELDS))
