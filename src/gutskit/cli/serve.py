"""The ``guts serve`` and ``guts verify`` commands (registered in :mod:`gutskit.cli.app`).

The server (FastAPI, uvicorn, SQLAlchemy) is imported only when ``guts serve`` runs."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import importlib.util
import ipaddress
import json
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

import typer

from gutskit.cli.errors import (
    UsageProblem,
    finite,
    given,
    note_db_source,
    refuse_empty_environment,
)
from gutskit.cli.words import count

__all__ = ["allowed_hosts", "register", "serve", "served_at", "verify"]


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on (0.0.0.0 for your LAN).")]
    = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="TCP port.")] = 8000,
    db: Annotated[str | None, typer.Option(
        "--db", metavar="PATH|URL", envvar="GUTSKIT_DB", show_envvar=True,
        callback=note_db_source,  # a message about GUTSKIT_DB's value names the variable
        help="SQLite file or SQLAlchemy URL, e.g. postgresql+psycopg://user:pw@host/db "
             "[default: gutskit.db in your data folder; GUTSKIT_DB set but empty is "
             "refused].")] = None,
    public_url: Annotated[str | None, typer.Option(
        "--public-url", metavar="URL",
        help="The address players use, e.g. https://guts.example.org behind a reverse "
        "proxy: invite links and QR codes are built on it and its host name is "
        "allowed.")] = None,
    allowed_host: Annotated[list[str] | None, typer.Option(
        "--allowed-host", metavar="NAME",
        help="Another Host name the server answers (repeatable; '*.example.org' for its "
        "subdomains). By default: localhost, 127.0.0.1, ::1, the --host address (with "
        "0.0.0.0 or ::, this machine's name and addresses) and the --public-url's "
        "host.")] = None,
    allow_origin: Annotated[list[str] | None, typer.Option(
        "--allow-origin", metavar="URL",
        help="Another browser origin allowed to open the WebSocket (repeatable).")] = None,
    bot_delay: Annotated[float, typer.Option(
        callback=finite,
        min=0.0, help="Bots think for up to this many seconds.")] = 1.8,
    room_limit: Annotated[str, typer.Option(
        metavar="RATES", help="Rooms one client address may create, e.g. "
        "'5/minute;30/hour' (every window applies).")] = "5/minute;30/hour",
    chat_limit: Annotated[str, typer.Option(
        metavar="RATES", help="Chat lines and reactions one seat may send, e.g. "
        "'5/10 seconds;30/minute' (every window applies).")] = "5/10 seconds;30/minute",
    max_connections_per_room: Annotated[int, typer.Option(
        min=1, help="WebSocket connections one room holds at once.")] = 40,
    max_connections_per_address: Annotated[int, typer.Option(
        min=1, help="WebSocket connections one client address holds at once; with "
        "--workers N or --redis URL the count covers every worker (every machine on that "
        "Redis).")] = 20,
    max_sockets_per_address: Annotated[int, typer.Option(
        min=0, help="TCP connections (HTTP and WebSocket) one peer address holds at once; "
        "0: no cap. The proxies of --forwarded-allow-ips are not capped "
        "(docs/deploy.md).")] = 64,
    max_sockets_per_network: Annotated[int, typer.Option(
        min=0, help="TCP connections one network (an IPv4 /24, an IPv6 /48) holds at "
        "once; 0: no cap. The proxies of --forwarded-allow-ips are not capped "
        "(docs/deploy.md).")] = 256,
    hello_timeout: Annotated[float, typer.Option(
        callback=finite,
        min=0.1, help="Seconds a new connection has to say hello.")] = 10.0,
    idle_minutes: Annotated[float, typer.Option(
        callback=finite,
        min=0.01, help="Close and archive a room with no connection and no action for "
        "this long.")] = 60.0,
    min_decision_seconds: Annotated[float, typer.Option(
        callback=finite,
        min=0.01, help="Smallest declaration timer a room may have.")] = 1.0,
    min_reveal_seconds: Annotated[float, typer.Option(
        callback=finite,
        min=0.0, help="Smallest pause between rounds a room may have.")] = 0.5,
    max_body_bytes: Annotated[int, typer.Option(
        min=1024, help="Largest HTTP request body.")] = 16_384,
    max_rooms: Annotated[int, typer.Option(
        min=1, help="Rooms open at once (not yet closed as idle), whoever made them.")]
    = 1000,
    forwarded_allow_ips: Annotated[str, typer.Option(
        metavar="IPS", help="Reverse proxies trusted to name the client (X-Forwarded-For, "
        "X-Forwarded-Proto): comma-separated addresses or networks, '*' for any. By "
        "default none: the client is the TCP peer (docs/deploy.md).")] = "",
    workers: Annotated[int, typer.Option(
        min=1, max=64, help="Worker processes sharing the port; each room is run by one "
        "of them at a time (docs/deploy.md). More than 1 needs Redis: --redis, or a "
        "local redis-server started for the purpose.")] = 1,
    loop: Annotated[str, typer.Option(
        "--loop", metavar="auto|uvloop|asyncio", envvar="GUTSKIT_LOOP", show_envvar=True,
        callback=refuse_empty_environment,
        help="Event loop: uvloop's when installed (auto), or Python's own (asyncio); "
             "GUTSKIT_LOOP set but empty is refused.")]
    = "auto",
    redis: Annotated[str | None, typer.Option(
        "--redis", metavar="URL", envvar="GUTSKIT_REDIS", show_envvar=True,
        callback=refuse_empty_environment,
        help="Join a cluster through this Redis (room leases, messages between workers), "
        "e.g. redis://10.0.0.5:6379/0; every machine must use the same --db (PostgreSQL "
        "across machines). GUTSKIT_REDIS set but empty is refused.")] = None,
) -> None:
    """Run the server: rooms by link, the browser table, WebSocket play.

    The database is migrated to the newest schema at start and every room in it is
    rebuilt from its events (a restart loses nothing). The limits are described in
    docs/protocol.md ("Limits"). With --workers N or --redis URL the rooms are shared
    among processes and machines (docs/deploy.md).
    """
    import limits
    import uvicorn

    for option, rates in (("--room-limit", room_limit), ("--chat-limit", chat_limit)):
        try:
            limits.parse_many(rates)
        except ValueError:
            sys.stderr.write(f"error: {option} {rates!r} is not a rate such as "
                             "'5/minute;30/hour'\n")
            raise SystemExit(2) from None
    from gutskit.server.app import LOOPS

    if loop not in LOOPS:
        sys.stderr.write(f"error: {given('--loop', loop)} is not one of "
                         f"{', '.join(LOOPS)}\n")
        raise SystemExit(2)
    if loop == "uvloop" and importlib.util.find_spec("uvloop") is None:
        sys.stderr.write(f"error: {given('--loop', loop)}: the uvloop package is not "
                         "installed (pip install uvloop, or --loop asyncio)\n")
        raise SystemExit(2)
    proxies = _proxies(forwarded_allow_ips)
    base_url = _public_url(public_url) if public_url is not None else ""
    origins = tuple(_origin(text) for text in allow_origin or ())
    for name in allowed_host or ():
        if not name.strip():
            raise UsageProblem(f"--allowed-host {name!r}: the host name is empty (e.g. "
                               "guts.example.org)")
    hosts = allowed_hosts(host, base_url, allowed_host or ())
    listener = _listen(host, port)  # a busy port is one error line, before anything else
    try:
        if redis is not None:  # before the database is opened (and created): nothing done
            from gutskit.cli.workers import redis_problem

            problem = redis_problem(redis)
            if problem is not None:
                raise UsageProblem(f"{given('--redis', redis)}: {problem}")
        from gutskit.io.location import check_location
        from gutskit.server.app import create_app, uvicorn_options
        from gutskit.server.rooms import ServerConfig
        from gutskit.server.serving import hold_database, raise_open_files, redis_identity
        from gutskit.server.store import open_room_store

        check_location(db)  # a folder, a missing folder, a file that is not a database
        store = open_room_store(db)  # fail early (exit 2) on a bad database
        clustered = workers > 1 or redis is not None
        # one server without a shared Redis per database (it runs every room it has: in
        # its memory, or its workers' through a private redis-server)
        served_by: str | None = None
        mark: str | None = None
        made = False
        if redis is not None:  # the Redis as named, and the cluster's mark held in it
            from gutskit.server.cluster import cluster_mark, forget_mark
            try:
                mark, made = cluster_mark(redis)
            except ValueError as error:
                store.close()
                raise UsageProblem(f"{given('--redis', redis)}: {error}") from None
            served_by = f"{redis_identity(redis)} cluster {mark}"
        try:
            hold = hold_database(store.engine, store.location, alone=redis is None,
                                 redis=served_by)
        except Exception:
            if made and redis is not None and mark is not None:  # refused: its mark taken
                forget_mark(redis, mark)  # back, the running cluster's put back (renewal)
            raise
        open_files = raise_open_files()
        config = ServerConfig(
            bot_delay=(min(0.6, bot_delay), bot_delay), room_limit=room_limit,
            chat_limit=chat_limit,
            max_connections_per_room=max_connections_per_room,
            max_connections_per_address=max_connections_per_address,
            max_sockets_per_address=max_sockets_per_address,
            max_sockets_per_network=max_sockets_per_network,
            hello_timeout=hello_timeout, idle_minutes=idle_minutes,
            min_decision_seconds=min_decision_seconds, min_reveal_seconds=min_reveal_seconds,
            max_body_bytes=max_body_bytes, max_rooms=max_rooms,
            forwarded_allow_ips=proxies, base_url=base_url, allowed_hosts=hosts,
            tune_gc=True)
        if host in WILDCARDS and not base_url:
            typer.echo(f"answering the host names {', '.join(hosts)} (others: "
                       "--allowed-host NAME or --public-url URL)", err=True)
        if clustered:
            store.close()  # each worker opens its own
            from gutskit.cli.workers import run_cluster

            try:
                run_cluster(listener, host=host, port=port, db=db, redis_url=redis,
                            workers=workers, config=config,
                            allowed_origins=origins, loop=loop, open_files=open_files,
                            url=served_at(host, port), mark=mark)
            finally:
                hold.release()
            return
        app = create_app(store=store, config=config, allowed_origins=origins)
    except BaseException:
        listener.close()
        raise
    files = f"; {open_files} open files at most" if open_files is not None else ""
    typer.echo(f"gutskit server on {served_at(host, port)} (database: {store.location}"
               f"{files})", err=True)
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning",
                                           **uvicorn_options(config, loop)))
    try:
        server.run(sockets=[listener])
    finally:
        hold.release()


WILDCARDS = ("0.0.0.0", "::", "")
"""``--host`` values that listen on every address of the machine."""


def served_at(host: str, port: int) -> str:
    """The address ``guts serve`` says it answers at: a URL a browser on this machine opens
    (``0.0.0.0`` and ``::`` are not addresses to open: for them, the loopback address, with
    a word that every interface listens and this machine's name for the others).

    >>> served_at("127.0.0.1", 8000), served_at("::1", 8080)
    ('http://127.0.0.1:8000/', 'http://[::1]:8080/')
    >>> served_at("0.0.0.0", 8000).startswith("http://127.0.0.1:8000/, listening on all "
    ...                                       "interfaces")
    True
    """
    if host in WILDCARDS:
        loopback = "[::1]" if host == "::" else "127.0.0.1"
        name = socket.gethostname()
        others = (f": other machines open http://{name}:{port}/"
                  if name and name != "localhost" else "")
        return f"http://{loopback}:{port}/, listening on all interfaces{others}"
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def allowed_hosts(host: str, public_url: str, extra: Sequence[str]) -> tuple[str, ...]:
    """The ``Host`` names ``guts serve`` answers (:attr:`ServerConfig.allowed_hosts`):
    ``localhost``, ``127.0.0.1``, ``::1``; the listening address ``host``, or, listening on
    every address (``0.0.0.0``, ``::``), this machine's name and addresses (how players
    on the LAN reach it); the host of ``public_url``; ``extra`` (``--allowed-host``).

    >>> allowed_hosts("127.0.0.1", "https://guts.example.org", ["*.example.net"])
    ('localhost', '127.0.0.1', '::1', 'guts.example.org', '*.example.net')
    """
    names = ["localhost", "127.0.0.1", "::1"]
    names += _own_names() if host in WILDCARDS else [host]
    if public_url:
        names.append(urlsplit(public_url).hostname or "")
    names += [name.strip().lower() for name in extra]
    return tuple(dict.fromkeys(n.lower() for n in names if n))


def _own_names() -> list[str]:
    """This machine's host name and the addresses it is reached at (its name's addresses,
    and the address of each family's default route: no packet is sent)."""
    names = [socket.gethostname(), socket.getfqdn()]
    with contextlib.suppress(OSError):
        names += [str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None)]
    for family, probe in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
        with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as udp:
            udp.connect((probe, 9))
            names.append(str(udp.getsockname()[0]))
    return [name.split("%")[0] for name in names]


