"""Places held per client address: the WebSocket connections one address holds at once
(:attr:`~gutskit.server.rooms.ServerConfig.max_connections_per_address`), the
connections over the limits that wait for their ``hello`` and those a seat's token got in
beyond the limits (:data:`gutskit.server.app.SEAT_OVERFLOW`,
:data:`gutskit.server.app.ADDRESS_OVERFLOW`); ``docs/protocol.md``, "Limits".

A place is taken when a connection is accepted and given back when it ends. One process
(the default ``guts serve``) counts in memory (:class:`ConnectionQuota`); the workers of a
cluster (``guts serve --workers N`` / ``--redis URL``) count in the shared Redis
(:class:`gutskit.server.cluster.ClusterQuota`), so the limit is the cluster's, whichever
worker runs the rooms an address watches.

A count of places in flight is not a rate, so the :mod:`limits` library (moving windows of
hits, used for the room-creation and chat rates) does not fit it: a place must be given
back when its connection ends, and released by itself when the process holding it dies.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

__all__ = ["CONNECTIONS", "OVERFLOW", "WAITING", "ConnectionQuota", "Held"]

CONNECTIONS = "conns"
"""Kind of place: an accepted connection within the per-address limit."""
WAITING = "waiting"
"""Kind of place: a connection over the limits waiting for its ``hello`` (only a seat's
token gets it in)."""
OVERFLOW = "overflow"
"""Kind of place: a connection beyond the limits that a seat's token got in (held until
it ends, or handed to the newer connection of the same seat that replaces it)."""


@dataclass(frozen=True, eq=False)
class Held:
    """One place taken (:meth:`ConnectionQuota.take`), to give back once.

    Attributes:
        kind: :data:`CONNECTIONS`, :data:`WAITING` or :data:`OVERFLOW`.
        address: the client address counted.
        member: the place's id in the shared count (``""``: counted in this process).
    """

    kind: str
    address: str
    member: str = ""


class ConnectionQuota:
    """Places per client address, counted in this process's memory.

    >>> import asyncio
    >>> quota = ConnectionQuota()
    >>> first = asyncio.run(quota.take(CONNECTIONS, "10.0.0.1", 1))
    >>> asyncio.run(quota.take(CONNECTIONS, "10.0.0.1", 1)) is None  # the one place is taken
    True
    >>> quota.give_back(first)
    >>> asyncio.run(quota.take(CONNECTIONS, "10.0.0.1", 1)) is not None
    True
    """

    def __init__(self) -> None:
        self.counts: Counter[tuple[str, str]] = Counter()
        """Places held here: (kind, address) -> how many."""

    async def take(self, kind: str, address: str, limit: int) -> Held | None:
        """Take a place of ``kind`` for ``address`` if it holds fewer than ``limit``.

        Args:
            kind: :data:`CONNECTIONS`, :data:`WAITING` or :data:`OVERFLOW`.
            address: the client address.
            limit: the most places of that kind one address may hold.

        Returns:
            The place (give it back with :meth:`give_back` when the connection ends), or
            ``None``: the address already holds ``limit``.
        """
        key = (kind, address)
        if self.counts[key] >= limit:
            return None
        self.counts[key] += 1
        return Held(kind, address)

    def give_back(self, held: Held) -> None:
        """Give back a place taken by :meth:`take` (once; never raises)."""
        key = (held.kind, held.address)
        self.counts[key] -= 1
        if self.counts[key] <= 0:
            del self.counts[key]
