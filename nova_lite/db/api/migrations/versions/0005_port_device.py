"""Ports by device: a ``device_id`` column on network resources.

A server's ports were found by reading every port and matching the
``device_id`` in its JSON body; the column (filled here from the bodies
of the ports already stored) and its index let a server's GET read only
its own ports.

Revision ID: 0005
Revises: 0004

"""

from alembic import op
from oslo_serialization import jsonutils
import sqlalchemy as sa

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('network_resources',
                  sa.Column('device_id', sa.String(length=255),
                            nullable=True))
    op.create_index('network_resources_device_idx', 'network_resources',
                    ['device_id'])
    _fill_device_ids()


def _fill_device_ids():
    resources = sa.table('network_resources', sa.column('id'),
                         sa.column('kind'), sa.column('body'),
                         sa.column('device_id'))
    bind = op.get_bind()
    ports = bind.execute(sa.select(resources.c.id, resources.c.body).where(
        resources.c.kind == 'port')).all()
    for row_id, body in ports:
        device = (jsonutils.loads(body) if body else {}).get('device_id')
        if device:
            bind.execute(resources.update().where(
                resources.c.id == row_id).values(device_id=device))
