"""Version-2 deals: the client seeds mixed into each round and the positions opened.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``room_deals.client_seeds`` and ``room_deals.opened`` (JSON, null until the
    round is dealt / opened) unless ``Base.metadata.create_all`` already made them."""
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("room_deals")}
    with op.batch_alter_table("room_deals") as batch:
        if "client_seeds" not in columns:
            batch.add_column(sa.Column("client_seeds", sa.JSON(), nullable=True))
        if "opened" not in columns:
            batch.add_column(sa.Column("opened", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("room_deals") as batch:
        batch.drop_column("opened")
        batch.drop_column("client_seeds")
