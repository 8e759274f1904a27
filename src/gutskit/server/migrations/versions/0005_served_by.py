"""The Redis of the cluster that serves the database (``served_by``, one row): a server
on another Redis refuses to start while that cluster runs (attack9 M2).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``served_by`` unless ``Base.metadata.create_all`` already made it."""
    if "served_by" not in set(sa.inspect(op.get_bind()).get_table_names()):
        op.create_table(
            "served_by",
            sa.Column("id", sa.Integer(), primary_key=True),
            sa.Column("redis", sa.String(512), nullable=False),
        )


def downgrade() -> None:
    """Drop ``served_by``."""
    op.drop_table("served_by")
