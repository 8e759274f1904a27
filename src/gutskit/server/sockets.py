"""Limits on the TCP connections of ``guts serve``, before and around HTTP (attack9 M1).

uvicorn closes an idle kept-alive connection (``timeout_keep_alive``) but never one whose
request is still arriving: 1,100 connections from one address, each sending half a
request line or half a body, stayed open and, at 1,024 open files, locked every player
out. :class:`GuardedH11Protocol` is uvicorn's h11 protocol (``http=`` of
:func:`uvicorn_options`) with:

* a deadline per request: :attr:`ServerConfig.header_seconds` from the connection's
  first byte awaited (or the next request's first byte on a kept-alive connection) until
  its request line and headers are complete (a WebSocket's opening handshake is such a
  request), then :attr:`ServerConfig.body_seconds` until its body is complete; past it
  the connection is closed. A complete request has no deadline while it is answered;
* a write deadline (attack10 HIGH-1, a slow reader): once the answer's bytes the client
  has not read fill the transport's buffer (uvicorn's send waits, holding the response
  and its open file), the client has :attr:`ServerConfig.write_seconds` to read enough
  of them for the buffer to drain (asyncio's ``resume_writing``), each time the buffer
  fills again; past it the connection is aborted (a close would wait for the unread bytes
  for ever). nginx's ``send_timeout`` in effect: a deadline between two reads, not on the
  whole answer, so a slow but reading client gets any answer. A connection closed (its
  answer complete, ``Connection: close`` or the keep-alive timeout) with unread bytes
  still in the transport's buffer, too few to fill it, has the same deadline to take them;
* a cap on the connections one peer address holds at once
  (:attr:`ServerConfig.max_sockets_per_address`, WebSockets included), counted as they
  are accepted, before any byte is read: one over it gets ``503`` and is closed. The peer
  is the TCP peer: behind a reverse proxy, every client's connections come from the
  proxy's address, so the peers of :attr:`ServerConfig.forwarded_allow_ips` are not
  capped (the proxy limits its clients).

* IPv6 peers counted by their /64 network (:func:`peer_key`): one host commonly holds a
  whole /64, so capping each of its addresses alone would cap nothing (attack10 HIGH-1);
* a higher cap on the connections of one network (:attr:`ServerConfig.max_sockets_per_network`:
  an IPv4 /24, an IPv6 /48, :func:`network_key`), so a few hundred addresses rented in one
  block cannot fill the process's cap alone, while one NAT address (an office, a campus)
  still holds its per-address share and many neighbours in one /24 four times that;
* a cap on the connections of the whole process (:attr:`SocketGuard.max_total`: the soft
  open-file limit when the first connection comes, less :data:`FILE_RESERVE`), so a flood
  from many addresses fills the cap, not the process's open files: the database, the
  logs and the connections already open keep working. It does not keep a newcomer in
  while such a flood lasts (nothing before HTTP tells a seated player from a flood):
  that needs a reverse proxy or firewall in front (docs/deploy.md).

The WebSocket side (:class:`GuardedWebSocketProtocol`, uvicorn's ``ws`` class): a
connection the server closes while its client has not taken what was sent to it is reset
(:func:`reset`), not closed, when the keepalive ping goes unanswered (20 s after it was
sent, code 1011 otherwise), when the client has not answered the server's close frame
within uvicorn's 10 s, and 10 s after the server's close when it stops: a close waits for
the unread bytes, the socket left in FIN-WAIT-1 holding them (session 12 F2: about 580 KB
each, for over a minute), or, with the transport's own buffer not empty, the socket and
its file for ever (and ``guts serve`` waited for it at SIGTERM).

Refusals and closes are logged (``gutskit.server``, a warning) once per
:data:`LOG_SECONDS` per kind, with how many were not logged, never once per connection.
Counts are per process: with ``--workers N`` each worker has its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import ipaddress
import logging
import math
import socket
import struct
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Protocol

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from gutskit.server.rooms import ServerConfig

__all__ = ["FILE_RESERVE", "FULL", "LOG_SECONDS", "NETWORK_REFUSAL", "REFUSAL", "Abortable",
           "GuardedH11Protocol", "GuardedWebSocketProtocol", "SocketGuard", "network_key",
           "peer_key", "protocol_for", "reset", "unsent"]

FILE_RESERVE = 256
"""Open files kept free of connections (the database, its journal, logs, a restart's
redis socket): the process-wide cap is the soft open-file limit less this many (never
below a quarter of the limit)."""

log = logging.getLogger("gutskit.server")

LOG_SECONDS = 60.0
"""At most one log line per kind (refused over the cap, headers late, body late) in this
many seconds."""

REFUSAL = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
           b"Connection: close\r\nContent-Length: 48\r\n\r\n"
           b"too many connections from your address at once\n")
"""What a connection over :attr:`ServerConfig.max_sockets_per_address` receives before
it is closed."""

NETWORK_REFUSAL = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
                   b"Connection: close\r\nContent-Length: 48\r\n\r\n"
                   b"too many connections from your network at once\n")
"""What a connection over :attr:`ServerConfig.max_sockets_per_network` receives before
it is closed."""

FULL = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
        b"Connection: close\r\nRetry-After: 10\r\nContent-Length: 42\r\n\r\n"
        b"the server is full: try again in a moment\n")
"""What a connection over the process's cap (:attr:`SocketGuard.max_total`) receives
before it is closed."""


@dataclass
class SocketGuard:
    """The limits of :class:`GuardedH11Protocol` and the counts of one server process.

    Attributes:
        header_seconds: seconds a request's line and headers may take to arrive.
        body_seconds: seconds its body may take once the headers are in.
        max_per_address: connections one peer address may hold at once (0: no cap).
        proxies: peers never capped (addresses, networks ``"10.0.0.0/8"``, ``"*"``).
        max_total: connections of the whole process at once (``None``: worked out from
            the soft open-file limit at the first connection; 0: no cap).
        max_per_network: connections one network (:func:`network_key`) may hold at once
            (0: no cap).
        write_seconds: seconds a full write buffer (an answer the client does not read)
            may take to drain before the connection is aborted (0: no deadline).
    """

    header_seconds: float
    body_seconds: float
    max_per_address: int
    proxies: tuple[str, ...] = ()
    max_total: int | None = None
    max_per_network: int = 0
    write_seconds: float = 0.0
    total: int = 0
    held: Counter[str] = field(default_factory=Counter)
    networks: Counter[str] = field(default_factory=Counter)
    _logged: dict[str, float] = field(default_factory=dict)
    _unlogged: Counter[str] = field(default_factory=Counter)

    @classmethod
    def of(cls, config: ServerConfig) -> SocketGuard:
        """The guard of a server run with ``config``."""
        return cls(config.header_seconds, config.body_seconds,
                   config.max_sockets_per_address, config.forwarded_allow_ips,
                   max_per_network=config.max_sockets_per_network,
                   write_seconds=config.write_seconds)

    def admit(self, address: str) -> bool:
        """Count a new connection from ``address`` (its :func:`peer_key` and
        :func:`network_key`); ``False`` (not counted) over the process's cap, the
        address's or the network's (:meth:`refusal` says which). Each admitted connection
        is released once (:meth:`release`) when it ends."""
        if self.max_total is None:
            self.max_total = _total_cap()
        if self.full():
            self.warn("full", f"refused connections over the process's {self.max_total} "
                      "open connections (the open-file limit less a reserve)")
            return False
        if (self.max_per_address > 0 or self.max_per_network > 0) \
                and not _listed(address, self.proxies):
            key, network = peer_key(address), network_key(address)
            if self.max_per_address > 0 and self.held[key] >= self.max_per_address:
                self.warn("refused", f"refused connections from {key} over its "
                          f"{self.max_per_address} open connections "
                          "(max_sockets_per_address)")
                return False
            if self.max_per_network > 0 and self.networks[network] >= self.max_per_network:
                self.warn("network", f"refused connections from the network {network} "
                          f"over its {self.max_per_network} open connections "
                          "(max_sockets_per_network)")
                return False
            self.held[key] += 1
            self.networks[network] += 1
        self.total += 1
        return True

    def refusal(self, address: str) -> bytes:
        """The answer to a connection from ``address`` that :meth:`admit` refused."""
        if self.full():
            return FULL
        if self.max_per_address > 0 and self.held[peer_key(address)] >= self.max_per_address:
            return REFUSAL
        return NETWORK_REFUSAL

    def full(self) -> bool:
        """Whether the process holds as many connections as its cap allows."""
        return bool(self.max_total) and self.total >= (self.max_total or 0)

    def release(self, address: str) -> None:
        """A connection :meth:`admit` counted for ``address`` has ended."""
        self.total -= 1
        for counts, key in ((self.held, peer_key(address)),
                            (self.networks, network_key(address))):
            if key in counts:
                counts[key] -= 1
                if counts[key] <= 0:
                    del counts[key]

    def warn(self, kind: str, text: str) -> None:
        """Log ``text`` unless a line of ``kind`` was logged in the last
        :data:`LOG_SECONDS` seconds (then count it for the next line)."""
        now = time.monotonic()
        if now - self._logged.get(kind, -math.inf) < LOG_SECONDS:
            self._unlogged[kind] += 1
            return
        self._logged[kind] = now
        more = self._unlogged.pop(kind, 0)
        log.warning("%s%s", text, f" (and {more} more since the last such line)"
                    if more else "")


def peer_key(address: str) -> str:
    """What the per-address cap counts ``address`` as: an IPv4 address itself, an IPv6
    address as its /64 network (``"2001:db8::/64"``), anything else as given.

    >>> peer_key("203.0.113.7"), peer_key("2001:db8::1"), peer_key("2001:db8::ffff")
    ('203.0.113.7', '2001:db8::/64', '2001:db8::/64')
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 4:
        return address
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.ip_network(f"{ip}/64", strict=False))


