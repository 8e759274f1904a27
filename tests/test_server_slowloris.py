"""Half-sent requests are closed, one address cannot hold every socket (attack9 M1, L3).

Real sockets against the app as ``guts serve`` runs it (:func:`server_support.running_server`
uses :func:`gutskit.server.app.uvicorn_options`). No test expects a close at a given time:
each waits for the close (or the answer) with a generous limit.
"""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from server_support import Player, Server, read_until_closed, running_server

from gutskit.server.sockets import FILE_RESERVE, FULL, REFUSAL, SocketGuard

WAIT = 60.0


def _db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'rooms.db'}"


def _connect(server: Server, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=WAIT,
                                    source_address=(source, 0))
    return sock



def _post_head(server: Server, length: int) -> bytes:
    return (f"POST /api/rooms HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
            f"Origin: {server.http}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n\r\n").encode()


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info and record.exc_info[0] is not None:
            text += f" [{record.exc_info[0].__name__}]"
        self.lines.append(f"{record.name}: {text}")


@contextmanager
def _logged() -> Iterator[_Records]:
    """What ``uvicorn.error`` and ``gutskit.server`` log meanwhile (attached after the
    server started: uvicorn's logging configuration drops the handlers it finds)."""
    records = _Records()
    loggers = [logging.getLogger(name) for name in ("uvicorn.error", "gutskit.server")]
    for logger in loggers:
        logger.addHandler(records)
    try:
        yield records
    finally:
        for logger in loggers:
            logger.removeHandler(records)


def test_half_sent_request_line_is_closed_by_the_header_deadline(tmp_path: Path) -> None:
    with running_server(_db(tmp_path), header_seconds=0.5) as server:
        sock = _connect(server)
        sock.sendall(b"GET /api/ru")  # never finished
        assert read_until_closed(sock) == b""
        sock.close()


