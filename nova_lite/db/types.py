"""Column types and mixins shared by the API and cell database models.

Both schemas store structured values (flavors, specs, metadata) as JSON in a
text column rather than in engine-specific JSON types, so the same migration
gives the same schema on SQLite and MySQL/MariaDB and alembic's comparison
between models and migrations stays exact. Timestamps are naive UTC, as in
Nova.
"""

import datetime

from oslo_serialization import jsonutils
from oslo_utils import timeutils
import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy import orm


def utcnow():
    """Naive UTC now, the form every timestamp column stores."""
    return timeutils.utcnow().replace(tzinfo=None)


# NOTE(nova_lite): TEXT on MySQL holds 64 KiB; user data, build requests and
# request specs may be larger, so MySQL gets MEDIUMTEXT (16 MiB).
LargeText = sa.Text().with_variant(mysql.MEDIUMTEXT(), 'mysql', 'mariadb')


# NOTE(nova_lite): MySQL's DATETIME drops fractions of a second unless told
# otherwise; keep microseconds everywhere so ordering by time and
# changes-since filters behave the same as on SQLite.
DateTime = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql',
                                      'mariadb')


class JSONEncoded(sa.types.TypeDecorator):
    """A Python value stored as JSON text (None stays NULL)."""

    impl = sa.Text
    cache_ok = True

    def load_dialect_impl(self, dialect):
        if dialect.name in ('mysql', 'mariadb'):
            return dialect.type_descriptor(mysql.MEDIUMTEXT())
        return dialect.type_descriptor(sa.Text())

    def process_bind_param(self, value, dialect):
        if value is None:
            return None
        return jsonutils.dumps(value)

    def process_result_value(self, value, dialect):
        if value is None:
            return None
        return jsonutils.loads(value)


class ModelMixin:
    """Dict-style helpers on top of a declarative model."""

    def update(self, values):
        for key, value in values.items():
            setattr(self, key, value)

    def get(self, key, default=None):
        return getattr(self, key, default)

    def __getitem__(self, key):
        return getattr(self, key)

    def as_dict(self):
        """The row's columns as a plain dict."""
        return {c.key: getattr(self, c.key)
                for c in sa.inspect(self).mapper.column_attrs}


class TimestampMixin:
    """created_at set on insert, updated_at on every ORM update."""

    created_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        DateTime, default=utcnow)
    updated_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        DateTime, onupdate=utcnow)


class SoftDeleteMixin:
    """Nova's soft delete: ``deleted`` is 0 while alive, the row id after.

    Using the id (not 1) keeps unique constraints that include ``deleted``
    usable for any number of deleted rows with the same natural key.
    """

    deleted: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, default=0, server_default='0', nullable=False)
    deleted_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        DateTime)
