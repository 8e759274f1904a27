"""What a room has pending, kept over a restart or a failover: per seat a return asked for,
the host's mute, a rebuy asked for / approved and the fairness client seed sent for the
next deal; the requests to sit down (``room_asks``) and their count.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

SEAT_COLUMNS = (
    ("back_next_game", sa.Boolean(), sa.false()),
    ("muted", sa.Boolean(), sa.false()),
    ("rebuy_chips", sa.Integer(), None),
    ("rebuy_approved", sa.Boolean(), sa.false()),
    ("client_seed", sa.String(128), None),
)


def upgrade() -> None:
    """Add the pending columns to ``room_seats`` (false / null in rooms stored before:
    nothing pending), ``rooms.ask_count`` (0) and the ``room_asks`` table, unless
    ``Base.metadata.create_all`` already made them.

    Plain ``ADD COLUMN`` (with a constant default), never a batch copy of ``rooms``: on
    SQLite a batch drops and recreates the table, and with foreign keys enforced (as
    :func:`gutskit.server.store.open_room_store` connects) dropping ``rooms`` would
    cascade to every seat, deal and action stored."""
    inspector = sa.inspect(op.get_bind())
    columns = {c["name"] for c in inspector.get_columns("room_seats")}
    for name, kind, default in SEAT_COLUMNS:
        if name not in columns:
            op.add_column("room_seats", sa.Column(name, kind, nullable=default is None,
                                                  server_default=default))
    if "ask_count" not in {c["name"] for c in inspector.get_columns("rooms")}:
        op.add_column("rooms", sa.Column("ask_count", sa.Integer(), nullable=False,
                                         server_default=sa.text("0")))
    if "room_asks" not in set(inspector.get_table_names()):
        op.create_table(
            "room_asks",
            sa.Column("room_id", sa.String(32),
                      sa.ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True),
            sa.Column("number", sa.Integer(), primary_key=True),
            sa.Column("name", sa.String(64), nullable=False),
            sa.Column("chair", sa.Integer(), nullable=False),
            sa.Column("next_game", sa.Boolean(), nullable=False),
            sa.Column("approved", sa.Boolean(), nullable=False),
            sa.Column("token_hash", sa.String(64), nullable=False),
        )


def downgrade() -> None:
    """Drop what :func:`upgrade` added (``DROP COLUMN``: SQLite 3.35 or later)."""
    op.drop_table("room_asks")
    op.drop_column("rooms", "ask_count")
    for name, _, _ in reversed(SEAT_COLUMNS):
        op.drop_column("room_seats", name)