def network_key(address: str) -> str:
    """What the per-network cap counts ``address`` as: an IPv4 address (an IPv4-mapped
    IPv6 one too) as its /24 network, an IPv6 address as its /48 (a site's usual
    allocation), anything else as given.

    >>> network_key("203.0.113.7"), network_key("2001:db8:1:2::1"), network_key("::ffff:10.1.2.3")
    ('203.0.113.0/24', '2001:db8:1::/48', '10.1.2.0/24')
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    bits = 24 if ip.version == 4 else 48
    return str(ipaddress.ip_network(f"{ip}/{bits}", strict=False))


def _total_cap() -> int:
    """The process-wide cap: the soft open-file limit less :data:`FILE_RESERVE` (at least
    a quarter of it); 0 (none) where the limit is unknown or unlimited."""
    try:
        import resource
    except ImportError:  # (Windows)
        return 0
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return 0
    return max(soft // 4, soft - FILE_RESERVE)


@functools.lru_cache(maxsize=64)
def _networks(proxies: tuple[str, ...]) -> tuple[ipaddress.IPv4Network
                                                 | ipaddress.IPv6Network | str, ...]:
    found: list[ipaddress.IPv4Network | ipaddress.IPv6Network | str] = []
    for text in proxies:
        try:
            found.append(ipaddress.ip_network(text, strict=False))
        except ValueError:
            found.append(text)
    return tuple(found)


def _listed(address: str, proxies: tuple[str, ...]) -> bool:
    if not proxies:
        return False
    if "*" in proxies or address in proxies:
        return True
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(not isinstance(net, str) and ip.version == net.version and ip in net
               for net in _networks(proxies))


_OUTQ: int | None = None
"""Linux's ``SIOCOUTQ`` ioctl (``TIOCOUTQ``' number): bytes of a TCP socket's send queue the
peer has not acknowledged. ``None`` elsewhere (only the transport's own buffer is known)."""
if sys.platform.startswith("linux"):
    import fcntl
    import termios

    _OUTQ = termios.TIOCOUTQ


class Abortable(Protocol):
    """What :func:`reset` uses of a transport (asyncio's, uvloop's)."""

    def abort(self) -> None:
        """Close the connection at once, dropping what is buffered."""

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        """What the transport knows about the connection (``"socket"``)."""


def unsent(transport: asyncio.WriteTransport) -> int:
    """Bytes written to ``transport`` its peer has not taken: what the transport still holds
    plus, on Linux, what the kernel's send queue holds, sent or not, unacknowledged (0 for
    a transport already closed)."""
    size = transport.get_write_buffer_size()
    sock = transport.get_extra_info("socket")
    if _OUTQ is None or sock is None:
        return size
    try:
        fd = sock.fileno()
        if fd < 0:
            return size
        held: int = struct.unpack("i", fcntl.ioctl(fd, _OUTQ, b"\0\0\0\0"))[0]
    except (OSError, ValueError):
        return size
    return size + held


def reset(transport: Abortable) -> None:
    """Drop the connection of ``transport`` at once with what it and the kernel still hold:
    ``SO_LINGER`` 0 (the socket's close sends a TCP reset and frees its buffers), then
    ``abort`` (the transport's own buffer dropped; also after a ``close`` that waits for
    it). ``abort`` alone closes the socket as ``close`` does: its kernel keeps trying to
    deliver the send queue to a client that reads nothing, the socket in FIN-WAIT-1 for a
    minute or more. Never raises (a connection already gone is left alone)."""
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError, ValueError):
            if sock.fileno() >= 0:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()


class GuardedWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (websockets' sans-I/O one, what its ``ws="auto"``
    chooses) whose server-side closes reset a client that has not taken what was sent to
    it (:func:`unsent`, counted before the close frame is written; :func:`reset`):

    * the keepalive ping unanswered (``ws_ping_timeout`` after it was sent): reset where
      uvicorn would write a close frame (1011) and close;
    * the server's close frame (the application's ``websocket.close``) not answered within
      ``close_timeout`` (10 s): reset where uvicorn would close.

    * the server stopping (uvicorn's shutdown writes a close frame, 1012, and closes)
      while the transport's own buffer holds bytes the client has not read: that close
      waits for them, and uvicorn for it, so one client that reads nothing kept ``guts
      serve`` from stopping; it is reset ``close_timeout`` later if it has not ended.

    A client that has read everything gets the close frames as before. Chosen by
    :data:`gutskit.server.app.UVICORN_OPTIONS` (``ws``)."""

    def keepalive_timeout(self) -> None:
        held = 0 if self.close_sent or self.transport.is_closing() else unsent(self.transport)
        super().keepalive_timeout()
        if held:
            reset(self.transport)

    @property
    def close_timer(self) -> asyncio.TimerHandle | None:
        """The close timeout armed by the application's ``websocket.close``
        (:meth:`_close_timed_out`: uvicorn's own would only close)."""
        return self._close_timer

    @close_timer.setter
    def close_timer(self, timer: asyncio.TimerHandle | None) -> None:
        if timer is not None:  # uvicorn's send of a close: call_later(timeout, close)
            timer.cancel()
            timer = self.loop.call_later(self.close_timeout, self._close_timed_out)
        self._close_timer = timer

    def shutdown(self) -> None:
        super().shutdown()
        if not self.disconnected and self.transport.get_write_buffer_size():
            self._close_timer = self.loop.call_later(self.close_timeout, self._close_timed_out)

    def _close_timed_out(self) -> None:
        held = unsent(self.transport)
        self.transport.close()
        if held:
            reset(self.transport)


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the deadlines and the caps of ``guard`` (module
    docstring). Made by uvicorn as its ``http`` class (:func:`protocol_for`)."""

    def __init__(self, *args: Any, guard: SocketGuard, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.guard = guard
        self.counted: str | None = None
        self.deadline: asyncio.TimerHandle | None = None
        self.awaiting = ""  # "headers" or "body": what the deadline waits for
        self.unread: asyncio.TimerHandle | None = None
        """The write deadline, armed while the transport's write buffer is full."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        address = self.client[0] if self.client else ""
        if not self.guard.admit(address):
            transport.write(self.guard.refusal(address))
            transport.close()
            return
        self.counted = address
        self._arm("headers", self.guard.header_seconds)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._drained()
        self._release()
        super().connection_lost(exc)

    def pause_writing(self) -> None:
        super().pause_writing()
        if (self.unread is None and self.guard.write_seconds > 0
                and self.transport.get_protocol() is self):
            self.unread = self.loop.call_later(self.guard.write_seconds, self._unread)

    def resume_writing(self) -> None:
        super().resume_writing()
        self._drained()

    def _drained(self) -> None:
        if self.unread is not None:
            self.unread.cancel()
            self.unread = None

    def _unread(self) -> None:
        """The write deadline has passed: abort the connection (its unread bytes are
        dropped; ``close`` would wait for them)."""
        self.unread = None
        if self.transport.get_protocol() is not self or not self.transport.get_write_buffer_size():
            return
        who = self.client[0] if self.client else "a client"
        self.guard.warn("unread", f"closed a connection from {who}: it did not read its "
                        f"answer within {self.guard.write_seconds:g} s "
                        f"({self.transport.get_write_buffer_size()} bytes unread)")
        reset(self.transport)

    def data_received(self, data: bytes) -> None:
        if self.deadline is None and self.conn.their_state is h11.IDLE:
            self._arm("headers", self.guard.header_seconds)  # the next request begins
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._closed_unread()
        self._follow()  # a pipelined request may have begun

    def timeout_keep_alive_handler(self) -> None:
        super().timeout_keep_alive_handler()
        self._closed_unread()

    def _closed_unread(self) -> None:
        """Arm the write deadline on a transport closed with bytes the client has not
        read, too few to have paused writing: ``close`` waits for them, for ever if the
        client reads nothing (its socket and file held)."""
        transport = self.transport
        if (self.unread is None and self.guard.write_seconds > 0 and transport.is_closing()
                and transport.get_protocol() is self and transport.get_write_buffer_size()):
            self.unread = self.loop.call_later(self.guard.write_seconds, self._unread)

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._disarm()
        self._drained()
        super().handle_websocket_upgrade(event)
        address, self.counted = self.counted, None
        if address is None:
            return
        upgraded = self.transport.get_protocol()
        lost = upgraded.connection_lost
        guard = self.guard

        def connection_lost(exc: Exception | None) -> None:
            guard.release(address)
            lost(exc)

        setattr(upgraded, "connection_lost", connection_lost)  # noqa: B010

    def _follow(self) -> None:
        """Arm or drop the deadline after the request's state moved."""
        if self.transport.is_closing() or self.transport.get_protocol() is not self:
            self._disarm()
            return
        state = self.conn.their_state
        if state is h11.SEND_BODY:
            if self.awaiting != "body":
                self._arm("body", self.guard.body_seconds)
        elif state is not h11.IDLE:
            self._disarm()  # complete (or done with): answered, not awaited

    def _arm(self, awaiting: str, seconds: float) -> None:
        self._disarm()
        self.awaiting = awaiting
        self.deadline = self.loop.call_later(seconds, self._expired)

    def _disarm(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None
        self.awaiting = ""

    def _release(self) -> None:
        if self.counted is not None:
            self.guard.release(self.counted)
            self.counted = None

    def _expired(self) -> None:
        self.deadline = None
        if self.transport.is_closing():
            return
        seconds = (self.guard.body_seconds if self.awaiting == "body"
                   else self.guard.header_seconds)
        who = self.client[0] if self.client else "a client"
        self.guard.warn(self.awaiting, f"closed a connection from {who}: its request "
                        f"{self.awaiting} did not arrive within {seconds:g} s")
        self.awaiting = ""
        self.transport.close()


def protocol_for(config: ServerConfig) -> functools.partial[GuardedH11Protocol]:
    """uvicorn's ``http`` protocol factory for a server run with ``config``: a fresh
    :class:`SocketGuard` (its counts) per call. Picklable (``--workers``: each worker
    process unpickles its own)."""
    return functools.partial(GuardedH11Protocol, guard=SocketGuard.of(config))