def _public_url(text: str) -> str:
    """``--public-url``: an ``http`` or ``https`` URL with a host, without its final
    ``/``.

    Raises:
        UsageProblem: anything else (named).
    """
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query \
            or parts.fragment:
        raise UsageProblem(f"--public-url: {text!r} is not an http:// or https:// URL such "
                           "as https://guts.example.org")
    return text.strip().rstrip("/")


def _origin(text: str) -> str:
    """``--allow-origin``: a browser origin, ``http(s)://host[:port]`` (as a browser sends
    it in ``Origin``: no path, query or fragment).

    Raises:
        UsageProblem: anything else (named; fresh7: ``--allow-origin notaurl`` was taken
            silently and matched no browser).
    """
    parts = urlsplit(text.strip())
    try:
        parts.port  # noqa: B018 (a bad port raises)
    except ValueError:
        parts = urlsplit("")
    if parts.scheme not in ("http", "https") or not parts.hostname \
            or parts.path not in ("", "/") or parts.query or parts.fragment:
        raise UsageProblem(f"--allow-origin: {text!r} is not a browser origin such as "
                           "https://guts.example.org or http://localhost:3000")
    return f"{parts.scheme}://{parts.netloc}"


def _proxies(text: str) -> tuple[str, ...]:
    """``--forwarded-allow-ips``: the addresses and networks, each checked.

    Raises:
        UsageProblem: one is not an address, a network or ``*`` (named).
    """
    items = tuple(item.strip() for item in text.split(",") if item.strip())
    for item in items:
        if item == "*":
            continue
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise UsageProblem(f"--forwarded-allow-ips: {item!r} is not an IP address, a "
                               "network such as 10.0.0.0/8, or '*'") from None
    return items


