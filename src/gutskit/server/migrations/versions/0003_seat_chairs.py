"""Seat choice: the chair of each seat around the table (0-9 clockwise).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``room_seats.chair`` (null in rooms stored before: the seat number) unless
    ``Base.metadata.create_all`` already made it."""
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("room_seats")}
    if "chair" not in columns:
        with op.batch_alter_table("room_seats") as batch:
            batch.add_column(sa.Column("chair", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("room_seats") as batch:
        batch.drop_column("chair")
