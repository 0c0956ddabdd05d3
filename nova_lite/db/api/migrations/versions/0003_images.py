"""The image service: images and their members.

Revision ID: 0003
Revises: 0002

"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

LARGE_TEXT = sa.Text().with_variant(mysql.MEDIUMTEXT(), 'mysql', 'mariadb')
DATETIME = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql',
                                      'mariadb')

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'images',
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=True),
        sa.Column('status', sa.String(length=30), nullable=False),
        sa.Column('visibility', sa.String(length=20), nullable=False),
        sa.Column('protected', sa.Boolean(), nullable=False),
        sa.Column('os_hidden', sa.Boolean(), nullable=False),
        sa.Column('owner', sa.String(length=255), nullable=True),
        sa.Column('size', sa.BigInteger(), nullable=True),
        sa.Column('virtual_size', sa.BigInteger(), nullable=True),
        sa.Column('disk_format', sa.String(length=20), nullable=True),
        sa.Column('container_format', sa.String(length=20), nullable=True),
        sa.Column('min_disk', sa.Integer(), nullable=False),
        sa.Column('min_ram', sa.Integer(), nullable=False),
        sa.Column('checksum', sa.String(length=32), nullable=True),
        sa.Column('os_hash_algo', sa.String(length=64), nullable=True),
        sa.Column('os_hash_value', sa.String(length=128), nullable=True),
        sa.Column('properties', LARGE_TEXT, nullable=True),
        sa.Column('tags', LARGE_TEXT, nullable=True),
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('uuid', name='uniq_images0uuid'),
    )
    op.create_index('images_owner_idx', 'images', ['owner'])

    op.create_table(
        'image_members',
        sa.Column('image_uuid', sa.String(length=36), nullable=False),
        sa.Column('member', sa.String(length=255), nullable=False),
        sa.Column('status', sa.String(length=20), nullable=False),
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.ForeignKeyConstraint(['image_uuid'], ['images.uuid'],
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('image_uuid', 'member',
                            name='uniq_image_members0image_uuid0member'),
    )
    op.create_index('image_members_member_idx', 'image_members', ['member'])
