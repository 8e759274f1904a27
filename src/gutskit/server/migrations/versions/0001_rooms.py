"""Sessions and events (created here when ``guts play`` has not created them yet), rooms,
seats, fairness records and applied client actions.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the tables that do not exist yet (a database may already hold some: ``guts
    play`` creates ``sessions`` and ``events``, and ``Base.metadata.create_all`` in a
    process that imported the server creates them all)."""
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    if "sessions" not in existing:
        op.create_table(
            "sessions",
            sa.Column("id", sa.Integer(), primary_key=True),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("source", sa.String(32), nullable=False),
            sa.Column("rules", sa.JSON(), nullable=False),
            sa.Column("players", sa.JSON(), nullable=False),
            sa.Column("status", sa.String(16), nullable=False),
            sa.Column("end_reason", sa.String(200), nullable=True),
        )
    if "events" not in existing:
        op.create_table(
            "events",
            sa.Column("session_id", sa.Integer(),
                      sa.ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True),
            sa.Column("seq", sa.Integer(), primary_key=True),
            sa.Column("type", sa.String(40), nullable=False),
            sa.Column("payload", sa.JSON(), nullable=False),
        )
    if "rooms" not in existing:
        _create_rooms()
    if "room_seats" not in existing:
        _create_seats()
    if "room_deals" not in existing:
        _create_deals()
    if "room_actions" not in existing:
        _create_actions()


def _create_rooms() -> None:
    op.create_table(
        "rooms",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("paused", sa.Boolean(), nullable=False),
        sa.Column("session_id", sa.Integer(),
                  sa.ForeignKey("sessions.id", ondelete="SET NULL"), nullable=True),
    )


def _create_seats() -> None:
    op.create_table(
        "room_seats",
        sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("bot_style", sa.String(16), nullable=True),
        sa.Column("host", sa.Boolean(), nullable=False),
        sa.Column("kicked", sa.Boolean(), nullable=False),
    )
    op.create_index("ix_room_seats_token_hash", "room_seats", ["token_hash"])


def _create_deals() -> None:
    op.create_table(
        "room_deals",
        sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("round", sa.Integer(), primary_key=True),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("seed", sa.String(64), nullable=False),
        sa.Column("revealed", sa.Boolean(), nullable=False),
    )


def _create_actions() -> None:
    op.create_table(
        "room_actions",
        sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("action_id", sa.String(80), primary_key=True),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
    )


def downgrade() -> None:
    """Drop the server tables (sessions and events stay: ``guts play`` uses them)."""
    for table in ("room_actions", "room_deals", "room_seats", "rooms"):
        op.drop_table(table)