BACKLOG = 2048
"""Connections the listening socket queues before the server accepts them (uvicorn's
default backlog)."""


def _listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` and listening, for the server (uvicorn, or every
    worker of ``--workers N``, accepts on it): a client that connects while the server
    still starts waits in the backlog (:data:`BACKLOG`), it is not refused.

    Raises:
        UsageProblem: the address cannot be used (the port is busy, the host unknown); the
            message names ``host:port``.
    """
    where = f"{host}:{port}"
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except (socket.gaierror, UnicodeError) as error:
        reason = getattr(error, "strerror", None) or "not a host name"
        raise UsageProblem(f"cannot listen on {where}: --host {host!r} is unknown "
                           f"({reason})") from None
    listener = socket.socket(family, kind, proto)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
        # Listening at once: a client connecting before the server (or a worker of
        # --workers N) is ready waits in the backlog instead of being refused, so a worker
        # is never announced in Redis before the port answers (session 7's final CI:
        # "connection refused" right after both workers' keys appeared).
        listener.listen(BACKLOG)
    except OSError as error:
        listener.close()
        reason = ("the port is already in use" if error.errno == errno.EADDRINUSE
                  else error.strerror or str(error))
        raise UsageProblem(f"cannot listen on {where}: {reason}") from None
    listener.set_inheritable(True)
    return listener


def verify(
    file: Annotated[Path | None, typer.Argument(
        metavar="FILE",
        help="A room's /api/rooms/ROOM_ID/fairness.json, or any hand history gutskit "
             "writes.")] = None,
    history: Annotated[Path | None, typer.Option(
        "--history", metavar="FILE",
        help="Your hand history (history.jsonl): replay it and check every card you "
             "saw.")] = None,
    commitment: Annotated[str | None, typer.Option(
        help="Check one version-1 round: the published commitment (with --seed).")] = None,
    seed: Annotated[str | None, typer.Option(
        help="Check one version-1 round: the revealed seed (hex, with --commitment).")]
    = None,
) -> None:
    """Verify a session: replay the hand history through the engine (antes, declarations,
    winners, every payment, the pot) and check the deal against the commitments published
    before it (docs/fairness.md; download fairness.json?token=YOUR_TOKEN to check your own
    cards too). A history without commitments is only checked for
    consistency: its fairness is not provable. Exit status 1 when a check fails
    (FAILED: ...), 2 for unreadable input (error: ...).
    """
    from gutskit.cli.console import game_console
    from gutskit.core.errors import quoted
    from gutskit.io.files import read_text
    from gutskit.server.fairness import (
        FairnessError,
        deck_names,
        parse_seed,
        verify_commitment,
    )
    from gutskit.server.verify import (
        VerifyInputError,
        parse_history,
        verify_history,
        verify_rounds,
        verify_session,
    )

    def user_error(message: str) -> SystemExit:
        sys.stderr.write(f"error: {message}\n")
        return SystemExit(2)

    try:
        if commitment is not None or seed is not None:
            if commitment is None or seed is None or file is not None or history is not None:
                raise user_error("give --commitment and --seed together, without a file "
                                 "or --history")
            # A seed or a commitment of the wrong form is bad input, not a failed check
            # ("FAILED" would say the room cheated).
            try:
                parse_seed(seed)
            except FairnessError as error:
                raise user_error(f"--seed: {error} (the room's seed: 64 hex digits, "
                                 "revealed after the round)") from None
            try:
                digest = bytes.fromhex(commitment.strip())
            except ValueError:
                digest = b""
            if len(digest) != hashlib.sha256().digest_size:
                raise user_error(f"--commitment {quoted(commitment)} is not a commitment (a "
                                 "SHA-256 digest: 64 hex digits, published before the "
                                 "round)")
            deck = verify_commitment(commitment, seed)
            typer.echo("ok: the commitment matches; deck (top first): "
                       + " ".join(deck_names(deck)))
            return
        if file is None and history is not None:
            raise user_error(f"FILE is missing: --history {str(history)!r} is checked "
                             "against a room's fairness.json (guts verify fairness.json "
                             f"--history {history}; a hand history alone: guts verify "
                             f"{history})")
        if file is None:
            raise user_error("give a fairness.json file or a hand history, or --commitment "
                             "and --seed")
        try:
            text = read_text(file)
        except OSError as error:
            raise user_error(f"cannot read {str(file)!r}: {error.strerror}") from None
        except UnicodeDecodeError:
            raise user_error(f"{file} is not UTF-8 text") from None
        if not text.strip():
            raise user_error(f"{file} is empty: give a fairness.json or a hand history "
                             "(JSON Lines)")
        data = _json_object(text)
        if data is None or "type" in data:  # a hand history (JSON Lines)
            if history is not None:
                what = ("a hand history, not a fairness.json" if _is_history(text)
                        else f"not a JSON object ({_holds(text)})")
                raise user_error(f"{str(file)!r} is {what}: with --history, FILE is "
                                 "the room's fairness.json (guts verify fairness.json "
                                 f"--history {history}; a hand history alone: guts verify "
                                 f"{file})")
            if data is None and not _is_history(text) and not text.lstrip().startswith("{"):
                raise user_error(f"{file} is not a JSON object ({_holds(text)}): give a "
                                 "fairness.json or a hand history (JSON Lines)")
            checks = verify_history(parse_history(text, str(file)))
            for check in checks:
                typer.echo(f"{check.detail}: replays through the engine")
            replay = "replays" if len(checks) == 1 else "replay"
            # Wrapped to the console's width (80 columns when piped): it is ~130 long.
            game_console().print(f"{count(len(checks), 'round')} {replay} through the "
                                 "engine; fairness is not provable for this history: it has "
                                 "no commitments (a server room's fairness.json has them)",
                                 markup=False, highlight=False)
            return
        other = _not_fairness(data)
        if other is not None:
            referee = other.startswith("a referee file")
            raise user_error(f"{str(file)!r} is {other}, not a fairness.json: guts verify "
                             "checks a room's fairness.json (GET /api/rooms/ROOM_ID/"
                             "fairness.json: \"room_id\", \"algorithm\" and \"rounds\") "
                             "or a hand history (JSON Lines)"
                             + (f"; to settle a real table's rounds: guts referee {file}"
                                if referee else ""))
        events = _history_option(history) if history is not None else None
        results = verify_rounds(data, events)
        header = verify_session(data, events)
    except VerifyInputError as error:
        raise user_error(str(error)) from None
    except FairnessError as error:
        sys.stderr.write(f"FAILED: {error}\n")
        raise SystemExit(1) from None
    ok = [c for c in results if c.status == "ok"]
    dealt = [c for c in results if c.status != "pending"]
    # Wrapped to the console's width as the summary of a history alone: it is ~120 long.
    game_console().print(header or "session header: not committed (a room not started yet, "
                         "or from an older server)", markup=False, highlight=False)
    for check in results:
        if check.status == "ok" and check.top_cards:
            extra = (f", {count(check.cards_checked, 'card')} of the history "
                     f"{'matches' if check.cards_checked == 1 else 'match'}" if history else "")
            typer.echo(f"round {check.round}: ok (deck starts {check.top_cards}{extra})")
        elif check.status == "ok":
            extra = (f", {count(check.cards_checked, 'card')} of the history "
                     f"{'matches' if check.cards_checked == 1 else 'match'}" if history else "")
            typer.echo(f"round {check.round}: ok ({check.detail}{extra})")
        elif check.status == "pending":
            typer.echo(f"round {check.round}: committed, not dealt")
        else:
            typer.echo(f"round {check.round}: not opened yet")
    if history is not None:
        typer.echo("the hand history replays through the engine")
    typer.echo(f"{len(ok)} of {count(len(dealt), 'round')} verified")


def _history_option(path: Path) -> list[Any]:
    """The records of ``--history FILE``: a hand history (JSON Lines, or a JSON array).

    Raises:
        VerifyInputError: the file cannot be read, is empty, is a fairness file, or is not a
            hand history (the line named): a user mistake (exit 2), never a failed check.
    """
    from gutskit.io.files import read_text
    from gutskit.server.verify import VerifyInputError, parse_history

    try:
        text = read_text(path)
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        raise VerifyInputError(f"cannot read hand history {str(path)!r}: {reason}") from None
    if not text.strip():
        raise VerifyInputError(f"--history {str(path)!r} is empty: give your hand history "
                               "of the room (history.jsonl, JSON Lines)")
    data = _json_object(text)
    if data is not None and "rounds" in data and "type" not in data:
        raise VerifyInputError(f"--history {str(path)!r} is a fairness file, not a hand "
                               "history: give your hand history of the room "
                               "(history.jsonl, JSON Lines)")
    records = parse_history(text, str(path))
    if not records:
        raise VerifyInputError(f"--history {str(path)!r} holds no events: give your hand "
                               "history of the room (history.jsonl, JSON Lines)")
    return records


def _not_fairness(data: dict[str, Any]) -> str | None:
    """What the JSON object ``data`` is when it is plainly not a fairness.json (which has
    ``"room_id"``, ``"algorithm"`` and ``"rounds"``), in words, or ``None`` (a fairness
    file, an empty object or one with ``"rounds"`` alone: :func:`verify_rounds` names what
    is wrong with it).

    >>> _not_fairness({"players": [], "rounds": []})
    "a referee file (the players and rounds 'guts referee' settles)"
    >>> _not_fairness({"ante": 2, "pot_cap": 50})
    "a set of house rules ('ante', 'pot_cap')"
    >>> _not_fairness({"name": "x"}), _not_fairness({"room_id": "r", "rounds": []})
    ("a JSON object with the key 'name'", None)
    """
    from gutskit.core.errors import quoted
    from gutskit.core.rules import Rules

    if not data or "room_id" in data or "algorithm" in data:
        return None
    keys = list(data)
    shown = ", ".join(quoted(str(key), 20) for key in keys[:6]) + (
        ", ..." if len(keys) > 6 else "")
    if "players" in data and "rounds" in data:
        return "a referee file (the players and rounds 'guts referee' settles)"
    if "rounds" in data:
        return None
    if set(keys) <= set(Rules.model_fields) | {"preset"}:
        return f"a set of house rules ({shown})"
    return f"a JSON object with the key{'s' if len(keys) > 1 else ''} {shown}"


def _is_history(text: str) -> bool:
    """Whether ``text`` reads as a hand history: JSON Lines whose first line is an event
    (an object with a ``"type"``), or a non-empty JSON array of events."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    try:
        value = json.loads(first)
    except (ValueError, RecursionError):
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            return False
    if isinstance(value, list):
        value = value[0] if value else None
    return isinstance(value, dict) and "type" in value


def _holds(text: str) -> str:
    """What a file that is not a JSON object holds, quoted as JSON (``it holds null``), or
    that it is not JSON."""
    from gutskit.core.history import found

    try:
        return f"it holds {found(json.loads(text))}"
    except (ValueError, RecursionError):
        return "it is not JSON"


def _json_object(text: str) -> dict[str, Any] | None:
    """``text`` as one JSON object, or ``None`` when it is not one (JSON Lines; a line too
    long to be one object is read, and named when it is bad, by the history reader)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # a JSONDecodeError, or int() of 4300+ digits
        return None
    return data if isinstance(data, dict) else None


def register(app: typer.Typer) -> None:
    """Add ``guts serve`` and ``guts verify`` to ``app``."""
    app.command(epilog="Examples:\n\n"
                "    guts serve\n\n"
                "    guts serve --host 0.0.0.0 --port 8080 "
                "--db postgresql+psycopg://u:pw@db/guts")(serve)
    app.command(epilog="Examples:\n\n"
                "    guts verify fairness.json --history history.jsonl\n\n"
                "    guts verify --commitment 1217... --seed 00ab...")(verify)
