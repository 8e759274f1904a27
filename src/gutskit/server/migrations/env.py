"""Alembic environment of gutskit's database (run by :func:`gutskit.server.store.upgrade`,
which passes an open connection in ``config.attributes["connection"]``)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from gutskit.io.storage import Base
from gutskit.server import store  # noqa: F401  (registers the server tables on Base)

target_metadata = Base.metadata


def run() -> None:
    """Run the migrations on the given connection (or on ``sqlalchemy.url``)."""
    config = context.config
    connection = config.attributes.get("connection")
    if connection is None:
        engine = create_engine(config.get_main_option("sqlalchemy.url") or "sqlite://")
        with engine.begin() as connection:
            context.configure(connection=connection, target_metadata=target_metadata,
                              render_as_batch=True)
            context.run_migrations()
        return
    context.configure(connection=connection, target_metadata=target_metadata,
                      render_as_batch=True)
    context.run_migrations()


if hasattr(context, "config"):  # run by Alembic (not when a test collector imports it)
    run()