def test_half_sent_headers_are_closed_by_the_header_deadline(tmp_path: Path) -> None:
    with running_server(_db(tmp_path), header_seconds=0.5) as server, _logged() as log:
        sock = _connect(server)
        sock.sendall(f"GET /api/rules HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                     .encode())  # the blank line that ends the headers never comes
        assert read_until_closed(sock) == b""
        sock.close()
    assert ("gutskit.server: closed a connection from 127.0.0.1: its request headers did "
            "not arrive within 0.5 s") in log.lines


def test_next_request_on_a_kept_alive_connection_has_a_header_deadline(
        tmp_path: Path) -> None:
    # (3 s: the first request, sent whole, must beat the deadline on a loaded machine)
    with running_server(_db(tmp_path), header_seconds=3.0) as server:
        sock = _connect(server)
        request = f"GET /api/rules HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n"
        sock.sendall(request.encode())
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = sock.recv(65536)
            assert chunk, f"closed before the first answer ended: {answer!r}"
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 200 OK\r\n")
        sock.sendall(request[:20].encode())  # the second request, never finished
        rest = read_until_closed(sock)
        assert b"HTTP/1.1" not in rest  # closed, never answered
        sock.close()


def test_half_sent_body_is_closed_by_the_body_deadline_without_a_traceback(
        tmp_path: Path) -> None:
    with running_server(_db(tmp_path), body_seconds=0.5) as server, _logged() as log:
        sock = _connect(server)
        sock.sendall(_post_head(server, 100) + b'{"host": "An')  # 12 bytes of 100
        assert read_until_closed(sock) == b""
        sock.close()
    # the server has stopped (its requests finished): the route that was reading the body
    # saw the client gone (Starlette's ClientDisconnect) and said nothing (attack9 L3)
    assert [line for line in log.lines if line.startswith("uvicorn.error")] == []
    assert ("gutskit.server: closed a connection from 127.0.0.1: its request body did not "
            "arrive within 0.5 s") in log.lines


def test_per_address_cap_refuses_the_next_connection_and_others_still_play(
        tmp_path: Path) -> None:
    cap = 3
    # the held connections' header deadline (2 * WAIT) outlasts the test
    with running_server(_db(tmp_path), max_sockets_per_address=cap,
                        header_seconds=2 * WAIT) as server, \
            _logged() as log:
        held = [_connect(server, "127.0.0.2") for _ in range(cap)]
        for sock in held:
            sock.sendall(b"GET /api/rules HTTP/1.1\r\n")  # headers never finished
        extra = _connect(server, "127.0.0.2")
        assert read_until_closed(extra) == REFUSAL
        extra.close()
        # another address is not affected: it creates a room and plays in it
        created = server.create_room("Ana")
        player = Player(server, created["room_id"], created["token"])
        player.send({"type": "chat", "text": "hi"})
        assert player.expect("chat")["text"] == "hi"
        player.close()
        for sock in held:
            sock.close()
    assert ("gutskit.server: refused connections from 127.0.0.2 over its 3 open "
            "connections (max_sockets_per_address)") in log.lines


def test_closed_connections_give_their_place_back(tmp_path: Path) -> None:
    """WebSockets count while open and are given back when closed: with a cap of 2, five
    players one after another (each closed before the next) all get in."""
    with running_server(_db(tmp_path), max_sockets_per_address=2) as server:
        created = server.create_room("Ana")
        for _ in range(5):
            player = _player_when_admitted(server, created["room_id"], created["token"])
            player.close()


def _player_when_admitted(server: Server, room_id: str, token: str) -> Player:
    """The server sees a closed connection's end a moment after the client: retry a
    refused connection (not every time: the place comes back) for ``WAIT`` seconds."""
    deadline = time.monotonic() + WAIT
    while True:
        try:
            return Player(server, room_id, token)
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def test_socket_guard_counts_per_address_and_spares_trusted_proxies() -> None:
    guard = SocketGuard(10.0, 30.0, 2, ("10.0.0.0/8", "192.168.1.7"))
    assert [guard.admit("203.0.113.5") for _ in range(3)] == [True, True, False]
    assert guard.held["203.0.113.5"] == 2
    guard.release("203.0.113.5")
    assert guard.admit("203.0.113.5") is True
    assert all(guard.admit("10.1.2.3") for _ in range(5))  # a proxy: never capped
    assert all(guard.admit("192.168.1.7") for _ in range(5))
    assert "10.1.2.3" not in guard.held and "192.168.1.7" not in guard.held
    assert SocketGuard(10.0, 30.0, 0).admit("203.0.113.5") is True  # 0: no cap


def test_ipv6_peers_are_capped_by_their_64_network() -> None:
    guard = SocketGuard(10.0, 30.0, 2, max_total=0)
    # one host's /64: three addresses, one count (attack10 HIGH-1 spread over addresses)
    assert [guard.admit(a) for a in ("2001:db8::1", "2001:db8::2:3", "2001:db8::ffff")] == [
        True, True, False]
    assert guard.held == {"2001:db8::/64": 2}
    assert guard.admit("2001:db8:0:1::1") is True  # another /64
    assert guard.admit("::ffff:203.0.113.9") is True  # IPv4-mapped: the IPv4 address
    assert guard.held["203.0.113.9"] == 1
    guard.release("2001:db8::2:3")
    assert guard.held["2001:db8::/64"] == 1 and guard.total == 3


def test_the_process_cap_holds_a_flood_from_many_addresses_below_the_open_files() -> None:
    guard = SocketGuard(10.0, 30.0, 64, ("10.0.0.0/8",), max_total=5)
    assert [guard.admit(f"198.51.100.{n}") for n in range(1, 5)] == [True] * 4
    assert guard.admit("10.0.0.1") is True  # a proxy's connection counts in the total
    assert (guard.total, guard.full()) == (5, True)
    assert guard.admit("203.0.113.1") is False and guard.admit("10.0.0.2") is False
    assert guard.total == 5 and "203.0.113.1" not in guard.held
    guard.release("10.0.0.1")
    assert guard.full() is False and guard.admit("203.0.113.1") is True
    assert FULL.endswith(b"\r\n\r\nthe server is full: try again in a moment\n")
    assert int(FULL.split(b"Content-Length: ")[1].split(b"\r\n")[0]) == len(
        FULL.split(b"\r\n\r\n", 1)[1])


def test_the_process_cap_is_the_open_file_limit_less_a_reserve() -> None:
    guard = SocketGuard(10.0, 30.0, 64)
    assert guard.admit("203.0.113.5") is True
    try:
        import resource
    except ImportError:  # (Windows: no such limit to read, no cap)
        assert guard.max_total == 0
        return
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    expected = 0 if soft == resource.RLIM_INFINITY else max(soft // 4, soft - FILE_RESERVE)
    assert guard.max_total == expected > 0
