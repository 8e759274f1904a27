"""Rooms: one authority per room that applies actions one at a time.

A :class:`Room` owns the room's :class:`~gutskit.core.engine.GameState` and its hand history.
Every change goes through the engine (the single source of truth) under the room's
:class:`asyncio.Lock`; the resulting events are written to the database (one transaction)
*before* any message about them is queued to a client. What a client receives is built
only by the core for its viewer (:meth:`Room.viewer`: its seat, or the spectator):
:func:`gutskit.core.views.view` and :func:`gutskit.core.views.redacted_history`.

A restarted server rebuilds every room from the database (:meth:`RoomManager.load`):
the state is :func:`gutskit.core.engine.replay` of the stored events, so no chip is lost; a
round in progress continues with the same cards, its timer restarted.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import functools
import logging
import random
import secrets
import time
import unicodedata
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import limits
import pydantic_core

from gutskit.core import engine, views
from gutskit.core import ledger as ledgers
from gutskit.core import table as driver
from gutskit.core.cards import CardError, card_name, parse_card
from gutskit.core.engine import GameState, Phase
from gutskit.core.errors import GutsError
from gutskit.core.evaluation import strength_table
from gutskit.core.events import (
    CardsDealt,
    CardsPassed,
    Declaration,
    Declared,
    Event,
    HandShown,
    RoundResolved,
    SessionEnded,
    SessionStarted,
)
from gutskit.core.history import event_to_dict
from gutskit.core.limits import MAX_NAME, name_problem
from gutskit.core.rules import Rules, RulesError, check_buy_in, rules_from_mapping
from gutskit.core.views import SPECTATOR, DeclarationSealed, SeatView, Viewer
from gutskit.io.storage import StorageError
from gutskit.server import companion, fairness, names
from gutskit.server.protocol import (
    CHAT_KEPT,
    NOTICES_HELD_FROM,
    OPENINGS_PUSHED_BELOW,
    PROTOCOL_VERSIONS,
    SEATS,
    Ack,
    AddBot,
    ApproveRebuy,
    ApproveSeat,
    Chat,
    ChatLine,
    ClientMessage,
    ClientSeed,
    Coach,
    ComeBack,
    CreateRoom,
    Declare,
    DenyRebuy,
    DenySeat,
    EndSession,
    FairnessCommitment,
    FairnessDealt,
    FairnessOpening,
    FairnessReveal,
    FairnessSession,
    Hello,
    Join,
    Kick,
    Kicked,
    Leave,
    LobbySeat,
    Mute,
    PassCard,
    Pause,
    Ping,
    Pong,
    Presence,
    ProtocolError,
    React,
    Rebuy,
    RebuyRequest,
    Rematch,
    RematchOpened,
    Resume,
    RoomInfo,
    RoomUpdate,
    Seated,
    SeatPending,
    SeatRefused,
    SeatRequest,
    ShowHand,
    SitOut,
    Start,
    TableState,
    TableView,
    TimedOut,
    Welcome,
    quoted_input,
)
from gutskit.server.store import (
    ARCHIVED,
    PENDING_FIELDS,
    SET_ASIDE,
    AskRow,
    DealRow,
    LoadedRoom,
    RoomStore,
    SeatRow,
    hash_token,
)
from gutskit.strategy import coach
from gutskit.strategy.bots import BOT_NAMES, Strategy, bot_action
from gutskit.strategy.strategies import play_table

__all__ = ["PER_VIEWER", "PRESENCE_DELAY", "Client", "Room", "RoomManager", "ServerConfig",
           "TableFacts", "encode", "private_fields", "public_fields", "table_facts",
           "table_fields", "table_view"]

log = logging.getLogger("gutskit.server")

MAX_SEATS = SEATS
PRESENCE_DELAY = 0.25
"""Seconds a room gathers connects and disconnects into one :class:`Presence` message."""


class Client(Protocol):
    """A connection as a room sees it: its seat (``None`` = spectator), its protocol
    version (set from its :class:`Hello`; it decides the framing) and a non-blocking
    :meth:`send` that queues one message."""

    seat: int | None
    protocol: int

    def send(self, message: Any) -> None:
        """Queue ``message`` (a protocol model, or one already encoded as JSON text) for
        this connection. A client may also have ``notice(text)``, for messages it need not
        send at once (:func:`_notice_of`)."""


@dataclass(frozen=True)
class ServerConfig:
    """Knobs of the server (not stored with rooms).

    Attributes:
        bot_delay: a bot declares after a uniform random delay in this range (seconds).
        base_url: the server's public URL (``guts serve --public-url``, e.g.
            ``https://guts.example.org``): invite links and their QR codes are built on
            it, and its origin may send state-changing requests and open the WebSocket.
            Empty: the address the request came to, whose ``Host`` is one of
            :attr:`allowed_hosts`.
        allowed_hosts: the ``Host`` names the server answers (Starlette's
            ``TrustedHostMiddleware``: exact names or addresses, ``"*.example.org"``,
            ``"*"`` for any); any other is refused with HTTP 400 (a WebSocket at the
            handshake), so a page on another name that resolves to this server (DNS
            rebinding) reaches nothing and no invite link names another host.

    The limits (``docs/protocol.md``, "Limits"; each has a ``guts serve`` option):

    Attributes:
        min_decision_seconds: the smallest ``decision_seconds`` a room may be created
            with (``bad_message`` below it).
        min_reveal_seconds: the smallest ``reveal_seconds`` a room may be created with.
        room_limit: rooms one client address may create, as a :mod:`limits` rate string
            (``"5/minute;30/hour"``: every window applies; ``rate_limited``, HTTP 429).
        max_connections_per_room: WebSocket connections one room holds at once
            (``too_many_connections``).
        max_connections_per_address: WebSocket connections one client address holds at
            once, over all rooms (``too_many_connections``).
        hello_timeout: seconds a new connection has to send its ``hello``
            (``hello_timeout``, then closed).
        idle_minutes: a room with no connection and no action for this long is closed
            (a session in play is ended, the ledger final) and archived: not loaded at the
            next start, its exports still served.
        max_body_bytes: the largest HTTP request body (HTTP 413 ``too_large``).
        chat_limit: chat lines and reactions one seat may send, as a :mod:`limits` rate
            string (every window applies; ``rate_limited``).
        max_rooms: rooms open at once on the server (in its database: every room not
            archived or set aside), whoever made them (HTTP 503 ``server_full`` at
            ``POST /api/rooms``; an idle room is closed after :attr:`idle_minutes`).
        forwarded_allow_ips: the reverse proxies trusted to say who the client is
            (``X-Forwarded-For``, ``X-Forwarded-Proto``): addresses or networks
            (``"10.0.0.0/8"``), ``"*"`` for any; empty (the default): none, the client's
            address is the TCP peer's and those headers are ignored.
        header_seconds: seconds a connection has to send a request's line and headers
            (a WebSocket's opening handshake too), from its first byte awaited; then
            closed (:mod:`gutskit.server.sockets`).
        body_seconds: seconds a request's body may take once its headers are in; then
            the connection is closed.
        max_sockets_per_address: TCP connections one peer address holds at once, HTTP
            and WebSocket (``503`` and closed over it; 0: no cap); the peers of
            :attr:`forwarded_allow_ips` are not capped.
        max_sockets_per_network: TCP connections one network (an IPv4 /24, an IPv6 /48)
            holds at once, HTTP and WebSocket (``503`` and closed over it; 0: no cap);
            the peers of :attr:`forwarded_allow_ips` are not capped.
        write_seconds: seconds a client has to read an HTTP answer whose unread bytes
            fill the connection's write buffer, each time they do; then the connection
            is aborted (:mod:`gutskit.server.sockets`; 0: no deadline).

    Attributes:
        tune_gc: tune this process's garbage collector once the stored rooms are loaded
            (:class:`gutskit.server.gctuning.GcTuning`; ``guts serve`` sets it; off by
            default: a test's process keeps CPython's settings).
    """

    bot_delay: tuple[float, float] = (0.6, 1.8)
    base_url: str = ""
    allowed_hosts: tuple[str, ...] = ("localhost", "127.0.0.1", "::1")
    tune_gc: bool = False
    min_decision_seconds: float = 1.0
    min_reveal_seconds: float = 0.5
    room_limit: str = "5/minute;30/hour"
    max_connections_per_room: int = 40
    max_connections_per_address: int = 20
    hello_timeout: float = 10.0
    idle_minutes: float = 60.0
    max_body_bytes: int = 16_384
    chat_limit: str = "5/10 seconds;30/minute"
    max_rooms: int = 1000
    forwarded_allow_ips: tuple[str, ...] = ()
    header_seconds: float = 10.0
    body_seconds: float = 30.0
    max_sockets_per_address: int = 64
    max_sockets_per_network: int = 256
    write_seconds: float = 30.0


@dataclass(frozen=True)
class RoomSettings:
    """A room's settings (stored as JSON)."""

    rules: Rules
    buy_in: int
    decision_seconds: float
    reveal_seconds: float
    seed_reveal: str
    companion: bool = False
    """Companion mode (:mod:`gutskit.server.companion`): a real table deals."""
    approve_seats: bool = False
    """The host approves who sits down (:attr:`CreateRoom.approve_seats`)."""
    previous_room: str | None = None
    """The room whose rematch this room is (:class:`~gutskit.server.protocol.Rematch`)."""
    next_room: str | None = None
    """The room of this room's rematch, once the host opened it."""
    carried: tuple[tuple[str, int], ...] | None = None
    """A rematch with the ledger carried: each player's net (chips) over the earlier
    sessions, by name, in the order they first sat down (``None``: the ledger starts from
    zero). The nets add up to zero."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "rules": self.rules.to_dict(), "buy_in": self.buy_in,
            "decision_seconds": self.decision_seconds,
            "reveal_seconds": self.reveal_seconds, "seed_reveal": self.seed_reveal}
        if self.companion:
            data["companion"] = True
        if self.approve_seats:
            data["approve_seats"] = True
        for key in ("previous_room", "next_room"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        if self.carried is not None:
            data["carried"] = [[name, net] for name, net in self.carried]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RoomSettings:
        carried = data.get("carried")
        return cls(rules=rules_from_mapping(data["rules"]), buy_in=int(data["buy_in"]),
                   decision_seconds=float(data["decision_seconds"]),
                   reveal_seconds=float(data["reveal_seconds"]),
                   seed_reveal=str(data["seed_reveal"]),
                   companion=bool(data.get("companion", False)),
                   approve_seats=bool(data.get("approve_seats", False)),
                   previous_room=data.get("previous_room"),
                   next_room=data.get("next_room"),
                   carried=None if carried is None
                   else tuple((str(name), int(net)) for name, net in carried))


@dataclass
class SeatAsk:
    """A request to sit down (:class:`~gutskit.server.protocol.Join`) waiting for the
    host's answer, or for the next session. Stored (:class:`~gutskit.server.store.AskRow`):
    after a restart it waits for its requester to come back with its token (``client``
    ``None`` until then); a connection that closes takes its request with it."""

    number: int
    client: Client | None
    name: str
    chair: int
    next_game: bool
    approved: bool
    token_hash: str
    """SHA-256 of the request's secret token (sent in :class:`SeatPending`; the seat's
    token once the request is granted in the lobby)."""
    token: str | None = None
    """The token itself, known while its requester is connected (never stored)."""

    def row(self) -> AskRow:
        """The request as stored."""
        return AskRow(number=self.number, name=self.name, chair=self.chair,
                      next_game=self.next_game, approved=self.approved,
                      token_hash=self.token_hash)

    def public(self) -> SeatRequest:
        """What everyone sees of it: a name and a chair."""
        return SeatRequest(request=self.number, name=self.name, chair=self.chair,
                           next_game=self.next_game, approved=self.approved)


def _fail(code: str, message: str) -> ProtocolError:
    return ProtocolError(code, message)


def clean_name(name: str) -> str:
    """A human player's name, stripped; 1 to 24 printable characters (the rule:
    :func:`gutskit.core.limits.name_problem`, as for ``guts play --name``), not reading as a
    bot's name (:func:`gutskit.server.names.bot_like`: ``"Zed (bot)"``, ``"Bot 3"``).

    Raises:
        ProtocolError: ``bad_name``.
    """
    text = name.strip()
    problem = name_problem(text)
    if problem is not None:
        raise _fail("bad_name", f"name {name[:40]!r} {problem}: a name is 1 to {MAX_NAME} "
                    "printable characters")
    if names.bot_like(text):
        raise _fail("bad_name", f"name {text!r} reads as a bot's name: only the server's "
                    "bots are called \"... (bot)\" or \"Bot N\"")
    return text


def _names(cards: Sequence[int] | None) -> list[str] | None:
    return None if cards is None else [card_name(c) for c in cards]


_RESULTS: dict[int, tuple[RoundResolved, dict[str, Any]]] = {}


def _result_dict(result: RoundResolved) -> dict[str, Any]:
    """The JSON form of a round's public result (the same for every recipient: cached by
    the result's identity, as the states of a room share it, without hashing it).
    Callers must not mutate it."""
    known = _RESULTS.get(id(result))
    if known is not None and known[0] is result:
        return known[1]
    if len(_RESULTS) >= 4096:
        _RESULTS.clear()
    data = event_to_dict(result)
    _RESULTS[id(result)] = (result, data)
    return data


@dataclass(frozen=True)
class TableFacts:
    """What a :class:`TableView` of one state shows every viewer alike: the table driver's
    public facts (:mod:`gutskit.core.table`), worked out once per change of the state
    rather than once per recipient (:func:`table_facts`)."""

    to_act: tuple[int, ...]
    turn: int | None
    next_antes: list[int] | None
    rebuys: tuple[int | None, ...]
    legal_declarations: list[str]


def table_facts(state: GameState) -> TableFacts:
    """The public facts of ``state`` that every :func:`table_fields` of it shows."""
    antes = driver.next_antes(state)
    return TableFacts(
        to_act=driver.waiting_for(state), turn=driver.turn(state),
        next_antes=None if antes is None else list(antes.amounts),
        rebuys=driver.rebuy_offers(state),
        legal_declarations=[d.value for d in engine.legal_declarations(state.rules)])


PER_VIEWER = frozenset({"seat", "hand", "declarations", "my_turn", "passed", "passed_card",
                        "received_card", "matches", "rebuy", "can_show", "companion"})
"""The :func:`table_fields` that may differ from one viewer to another of the same state
(a seat's own cards, declaration, turn, match quotes, rebuy, show button:
:func:`private_fields`); every other field is the table's public facts, the same for every
viewer (:func:`public_fields`)."""


def _my_turn(seat: int, facts: TableFacts) -> bool:
    """Whether the table waits for ``seat`` (a spectator's seat is -1: never)."""
    return seat >= 0 and seat in facts.to_act


_QUOTES: dict[tuple[int, int, int], tuple[Rules, list[dict[str, Any]]]] = {}


def _matches(state: GameState, seat: int) -> list[dict[str, Any]]:
    """The JSON form of :func:`gutskit.core.table.match_quotes` of ``seat``: a quote is
    the rules' function of the pot and the seat's stack alone, so it is worked out once
    per (rule set, pot, stack) and shared (callers must not mutate it)."""
    rules, pot, stack = state.rules, state.pot, state.stacks[seat]
    key = (id(rules), pot, stack)
    known = _QUOTES.get(key)
    if known is not None and known[0] is rules:
        return known[1]
    if len(_QUOTES) >= 4096:
        _QUOTES.clear()
    quotes = [{"declaration": q.declaration.value, "least": q.least, "most": q.most,
               "pays": q.pays, "eliminated": q.eliminated}
              for q in driver.match_quotes(state, seat)]
    _QUOTES[key] = (rules, quotes)
    return quotes


def public_fields(state: GameState, view: SeatView, time_left: float | None,
                  facts: TableFacts) -> dict[str, Any]:
    """The fields of :class:`TableView` that every viewer of ``state`` sees alike (all but
    :data:`PER_VIEWER`), from the public fields of a view of it (by the allow-list:
    :data:`gutskit.core.views.VIEW_FIELDS`, audience everyone; a server takes the
    spectator's view) and the driver's public ``facts``."""
    result = view.last_result
    # Between rounds the table shows the settled round's community card and ghost hand;
    # not after a round thrown in (a misdeal, the session ended in the middle of it), whose
    # cards stay unknown: the last result belongs to the round before.
    settled = view.phase.value in ("deal", "over") and _settled(state)
    community = getattr(result, "community", None) if settled else None
    ghost = getattr(result, "ghost", None) if settled else None
    return {
        "names": list(view.names), "stacks": list(view.stacks),
        "eliminated": list(view.eliminated), "dealer": view.dealer, "pot": view.pot,
        "reserve": view.reserve, "phase": view.phase.value, "round": view.round_number,
        "game": view.game_number, "declared": list(view.declared),
        "dealt_in": list(view.dealt_in), "owed": view.owed,
        "last_result": None if result is None else _result_dict(result),
        "time_left": time_left, "legal_declarations": facts.legal_declarations,
        "community": _names(community) or None, "ghost": _names(ghost) or None,
        "to_act": list(facts.to_act), "turn": facts.turn, "next_antes": facts.next_antes,
    }


def private_fields(state: GameState, view: SeatView, facts: TableFacts) -> dict[str, Any]:
    """The fields of :class:`TableView` of :data:`PER_VIEWER` for the viewer of ``view``
    (its seat's own cards, declarations as it may see them, turn, match quotes, rebuy,
    show button), from its own allow-listed view of ``state``."""
    seat = view.seat
    chosen = getattr(view, "passes_chosen", ())
    passed = getattr(view, "passed", None)
    received = getattr(view, "received", None)
    matches = None
    if seat >= 0 and view.phase is Phase.DECLARE and view.dealt_in[seat]:
        matches = _matches(state, seat)
    return {
        "seat": seat, "hand": _names(view.hand),
        "declarations": [None if d is None else d.value for d in view.declarations],
        "my_turn": _my_turn(seat, facts),
        "passed": list(chosen) if chosen else None,
        "passed_card": None if passed is None else card_name(passed),
        "received_card": None if received is None else card_name(received),
        "matches": matches, "rebuy": facts.rebuys[seat] if seat >= 0 else None,
        "companion": None,
        "can_show": seat >= 0 and driver.can_show_hand(state, seat) is None,
    }


def table_fields(state: GameState, view: SeatView, time_left: float | None,
                 facts: TableFacts | None = None) -> dict[str, Any]:
    """The protocol form of a :class:`~gutskit.core.views.SeatView` of ``state`` as plain
    JSON values, one key per field of :class:`TableView` (variant fields read when the view
    has them; a server encodes it without building the model: :func:`encode`): its
    :func:`public_fields` and :func:`private_fields`. Whose turn it is, the antes of the
    next deal and the smallest rebuy come from the table driver (``facts``,
    :func:`table_facts` of ``state`` when not given): public facts, the same for every
    viewer but ``matches`` and ``rebuy`` (the recipient's own)."""
    if facts is None:
        facts = table_facts(state)
    return {**public_fields(state, view, time_left, facts),
            **private_fields(state, view, facts)}


def table_view(state: GameState, view: SeatView, time_left: float | None) -> TableView:
    """:func:`table_fields` as the protocol model."""
    return TableView.model_validate(table_fields(state, view, time_left))


def encode(message: dict[str, Any]) -> str:
    """A message as JSON text (compact, UTF-8 as is), built from plain JSON values
    (pydantic's encoder: the same text as the protocol model's ``model_dump_json``)."""
    return pydantic_core.to_json(message).decode()


def _body(fields: dict[str, Any]) -> str:
    """``fields`` as the members of a JSON object, without its braces (``""``: none)."""
    return encode(fields)[1:-1]


class _Texts:
    """The table messages of one change (:meth:`Room._broadcast_state`) as JSON text, each
    distinct part encoded once: the public fields (``public``, of every viewer) and their
    change since each table held, each viewer's own fields and their change. A message is
    its parts joined (the parts' keys are disjoint: :data:`PER_VIEWER`)."""

    def __init__(self, public: dict[str, Any], time_left: float | None) -> None:
        self.public = public
        self.ticking = '"time_left":' + pydantic_core.to_json(time_left).decode()
        self._public_body: str | None = None
        self._wholes: dict[int | None, str] = {}
        self._public_changes: dict[int, tuple[dict[str, Any], str]] = {}
        """id(a public part held) -> it (kept alive: its id stays its own) and the
        members of its change."""
        self._private_changes: dict[tuple[int | None, int], tuple[dict[str, Any], str]] = {}
        """(seat, id(its own part held)) -> it and the members of its change."""

    def whole(self, seat: int | None, private: dict[str, Any]) -> str:
        """The :class:`TableState` of viewer ``seat`` whose own fields are ``private``."""
        text = self._wholes.get(seat)
        if text is None:
            if self._public_body is None:
                self._public_body = _body(self.public)
            text = self._wholes[seat] = ('{"type":"state","table":{' + self._public_body
                                         + "," + _body(private) + "}}")
        return text

    def patch(self, seat: int | None,
              held: tuple[dict[str, Any], dict[str, Any], float | None],
              private: dict[str, Any], clock: float | None) -> str | None:
        """The :class:`TablePatch` from the table ``held`` (its public part, its own part
        and the deadline its clock counts to) to the current one of viewer ``seat`` (own
        part ``private``, deadline ``clock``); ``None`` when nothing changed."""
        held_public, held_private, held_clock = held
        public = self.public
        known = self._public_changes.get(id(held_public))
        if known is None:
            change = "" if held_public is public else _body(
                {k: v for k, v in public.items() if k != "time_left" and held_public[k] != v})
            known = self._public_changes[id(held_public)] = (held_public, change)
        parts = [known[1]] if known[1] else []
        if held_private is not private:
            mine = self._private_changes.get((seat, id(held_private)))
            if mine is None:
                mine = self._private_changes[seat, id(held_private)] = (held_private, _body(
                    {k: v for k, v in private.items() if held_private[k] != v}))
            if mine[1]:
                parts.append(mine[1])
        if held_clock != clock:
            parts.append(self.ticking)
        if not parts:
            return None
        return '{"type":"patch","table":{' + ",".join(parts) + "}}"


def _record_key(record: Any) -> Any:
    """What tells a viewer's copy of an event apart (:meth:`Room._broadcast_events`): a
    redacted copy (a frozen dataclass) by its value, looked up by hash (equal copies of
    several viewers share one encoding), anything unhashable by its identity."""
    try:
        hash(record)
    except TypeError:
        return id(record)
    return record


def _notice_of(client: Client) -> Callable[[str], None]:
    """How ``client`` takes a notice, a message it need not get at once (another seat's
    sealed declaration and the table's public change with it): its ``notice`` method when
    it has one (``app.WsClient``: it may wait a moment to share a frame with later
    messages), else its :meth:`Client.send`."""
    notice: Callable[[str], None] = getattr(client, "notice", client.send)
    return notice


def _defer_of(client: Client) -> Callable[[Callable[[Any], str | None]], None] | None:
    """How ``client`` takes a table patch made only when its frame goes (protocol 5 and
    later, ``app.WsClient.defer_patch``: held notices need no patch each); ``None`` when it
    cannot (an earlier protocol, or a client without ``defer_patch``)."""
    if client.protocol < NOTICES_HELD_FROM:
        return None
    defer: Callable[[Callable[[Any], str | None]], None] | None = getattr(
        client, "defer_patch", None)
    return defer


def _ack(action_id: str) -> str:
    """The :class:`Ack` of an applied action, encoded (the model's JSON, without building
    the model: one per declaration)."""
    return encode({"type": "ack", "action_id": action_id, "duplicate": False})


def _chair(seat: SeatRow) -> int:
    """A seat's chair (0-9 clockwise; rooms stored before chairs: its seat number)."""
    return seat.seat if seat.chair is None else seat.chair


def _deciding(state: GameState) -> bool:
    """Cards are out and seats are choosing (Pass the Trash or declaring)."""
    return state.phase.value in ("pass", "declare")


def _settled(state: GameState) -> bool:
    """Whether the round last dealt (``state.round_number``) was settled (its
    :class:`RoundResolved` is ``state.last_result``): it holds dealt hands and every seat
    dealt in has its declaration. A misdeal clears the hands; a session ended in the
    middle of a round leaves declarations missing (they are made all at once when the
    round resolves)."""
    dealt = [d for h, d in zip(state.hands, state.declarations, strict=True) if h is not None]
    return state.last_result is not None and bool(dealt) and None not in dealt


def _may_act(state: GameState, seat: int) -> bool:
    """Whether the table waits for ``seat``'s card or declaration now."""
    return seat in driver.waiting_for(state)


class Room:
    """One room and its authority. Create with :meth:`RoomManager.create` or
    :meth:`RoomManager.load`; all public coroutines take the room's lock."""

    def __init__(self, manager: RoomManager, room_id: str, settings: RoomSettings,
                 seats: list[SeatRow]) -> None:
        self.manager = manager
        self.store: RoomStore = manager.store
        self.room_id = room_id
        self.settings = settings
        self.seats = seats
        self.status = "lobby"
        self.paused = False
        self.session_id: int | None = None
        self.events: list[Event] = []
        self.state: GameState | None = None
        self.deals: dict[int, DealRow] = {}
        self.client_seeds: dict[int, str] = {s.seat: s.client_seed for s in seats
                                             if s.client_seed is not None}
        """Version 2: the client seeds (seat -> hex) received for the next deal."""
        self.actions: dict[str, tuple[int, int]] = {}
        """Applied client actions: ``"seat:deal:action_id"`` -> (seat, round), where
        ``deal`` counts the deals of the session so far (:meth:`_action_key`)."""
        self.deals_dealt = 0
        """``CardsDealt`` events in :attr:`events` (undone rounds counted): the
        instance of the round being played, so an undone round dealt again under the same
        number takes the same action ids afresh."""
        self.rebuys: dict[int, tuple[int, bool]] = {
            s.seat: (s.rebuy_chips, s.rebuy_approved) for s in seats
            if s.rebuy_chips is not None}
        """Pending rebuys: seat -> (chips, approved by the host); applied between rounds."""
        self.returning: set[int] = {s.seat for s in seats if s.back_next_game}
        """Seats away whose return was asked for in the middle of a game (made when the
        next game starts: :func:`gutskit.core.table.can_come_back`)."""
        self.desk = companion.Desk()
        """Companion mode: the cards entered at the showdown so far."""
        self.count: companion.Count | None = None
        """Companion mode under 1-2-3 drop: the count the server is running."""
        self.counted = 0
        """Companion mode under 1-2-3 drop: the last round whose count opened the fists."""
        self.clients: set[Client] = set()
        self.lock = asyncio.Lock()
        self.deadline: float | None = None
        self._timer_key: tuple[int, str, int | None] | None = None
        self._timer: asyncio.Task[None] | None = None
        self._next_deal: asyncio.Task[None] | None = None
        self._bot_tasks: dict[int, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        """Every task of the room still running (:meth:`spawn`): :meth:`close` cancels
        them all, also those already past their slot above (a bot's action that took
        itself out of :attr:`_bot_tasks` and waits for its move, a timeout applying)."""
        self._closed = False
        self._bots: dict[int, Strategy] = {}
        """Each bot seat's player (made at its first decision; an exploitative bot keeps
        what it learned for the session)."""
        self._rng = random.Random()
        self.last_active = time.monotonic()
        """When a connection or an action last touched the room (monotonic seconds; the
        idle expiry, :attr:`ServerConfig.idle_minutes`)."""
        self._presence_due = False
        self._presence_sent: tuple[list[bool], int] | None = None
        self.chat: collections.deque[ChatLine] = collections.deque(maxlen=CHAT_KEPT)
        """The last chat lines (memory only: chat is not game state, :meth:`_chat`)."""
        self.chat_count = 0
        self.muted: set[int] = {s.seat for s in seats if s.muted}
        """Seats whose chat the host muted (:class:`~gutskit.server.protocol.Mute`)."""
        self._payloads: tuple[list[Event], list[dict[str, Any]]] | None = None
        """The last change's events and their JSON objects (:meth:`_payloads_of`)."""
        self._public: dict[str, Any] | None = None
        """The public table fields last sent (:func:`public_fields`), of the state
        :attr:`_tables_state` (:meth:`_broadcast_state`)."""
        self._private: dict[int | None, dict[str, Any]] = {}
        """Each viewer's own table fields last sent (:func:`private_fields`; seat,
        ``None``: the spectator), of the state :attr:`_tables_state`."""
        self._tables_state: GameState | None = None
        self._late_texts: _Texts | None = None
        """The table messages of the last change for the patches made later
        (:meth:`_held_patch`), made at the first of them."""
        self._sealed: tuple[GameState, int, list[Any]] | None = None
        """Set by :meth:`_persist_and_send` for the broadcasts when the change was one
        sealed declaration: the state before it, the declaring seat and everyone else's
        copy of the change (a ``DeclarationSealed``)."""
        self._sent: dict[Client, tuple[dict[str, Any], dict[str, Any], float | None]] = {}
        """Protocol 3: the table each connection holds, as its public and its own fields
        (and the deadline its ``time_left`` counts to), what its next :class:`TablePatch`
        is worked out from."""
        self._secrets: dict[str, tuple[fairness.DeckSecret, list[str]]] = {}
        """Worked-out secret orders and leaves by seed (:meth:`_secret`)."""
        for row in self.seats:  # rooms stored before chairs: the chair is the seat number
            if row.chair is None:
                row.chair = row.seat
        self.asks: dict[int, SeatAsk] = {}
        """Requests to sit down, by number (:meth:`_join`)."""
        self.ask_count = 0
        self._asks_stored: tuple[list[AskRow], int] = ([], 0)
        """The requests to sit down and their count as stored (:meth:`_save_pending`)."""

    # -- public facts --------------------------------------------------------------------

    def info(self) -> RoomInfo:
        """The public room description."""
        connected = self._connected()
        away = self.state.away if self.state is not None else ()
        return RoomInfo(
            room_id=self.room_id, status=self.status, paused=self.paused,  # type: ignore[arg-type]
            seats=[LobbySeat(seat=s.seat, name=s.name, bot=s.bot_style is not None,
                             bot_style=s.bot_style,
                             host=s.host, connected=connected[s.seat],
                             kicked=s.kicked,
                             away=bool(away) and s.seat < len(away) and away[s.seat],
                             back_next_game=s.seat in self.returning,
                             muted=s.seat in self.muted, chair=_chair(s))
                   for s in self.seats],
            rules=self.settings.rules.to_dict(), buy_in=self.settings.buy_in,
            decision_seconds=self.settings.decision_seconds,
            reveal_seconds=self.settings.reveal_seconds,
            seed_reveal=self.settings.seed_reveal,  # type: ignore[arg-type]
            spectators=sum(1 for c in self.clients if c.seat is None),
            rebuy_requests=[RebuyRequest(seat=seat, chips=chips, approved=approved)
                            for seat, (chips, approved) in sorted(self.rebuys.items())],
            companion=self.settings.companion,
            approve_seats=self.settings.approve_seats,
            seat_requests=[ask.public() for ask in self.asks.values()],
            previous_room=self.settings.previous_room,
            next_room=self.settings.next_room,
            ledger_carried=self.settings.carried is not None,
        )

    def viewer(self, seat: int | None) -> Viewer:
        """The viewer a connection or a download is: its seat at the table, else (no
        token, a kicked or unknown seat) the spectator."""
        if seat is None or self.state is None or not 0 <= seat < self.state.n_seats:
            return SPECTATOR
        return views.seat_viewer(seat)  # the seat's shared instance: no tuple built

    def view_of(self, seat: int | None) -> TableView | None:
        """The table as ``seat`` (``None`` = spectator) may see it; ``None`` in the lobby."""
        if self.state is None:
            return None
        shown = table_view(self.state, views.view(self.state, self.viewer(seat)),
                           self._time_left())
        if not self.settings.companion:
            return shown
        return shown.model_copy(update={"companion": companion.view(self, self.state, seat)})

    def _welcome_table(self, client: Client) -> TableView | None:
        """The table of ``client``'s :class:`Welcome` (its viewer's, :meth:`view_of`);
        under protocol 3 remembered as the view the connection holds."""
        self._sent.pop(client, None)
        state = self.state
        if state is None or self.settings.companion or client.protocol < 3:
            return self.view_of(client.seat)
        facts = table_facts(state)
        time_left = self._time_left()
        viewer = self.viewer(client.seat)
        public, private = self._public, self._private.get(viewer.seat)
        if public is None or self._tables_state is not state:
            public = public_fields(state, views.view(state, SPECTATOR), time_left, facts)
            private = None
        if private is None:
            private = private_fields(state, views.view(state, viewer), facts)
        self._sent[client] = (public, private, self._clock())
        return TableView.model_validate({**public, "time_left": time_left, **private})

    def visible(self, events: Sequence[Event], seat: int | None) -> list[dict[str, Any]]:
        """``events`` (the last ones of the session) as ``seat`` may see them (JSON
        objects, one per event)."""
        return [event_to_dict(e) for e in self._visible_records(events, seat)]

    def _visible_records(self, events: Sequence[Event], seat: int | None) -> list[Any]:
        """``events`` (the last ones of the session) as ``seat`` may see them
        (:func:`gutskit.core.views.redacted_history`; an event everyone may read in full
        is the event itself)."""
        if not self.events:
            return []
        first = len(self.events) - len(events)
        # the round's deal goes first when the cards are exchanged: who passes to whom (Pass
        # the Trash) follows from it (looked for from the end: the history is long)
        dealt = None
        if any(isinstance(e, CardsPassed) for e in events):
            dealt = next((self.events[i] for i in range(first - 1, -1, -1)
                          if isinstance(self.events[i], CardsDealt)), None)
        context: list[Event] = [] if dealt is None else [dealt]
        shown = views.redacted_history([*context, *events], self.viewer(seat),
                                       rules=self.settings.rules)
        return shown[len(context):]

    def history_for(self, seat: int | None) -> list[dict[str, Any]]:
        """The whole hand history as ``seat`` may see it."""
        return [event_to_dict(e)
                for e in views.redacted_history(self.events, self.viewer(seat))]

    def seat_of_token(self, token: str) -> SeatRow | None:
        """The (not kicked) seat whose token is ``token``: the one it may play."""
        seat = self.record_seat_of_token(token)
        return None if seat is None or seat.kicked else seat

    def record_seat_of_token(self, token: str) -> SeatRow | None:
        """The seat whose token is ``token``, also one that left or was kicked during the
        session: its token no longer plays (:meth:`seat_of_token`) but still downloads
        that seat's own records (history, fairness file: the seat's allow-list view)."""
        digest = hash_token(token)
        for seat in self.seats:
            if seat.token_hash is not None and secrets.compare_digest(seat.token_hash, digest):
                return seat
        return None

    def _ask_of_token(self, token: str) -> SeatAsk | None:
        """The request to sit down whose token is ``token`` and whose requester is not
        connected (a restart cut it off), else ``None``."""
        digest = hash_token(token)
        return next((ask for ask in self.asks.values() if ask.client is None
                     and secrets.compare_digest(ask.token_hash, digest)), None)

    def _time_left(self) -> float | None:
        if self.deadline is None or self.paused:
            return None
        return max(0.0, round(self.deadline - time.monotonic(), 3))

    # -- connections ----------------------------------------------------------------------

    async def attach(self, client: Client, hello: Hello) -> None:
        """Take the connection in (as its token's seat, or as a spectator) and send it a
        :class:`Welcome`.

        Raises:
            ProtocolError: ``unsupported_version`` or ``bad_token``; nothing changes.
        """
        if hello.protocol not in PROTOCOL_VERSIONS:
            versions = " and ".join(str(v) for v in PROTOCOL_VERSIONS)
            raise _fail("unsupported_version", f"protocol {hello.protocol} is not supported; "
                        f"this server speaks {versions}")
        async with self.lock:
            seat: SeatRow | None = None
            ask: SeatAsk | None = None
            if hello.token is not None:
                seat = self.seat_of_token(hello.token)
                ask = None if seat is not None else self._ask_of_token(hello.token)
                if seat is None and ask is None:
                    raise _fail("bad_token", "this seat token is not valid in this room")
            client.seat = None if seat is None else seat.seat
            client.protocol = hello.protocol
            self.clients.add(client)
            self.last_active = time.monotonic()
            client.send(Welcome(protocol=client.protocol, seat=client.seat,
                                host=seat is not None and seat.host, room=self.info(),
                                table=self._welcome_table(client), chat=list(self.chat)))
            session = self._session_commitment()
            if session is not None:
                client.send(session)
            for deal in self.deals.values():
                for message in self._fairness_messages(deal):
                    if (client.protocol < OPENINGS_PUSHED_BELOW
                            or not isinstance(message, FairnessOpening)):
                        client.send(message)
            if ask is not None:  # its requester is back (after a restart): it waits on
                ask.client, ask.token = client, hello.token
                client.send(SeatPending(request=ask.number, chair=ask.chair,
                                        next_game=ask.next_game, token=ask.token))
            self._presence_changed()
            self._resume_play()  # a table that waited for somebody to connect

    async def detach(self, client: Client, restarting: bool = False) -> None:
        """Forget a closed connection. Its seat request, if any, goes with it, unless the
        server closed it because it is shutting down (``restarting``): then the request
        waits for its requester to come back with its token (:meth:`attach`)."""
        async with self.lock:
            if client in self.clients:
                self.clients.discard(client)
                self._sent.pop(client, None)
                self.last_active = time.monotonic()
                self._presence_changed()
                mine = [ask for ask in self.asks.values() if ask.client is client]
                gone = [] if restarting else [ask.number for ask in mine]
                for ask in mine:
                    ask.client = None
                for number in gone:  # a request lives with its connection
                    del self.asks[number]
                if gone:
                    try:
                        await self._save_pending()
                    except StorageError as error:  # stored, it waits for its token
                        log.error("room %s: a dropped seat request could not be stored: "
                                  "%s", self.room_id, error)
                    self._broadcast_room()

    def _connected(self) -> list[bool]:
        """Per seat: a connection holds it (a bot is always there)."""
        held = {c.seat for c in self.clients if c.seat is not None}
        return [s.seat in held or s.bot_style is not None for s in self.seats]

    def _presence_changed(self) -> None:
        """A connection came or went: the others hear who is connected in one small
        :class:`Presence` message, at most one per room every :data:`PRESENCE_DELAY`
        seconds (the newcomer has its :class:`Welcome`). So a connect costs the same
        however many are connected, and a flood of connections costs each connection one
        message per period, not one per connect."""
        if self._presence_due:
            return
        self._presence_due = True
        asyncio.get_running_loop().call_later(PRESENCE_DELAY, self._send_presence)

    def _send_presence(self) -> None:
        self._presence_due = False
        now = (self._connected(), sum(1 for c in self.clients if c.seat is None))
        if now == self._presence_sent:
            return
        self._presence_sent = now
        self._send_all(Presence(connected=now[0], spectators=now[1]))

    async def handle(self, client: Client, message: ClientMessage) -> None:
        """Apply one client message (after :meth:`attach`).

        Raises:
            ProtocolError: the message is refused; nothing changed.
        """
        if isinstance(message, Ping):
            client.send(Pong())
            return
        if isinstance(message, Hello):
            raise _fail("bad_message", "hello was already received on this connection")
        if isinstance(message, Chat | React):
            self._chat(client, message)  # not game state: no lock, no engine, no store
            return
        self.last_active = time.monotonic()
        async with self.lock:
            try:
                await self._dispatch(client, message)
                await self._save_pending()
            except engine.IllegalActionError as error:
                # The checks before each engine call should refuse first; if the engine
                # still refuses, the client hears why (its connection stays open).
                raise _fail("illegal_action", str(error)) from None
            except StorageError as error:
                self._pending_from_rows()  # what is stored is what is pending
                raise _fail("server_error", f"the action could not be stored, nothing "
                            f"changed: {error}") from None

    async def _dispatch(self, client: Client, message: ClientMessage) -> None:
        if isinstance(message, Declare):
            await self._declare(client, message)
        elif isinstance(message, PassCard):
            await self._pass_card(client, message)
        elif isinstance(message, Join):
            await self._join(client, message)
        elif isinstance(message, Leave):
            await self._leave(client)
        elif isinstance(message, ClientSeed):
            self._client_seed(client, message)
        elif isinstance(message, Rebuy):
            self._rebuy(client, message)
        elif isinstance(message, SitOut | ComeBack):
            await self._away(client, isinstance(message, SitOut))
        elif isinstance(message, companion.MESSAGES):
            await companion.handle(self, client, message)
        elif isinstance(message, ShowHand):
            await self._show_hand(client)
        else:
            await self._host_command(client, message)

    # -- pending requests (kept over a restart) --------------------------------------------

    def _stamped(self, row: SeatRow) -> SeatRow:
        """``row`` with what its seat has pending now (a copy)."""
        back, muted, chips, approved, seed = self._pending_of(row.seat)
        return dataclasses.replace(row, back_next_game=back, muted=muted, rebuy_chips=chips,
                                   rebuy_approved=approved, client_seed=seed)

    def _pending_of(self, seat: int) -> tuple[bool, bool, int | None, bool, str | None]:
        """What ``seat`` has pending now, in the order of :meth:`SeatRow.pending`."""
        rebuy = self.rebuys.get(seat)
        return (seat in self.returning, seat in self.muted,
                None if rebuy is None else rebuy[0], rebuy is not None and rebuy[1],
                self.client_seeds.get(seat))

    def _pending_changes(self) -> list[SeatRow]:
        """The seats whose pending requests (a return, a mute, a rebuy, a client seed)
        differ from what is stored (:attr:`seats` holds what is stored), stamped (a copy
        made only of a seat that changed: this runs after every client message)."""
        asked = self.returning | self.muted | self.rebuys.keys() | self.client_seeds.keys()
        return [self._stamped(row) for row in self.seats
                if (row.seat in asked or row.back_next_game or row.muted
                    or row.rebuy_chips is not None or row.rebuy_approved
                    or row.client_seed is not None)  # else nothing pending, nothing stored
                and self._pending_of(row.seat) != row.pending()]

    def _pending_stored(self, rows: Sequence[SeatRow]) -> None:
        """``rows`` (:meth:`_pending_changes`) are now stored."""
        for row in rows:
            if row.seat < len(self.seats):
                for name in PENDING_FIELDS:
                    setattr(self.seats[row.seat], name, getattr(row, name))

    def _pending_from_rows(self) -> None:
        """Take the pending requests back to what is stored (a write failed)."""
        self.returning = {s.seat for s in self.seats if s.back_next_game}
        self.muted = {s.seat for s in self.seats if s.muted}
        self.rebuys = {s.seat: (s.rebuy_chips, s.rebuy_approved) for s in self.seats
                       if s.rebuy_chips is not None}
        self.client_seeds = {s.seat: s.client_seed for s in self.seats
                             if s.client_seed is not None}

    async def _save_pending(self) -> None:
        """Store the pending requests that changed (after each client message, on the
        database thread), so a restarted server or a worker taking the room over has
        them: a return asked for (:meth:`_away`), a mute, a rebuy, a client seed, the
        requests to sit down."""
        changes = self._pending_changes()
        if changes:
            await self.store.run(self.store.put_pending, self.room_id, changes)
            self._pending_stored(changes)
        asks = ([ask.row() for ask in self.asks.values()], self.ask_count)
        if asks != self._asks_stored:
            await self.store.run(self.store.put_asks, self.room_id, *asks)
            self._asks_stored = asks

    # -- lobby ---------------------------------------------------------------------------

    async def _join(self, client: Client, message: Join) -> None:
        """A spectator takes a free seat (lobby), or asks for one: the host approves who
        sits down (:attr:`RoomSettings.approve_seats`), or, during or after a session, a
        seat for the next session (the rematch; RULES.md has no rule for a player who
        joins a session in play and the table driver none for a seat added to one, so a
        seat is never added mid-session)."""
        if client.seat is not None:
            raise _fail("already_seated", f"this connection already holds seat {client.seat}")
        if any(ask.client is client for ask in self.asks.values()):
            raise _fail("already_asked", "this connection already waits for an answer to "
                        "its seat request")
        if self.settings.next_room is not None:
            raise _fail("illegal_action", f"the next session is open in room "
                        f"{self.settings.next_room!r}: join there")
        name = clean_name(message.name)
        self._check_name_free(name)
        lobby = self.status == "lobby"
        chair = self._free_chair(message.seat, lobby)
        if lobby and not self.settings.approve_seats:
            await self._seat_in_lobby(client, name, chair)
            return
        token = secrets.token_urlsafe(24)
        ask = SeatAsk(number=self.ask_count + 1, client=client, name=name, chair=chair,
                      next_game=not lobby, approved=not self.settings.approve_seats,
                      token_hash=hash_token(token), token=token)
        self.ask_count += 1
        self.asks[ask.number] = ask
        try:
            await self._save_pending()  # stored before the requester hears of it
        except StorageError:
            del self.asks[ask.number]
            self.ask_count -= 1
            raise
        client.send(SeatPending(request=ask.number, chair=chair, next_game=ask.next_game,
                                token=token))
        self._broadcast_room()

    def _free_chair(self, wanted: int | None, lobby: bool) -> int:
        """The chair a :class:`Join` takes: ``wanted`` if free, else (``None``) the lowest
        free one. In play, the chairs of seats that left or were removed are free for the
        next session.

        Raises:
            ProtocolError: ``seat_taken`` (``wanted`` is held or asked for),
                ``room_full`` (no chair free).
        """
        held = {_chair(s): s.name for s in self.seats if lobby or not s.kicked}
        held.update({ask.chair: ask.name for ask in self.asks.values()})
        if wanted is not None:
            if wanted in held:
                raise _fail("seat_taken", f"seat {wanted} is taken by {held[wanted]!r}")
            return wanted
        free = [chair for chair in range(MAX_SEATS) if chair not in held]
        if not free:
            raise _fail("room_full", f"all {MAX_SEATS} seats are taken")
        return free[0]

    async def _seat_in_lobby(self, client: Client | None, name: str, chair: int,
                             ask: SeatAsk | None = None) -> None:
        """Seat a new player at ``chair`` in the lobby (the seats after it move up one in
        the seat order; their connections get a new :class:`Welcome`). A granted request
        ``ask`` gives the seat its token (a requester cut off by a restart takes the seat
        when it comes back with it); else the seat gets a new one."""
        fresh = secrets.token_urlsafe(24)
        token, token_hash = ((fresh, hash_token(fresh)) if ask is None
                             else (ask.token, ask.token_hash))
        row = SeatRow(seat=-1, name=name, token_hash=token_hash, bot_style=None,
                      host=False, kicked=False, chair=chair)
        await self._reseat([*self.seats, row])
        if client is not None and token is not None:
            client.seat = row.seat
            client.send(Seated(seat=row.seat, token=token))
        self._broadcast_room()

    async def _reseat(self, rows: list[SeatRow]) -> None:
        """Make ``rows`` the lobby's seats, in clockwise chair order, renumbered (a row
        with seat -1 is new); stored first, then each moved connection gets a new
        :class:`Welcome` and a removed seat's connections :class:`Kicked`. Mutes and the
        client seeds already sent move with their seats (a removed seat's are dropped)."""
        ordered = sorted(rows, key=_chair)
        renumber = {s.seat: i for i, s in enumerate(ordered) if s.seat >= 0}
        muted = {renumber[s] for s in self.muted if s in renumber}
        # A lobby client seed follows its sender's seat; a removed seat's goes with it.
        seeds = {renumber[s]: seed for s, seed in self.client_seeds.items() if s in renumber}
        seats = [dataclasses.replace(s, seat=i, muted=i in muted,
                                     client_seed=seeds.get(i))  # stored with the seat
                 for i, s in enumerate(ordered)]
        if len(seats) == len(self.seats) + 1 and ordered[-1].seat < 0:
            await self.store.run(self.store.put_seat, self.room_id, seats[-1])  # at the end
        else:
            await self.store.run(self.store.delete_seats, self.room_id, seats)
        for old, new in zip(ordered, seats, strict=True):
            old.seat = new.seat  # the caller's new row learns its number
        self.seats = seats
        self.muted, self.client_seeds = muted, seeds
        for client in self.clients:
            if client.seat is None:
                continue
            if client.seat not in renumber:
                number, client.seat = client.seat, None
                client.send(Kicked(seat=number))
            elif renumber[client.seat] != client.seat:
                client.seat = renumber[client.seat]
                self._sent.pop(client, None)  # the lobby: no table yet
                client.send(Welcome(protocol=client.protocol, seat=client.seat,
                                    host=self.seats[client.seat].host, room=self.info(),
                                    table=None))

    async def _approve_seat(self, number: int) -> None:
        """Host: grant seat request ``number``: seated now in the lobby, else at the
        rematch."""
        ask = self._ask(number)
        if ask.next_game:
            ask.approved = True
        else:
            del self.asks[number]
            await self._seat_in_lobby(ask.client, ask.name, ask.chair, ask)
        self._broadcast_room()

    def _deny_seat(self, number: int) -> None:
        """Host: refuse seat request ``number``; the requester watches on."""
        ask = self._ask(number)
        del self.asks[number]
        if ask.client is not None:
            ask.client.send(SeatRefused(request=number,
                                        reason="the host did not give you a seat"))
        self._broadcast_room()

    def _ask(self, number: int) -> SeatAsk:
        ask = self.asks.get(number)
        if ask is None:
            raise _fail("illegal_action", f"there is no seat request {number}")
        return ask

    def _check_name_free(self, name: str) -> None:
        # Look-alikes count as taken: full-width "Ｈｏｓｔ" is "Host" (NFKC), case aside, a
        # Cyrillic "Аna" is "Ana" (gutskit.server.names: Unicode confusables). A name of
        # the carried ledger belongs to its player (a rematch's earlier sessions), a name
        # asked for to the one who waits for it.
        taken = [s.name for s in self.seats] + [a.name for a in self.asks.values()]
        taken += [n for n, _ in self.settings.carried or ()]
        other = names.confusable_with(name, taken)
        if other is not None:
            which = "called" if other == name else f"called {other!r}, which looks like"
            raise _fail("name_taken", f"another seat is {which} {name!r}")

    async def _leave(self, client: Client) -> None:
        if client.seat is None:
            raise _fail("not_seated", "a spectator holds no seat")
        seat = self.seats[client.seat]
        if seat.host:
            raise _fail("illegal_action", "the host cannot leave the table")
        if self.status == "lobby":
            await self._remove_lobby_seat(client.seat)
            return
        if self.status != "playing" or self.state is None:
            raise _fail("not_playing", "the session is over")
        # In play: the seat leaves for good (the table driver); the connection watches.
        state, events = driver.leave(self.state, seat.seat)
        await self._persist_and_send(state, events, None)
        self.rebuys.pop(seat.seat, None)
        seat.kicked = True  # the token keeps only the seat's records (record_seat_of_token)
        await self.store.run(self.store.put_seat, self.room_id, seat)
        for other in self.clients:  # every tab of the seat, here or relayed (attack7 L3)
            if other.seat == seat.seat:
                other.seat = None
        self._broadcast_room()
        self._broadcast_state()

    async def _remove_lobby_seat(self, number: int) -> None:
        await self._reseat([s for s in self.seats if s.seat != number])
        self._broadcast_room()

    # -- host commands -------------------------------------------------------------------

    async def _host_command(self, client: Client, message: ClientMessage) -> None:
        if client.seat is None or not self.seats[client.seat].host:
            raise _fail("not_host", f"only the host may {message.type.replace('_', ' ')}")
        if isinstance(message, AddBot):
            await self._add_bot(message.style)
        elif isinstance(message, Kick):
            await self._kick(message.seat)
        elif isinstance(message, Start):
            await self._start()
        elif isinstance(message, Pause | Resume):
            await self._pause(isinstance(message, Pause))
        elif isinstance(message, EndSession):
            await self._end("the host ended the session")
        elif isinstance(message, ApproveRebuy):
            await self._approve_rebuy(message.seat)
        elif isinstance(message, DenyRebuy):
            self._deny_rebuy(message.seat)
        elif isinstance(message, Mute):
            self._mute(message.seat, message.muted)
        elif isinstance(message, ApproveSeat):
            await self._approve_seat(message.request)
        elif isinstance(message, DenySeat):
            self._deny_seat(message.request)
        elif isinstance(message, Rematch):
            await self._rematch(message.ledger)

    async def _rematch(self, ledger: str) -> None:
        """Host, once the session is over: open the next session with the same rules in a
        new room (a new hand history, fairness record and ledger; :class:`Rematch`).

        The seats still at the table keep their chairs, tokens and mutes (bots too); the seats
        that left or were removed are not seated again; the spectators whose request to
        sit was granted take their chairs with new tokens. ``ledger``: ``"carried"`` (the
        new room's ledger carries every player's net so far, :func:`ledgers.carry`) or
        ``"reset"``.

        Raises:
            ProtocolError: ``illegal_action`` (the session is not over, or the rematch is
                already open), ``server_full``.
        """
        state = self.state
        if self.status != "over" or state is None:
            raise _fail("illegal_action", "a rematch opens once the session is over")
        if self.settings.next_room is not None:
            raise _fail("illegal_action", f"the rematch is already open in room "
                        f"{self.settings.next_room!r}")
        # A mute goes with its player; a new session deals everyone in (a return asked for
        # is made), buys in afresh (no rebuy carried) and commits to new deals (no seed).
        rows = [dataclasses.replace(s, kicked=False, muted=s.seat in self.muted,
                                    back_next_game=False, rebuy_chips=None, rebuy_approved=False,
                                    client_seed=None)
                for s in self.seats if not s.kicked]
        tokens: dict[int, str] = {}
        for ask in self.asks.values():
            if ask.approved and ask.client in self.clients:
                tokens[ask.number] = secrets.token_urlsafe(24)
                rows.append(SeatRow(seat=-1, name=ask.name,
                                    token_hash=hash_token(tokens[ask.number]),
                                    bot_style=None, host=False, kicked=False, chair=ask.chair))
        rows.sort(key=_chair)
        rows = [dataclasses.replace(s, seat=i) for i, s in enumerate(rows)]
        carried = (ledgers.carry(self.settings.carried or (), ledgers.ledger(state))
                   if ledger == "carried" else None)
        settings = dataclasses.replace(self.settings, previous_room=self.room_id,
                                       next_room=None, carried=carried)
        room = await self.manager.open_rematch(settings, rows)
        self.settings = dataclasses.replace(self.settings, next_room=room.room_id)
        await self.store.run(self.store.put_settings, self.room_id, self.settings.to_json())
        asks, self.asks = self.asks, {}
        for client in self.clients:
            mine = next((a for a in asks.values() if a.client is client), None)
            if mine is not None and mine.number not in tokens:
                client.send(SeatRefused(request=mine.number, reason="the rematch opened "
                                        "before the host answered: ask again there"))
            client.send(RematchOpened(room_id=room.room_id, ledger=ledger,  # type: ignore[arg-type]
                                      token=None if mine is None else tokens.get(mine.number)))
        self._broadcast_room()

    def _mute(self, number: int, muted: bool) -> None:
        """Host: mute or unmute a seat's chat (stored with the seat, :meth:`_save_pending`:
        kept over a restart and carried to the rematch).

        Raises:
            ProtocolError: ``illegal_action``, no such seat or the host's own.
        """
        if not 0 <= number < len(self.seats):
            raise _fail("illegal_action", f"there is no seat {number}")
        if self.seats[number].host:
            raise _fail("illegal_action", "the host cannot mute themself")
        if muted:
            self.muted.add(number)
        else:
            self.muted.discard(number)
        self._broadcast_room()

    # -- chat ----------------------------------------------------------------------------

    def _chat(self, client: Client, message: Chat | React) -> None:
        """A seat's chat line or reaction, to every connection (spectators read it).
        Chat is not game state: it never reaches the engine, the hand history or the
        database; the room keeps its last :data:`~gutskit.server.protocol.CHAT_KEPT`
        lines in memory for the :class:`Welcome` of later connections.

        Raises:
            ProtocolError: ``not_seated`` (spectators only read), ``muted``,
                ``rate_limited`` (:attr:`ServerConfig.chat_limit`, per seat), or
                ``bad_message`` (a blank line, or one with control characters).
        """
        if client.seat is None or self.seats[client.seat].kicked:
            raise _fail("not_seated", "spectators read the chat; take a seat to write")
        seat = client.seat
        if seat in self.muted:
            raise _fail("muted", "the host muted your chat")
        text = emoji = None
        if isinstance(message, Chat):
            text = message.text.strip()
            if not text or any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn")
                               and ch != "\u200d" for ch in text):
                raise _fail("bad_message", f"chat.text: {message.text[:40]!r} must be "
                            "printable text")
        else:
            emoji = message.emoji
        key = f"{self.room_id}:{seat}"
        for rate in self.manager.chat_rates:
            if not self.manager.chat_limiter.test(rate, key):
                raise _fail("rate_limited", f"a seat may chat at most {_per(rate)}")
        for rate in self.manager.chat_rates:
            self.manager.chat_limiter.hit(rate, key)
        self.chat_count += 1
        line = ChatLine(seq=self.chat_count, seat=seat, name=self.seats[seat].name,
                        text=text, emoji=emoji)
        self.chat.append(line)
        self._send_all(line)

    async def _add_bot(self, style: str) -> None:
        if self.settings.companion:
            raise _fail("illegal_action", "a companion room plays with real cards: no bots")
        if self.status != "lobby":
            raise _fail("not_in_lobby", "bots can join only before the session starts")
        chair = self._free_chair(None, lobby=True)
        taken = [s.name for s in self.seats] + [a.name for a in self.asks.values()]
        taken += [n for n, _ in self.settings.carried or ()]
        name = next((f"{n} (bot)" for n in BOT_NAMES
                     if names.confusable_with(f"{n} (bot)", taken) is None),
                    f"Bot {len(self.seats)}")
        row = SeatRow(seat=-1, name=name, token_hash=None, bot_style=style, host=False,
                      kicked=False, chair=chair)
        await self._reseat([*self.seats, row])
        self._broadcast_room()

    async def _kick(self, number: int) -> None:
        if not 0 <= number < len(self.seats):
            raise _fail("illegal_action", f"there is no seat {number}")
        target = self.seats[number]
        if target.host:
            raise _fail("illegal_action", "the host cannot kick themself")
        if target.kicked:
            raise _fail("illegal_action", f"seat {number} ({target.name!r}) was already kicked")
        if self.status == "lobby":
            await self._remove_lobby_seat(number)
            return
        state = self.state
        if state is not None and driver.can_kick(state, number) is None:
            # Removed for good (the table driver): never dealt in again; a card or a
            # declaration it still owes this round is made for it.
            state, events = driver.kick(state, number, f"{target.name} was removed by the host")
            await self._persist_and_send(state, events, None)
        self.rebuys.pop(number, None)
        target.kicked = True  # the token keeps only the seat's records (record_seat_of_token)
        await self.store.run(self.store.put_seat, self.room_id, target)
        for client in self.clients:
            if client.seat == number:
                client.seat = None
                client.send(Kicked(seat=number))
        self._broadcast_room()
        self._broadcast_state()  # the kicked connection now watches: the public view

    def _rebuy(self, client: Client, message: Rebuy) -> None:
        """A seat asks to buy chips (the host approves: :meth:`_approve_rebuy`).

        Raises:
            ProtocolError: a spectator, no session in play, or the rules refuse it.
        """
        if client.seat is None:
            raise _fail("not_seated", "a spectator cannot buy chips; join first")
        if self.status != "playing" or self.state is None:
            raise _fail("not_playing", "the session is not in play")
        problem = driver.can_rebuy_later(self.state, client.seat, message.chips)
        if problem is not None:
            raise _fail("illegal_action", problem)
        self.rebuys[client.seat] = (message.chips, False)
        self._broadcast_room()

    async def _away(self, client: Client, away: bool) -> None:
        """A seat goes away (``away``) or asks to come back (now when the table driver
        allows it, else when the next game starts: :meth:`_take_returns`).

        Raises:
            ProtocolError: a spectator, no session in play, or the driver refuses it.
        """
        if client.seat is None:
            raise _fail("not_seated", "a spectator holds no seat")
        if self.status != "playing" or self.state is None:
            raise _fail("not_playing", "the session is not in play")
        seat, state = client.seat, self.state
        if away:
            problem = driver.can_sit_out(state, seat)
            if problem is not None:
                raise _fail("illegal_action", problem)
            self.returning.discard(seat)
            state, events = driver.sit_out(state, seat)
            await self._persist_and_send(state, events, None)
        else:
            problem = driver.can_come_back(state, seat)
            if problem is None:
                self.returning.discard(seat)
                state, events = driver.come_back(state, seat)
                await self._persist_and_send(state, events, None)
            elif state.away and state.away[seat] and driver.game_in_progress(state):
                self.returning.add(seat)  # back when the next game starts
            else:
                raise _fail("illegal_action", problem)
        self._broadcast_room()

    async def _show_hand(self, client: Client) -> None:
        """The uncontested winner shows its cards (the table driver; a public event).

        Raises:
            ProtocolError: a spectator, no session, or the driver refuses it.
        """
        if client.seat is None:
            raise _fail("not_seated", "a spectator holds no cards")
        if self.state is None or self.status == "lobby":
            raise _fail("not_playing", "the session has not started")
        problem = driver.can_show_hand(self.state, client.seat)
        if problem is not None:
            raise _fail("illegal_action", problem)
        state, events = driver.show_hand(self.state, client.seat)
        await self._persist_and_send(state, events, None)

    def _take_returns(self, state: GameState) -> tuple[GameState, list[Event]]:
        """The seats whose return was asked for come back once the driver allows it (the
        next game)."""
        events: list[Event] = []
        for seat in sorted(self.returning):
            problem = driver.can_come_back(state, seat)
            if problem is None:
                state, more = driver.come_back(state, seat)
                events.extend(more)
                self.returning.discard(seat)
            elif not (state.away and state.away[seat]) or (state.left and state.left[seat]):
                self.returning.discard(seat)  # no longer away, or gone
        return state, events

    async def _approve_rebuy(self, seat: int) -> None:
        if seat not in self.rebuys:
            raise _fail("illegal_action", f"seat {seat} has asked for no rebuy")
        chips, _ = self.rebuys[seat]
        self.rebuys[seat] = (chips, True)
        state = self.state
        if state is not None and state.phase is Phase.DEAL and self.status == "playing":
            state, events = self._take_rebuys(state)
            if events:
                await self._persist_and_send(state, events, None)
        self._broadcast_room()

    def _deny_rebuy(self, seat: int) -> None:
        if seat not in self.rebuys:
            raise _fail("illegal_action", f"seat {seat} has asked for no rebuy")
        del self.rebuys[seat]
        self._broadcast_room()

    def _take_rebuys(self, state: GameState) -> tuple[GameState, list[Event]]:
        """Apply the approved rebuys the rules allow now (between rounds); drop those the
        rules no longer allow."""
        events: list[Event] = []
        for seat, (chips, approved) in sorted(self.rebuys.items()):
            if not approved:
                continue
            if driver.can_rebuy(state, seat, chips) is None:
                state, more = driver.rebuy(state, seat, chips)
                events.extend(more)
                del self.rebuys[seat]
            elif driver.can_rebuy_later(state, seat, chips) is not None:
                del self.rebuys[seat]
        return state, events

    async def _pause(self, pause: bool) -> None:
        if self.status != "playing":
            raise _fail("not_playing", "only a session in play can be paused or resumed")
        if pause == self.paused:
            raise _fail("illegal_action", "the table is already "
                        + ("paused" if pause else "running"))
        self.paused = pause
        await self.store.run(self.store.set_paused, self.room_id, pause)
        if pause:
            self._cancel(self._timer)
            self._cancel(self._next_deal)
            self.deadline = None
        else:
            self._resume_play()
        self._broadcast_room()
        self._broadcast_state()

    # -- play ----------------------------------------------------------------------------

    async def _start(self) -> None:
        if self.status != "lobby":
            raise _fail("not_in_lobby", "the session has already started")
        if len(self.seats) < 2:
            raise _fail("illegal_action", "Guts needs at least 2 seated players")
        start = engine.start_event([s.name for s in self.seats], self.settings.buy_in,
                                   dealer=self.manager.first_dealer(len(self.seats)),
                                   rules=self.settings.rules,
                                   companion=self.settings.companion)
        self.session_id = await self.store.run(self.store.start_session, self.room_id, start)
        self.events = [start]
        self.deals_dealt = 0
        self.state = engine.evolve(None, start)
        self.status = "playing"
        for ask in self.asks.values():  # still waiting for the host: the next session,
            ask.next_game = True          # and the requester is told so
            if ask.client is not None:
                ask.client.send(SeatPending(request=ask.number, chair=ask.chair,
                                            next_game=True, token=ask.token))
        self._broadcast_room()
        self._broadcast_events([start])
        session = self._session_commitment()
        assert session is not None
        self._send_all(session)  # before the first deal
        if self.settings.companion:
            self._broadcast_state()  # a real table deals: the dealer's phone says when
        else:
            await self._deal()

    async def _deal(self) -> None:
        """Deal the next round (commitment first), or end the session if it cannot go on."""
        state = self.state
        assert state is not None and self.session_id is not None
        if (self.status != "playing" or self.paused or state.phase is not Phase.DEAL
                or self.settings.companion):  # a real table deals: companion.handle
            return
        state, bought = self._take_rebuys(state)
        state, back = self._take_returns(state)
        if bought or back:
            await self._persist_and_send(state, [*bought, *back], None)
            self._broadcast_room()
            return  # _persist_and_send schedules the deal
        status = driver.status(state)
        if status.step is driver.Step.END:
            await self._end(status.reason or "fewer than two players left with chips")
            return
        if status.step is not driver.Step.DEAL:
            return  # waiting for a rebuy or a seat coming back
        if self.settings.seed_reveal == "shown":
            await self._deal_committed(state)
            return
        seed = self.manager.new_seed()
        deck = fairness.deck_from_seed(seed)
        commitment = fairness.commitment(seed, deck)
        new, events = driver.deal(state, deck=deck)
        deal = DealRow(round=new.round_number, commitment=commitment, seed=seed.hex(),
                       revealed=False)
        payloads = self._payloads_of(events)
        pending = self._pending_changes()
        await self.store.append_async(self.room_id, self.session_id, len(self.events), events,
                                      deal=deal, payloads=payloads, pending=pending)
        self._pending_stored(pending)
        self.deals[deal.round] = deal
        self._commit(new, events)
        self._send_all(FairnessCommitment(round=deal.round, commitment=commitment))
        self._broadcast_events(events)
        self._after_change()

    async def _deal_committed(self, state: GameState) -> None:
        """Version 2 (:mod:`gutskit.server.fairness`): deal the order committed to before
        the client seeds, mixed with them; commit to the next round's order."""
        assert self.session_id is not None
        number = state.round_number + 1
        current = self.deals.get(number)
        inserted = None
        if current is None:  # a room committed before version 2 or a lost record
            current = inserted = self.manager.new_commitment(number, self._secrets)
        seeds = [self.client_seeds.get(seat) for seat in range(state.n_seats)]
        secret, _ = self._secret(current.seed)
        deck = fairness.dealt_deck(secret, fairness.deal_order(current.commitment, seeds))
        new, events = driver.deal(state, deck=deck)
        upcoming = self.manager.new_commitment(number + 1, self._secrets)
        dealt = DealRow(round=number, commitment=current.commitment, seed=current.seed,
                        revealed=False, client_seeds=seeds)
        if inserted is not None:
            inserted.client_seeds = seeds
            await self.store.append_async(self.room_id, self.session_id, len(self.events),
                                          [], deal=inserted)
        kept, self.client_seeds = self.client_seeds, {}  # used: cleared in the same commit
        pending = self._pending_changes()
        try:
            await self.store.append_async(
                self.room_id, self.session_id, len(self.events), events, deal=upcoming,
                deal_updates=[] if inserted is not None else [dealt],
                payloads=self._payloads_of(events), pending=pending)
        except StorageError:
            self.client_seeds = kept
            raise
        self._pending_stored(pending)
        self.deals[number] = dealt
        self.deals[upcoming.round] = upcoming
        self._commit(new, events)
        self._send_all(FairnessDealt(round=number, commitment=dealt.commitment,
                                     client_seeds=seeds))
        self._send_all(FairnessCommitment(round=upcoming.round,
                                          commitment=upcoming.commitment))
        self._broadcast_events(events)
        self._after_change()

    def _client_seed(self, client: Client, message: ClientSeed) -> None:
        """Take a seat's client seed for the next deal (version 2).

        Raises:
            ProtocolError: a spectator, another mode, not the next round, a second seed,
                a malformed seed.
        """
        if client.seat is None:
            raise _fail("not_seated", "a spectator adds no randomness; join first")
        if self.settings.seed_reveal != "shown":
            raise _fail("illegal_action", f"this room reveals whole seeds "
                        f"(seed_reveal = {self.settings.seed_reveal!r}): no client seeds")
        if self.status == "over":
            raise _fail("not_playing", "the session is over")
        upcoming = 1 if self.state is None else self.state.round_number + 1
        if message.round != upcoming or upcoming not in self.deals:
            raise _fail("stale_round", f"client seeds are taken for round {upcoming} now, "
                        f"not round {message.round}")
        if client.seat in self.client_seeds:
            raise _fail("already_seeded", f"seat {client.seat} already sent its seed for "
                        f"round {upcoming}")
        try:
            self.client_seeds[client.seat] = fairness.parse_client_seed(message.seed)
        except fairness.FairnessError as error:
            raise _fail("bad_message", f"client_seed.seed: {error}") from None

    def _session_header(self) -> dict[str, Any] | None:
        """The session's ``SessionStarted`` as a hand-history line (``None`` in the
        lobby): every field is public."""
        if not self.events or not isinstance(self.events[0], SessionStarted):
            return None
        return event_to_dict(self.events[0])

    def _session_commitment(self) -> FairnessSession | None:
        """The commitment to the session header (:func:`fairness.session_hash`)."""
        header = self._session_header()
        return None if header is None else FairnessSession(
            hash=fairness.session_hash(header))

    def _fairness_messages(self, deal: DealRow) -> list[Any]:
        """What everyone may know of one fairness record (sent on connect)."""
        messages: list[Any] = [FairnessCommitment(round=deal.round,
                                                  commitment=deal.commitment)]
        if self.settings.seed_reveal != "shown":
            if deal.revealed:
                messages.append(FairnessReveal(round=deal.round, commitment=deal.commitment,
                                               seed=deal.seed))
            return messages
        if deal.client_seeds is not None:
            messages.append(FairnessDealt(round=deal.round, commitment=deal.commitment,
                                          client_seeds=deal.client_seeds))
        if deal.opened is not None:
            messages.append(self._opening(deal))
        return messages

    def _opening(self, deal: DealRow) -> FairnessOpening:
        """The public opening of a round: its leaves and its opened positions."""
        secret, leaves = self._secret(deal.seed)
        opened = set(deal.opened or ())
        return FairnessOpening(
            round=deal.round, commitment=deal.commitment, leaves=list(leaves),
            opened=[o.to_json() for o in fairness.open_cards(
                secret, [c for i, c in enumerate(secret.deck) if i in opened])])

    def _secret(self, seed: str) -> tuple[fairness.DeckSecret, list[str]]:
        """A round's committed order and its 52 leaves from its secret seed (hex), kept
        for the last :data:`SECRETS_KEPT` seeds: the commitment, the deal and the opening
        of a round use them (the seed itself is kept in :attr:`deals` anyway)."""
        kept = self._secrets.get(seed)
        if kept is None:
            secret = fairness.secret_from_seed(bytes.fromhex(seed))
            kept = _keep_secret(self._secrets, seed, secret)
        return kept

    def _open_shown(self, state: GameState, resolved: RoundResolved | None,
                    events: Sequence[Event] = ()) -> list[DealRow]:
        """Version 2: open the cards the round's public result shows (``resolved``) and
        the hand its uncontested winner shows by choice (a ``HandShown`` among ``events``,
        after the result: its positions are added to the round's openings) and, when the
        session is over (``state``), publish the leaves of every dealt round still closed;
        the changed records (copies: stored first, then taken)."""
        if self.settings.seed_reveal != "shown" or not self.events:
            return []
        changed: dict[int, DealRow] = {}
        for event in events:
            if not isinstance(event, HandShown):
                continue
            deal = changed.get(state.round_number, self.deals.get(state.round_number))
            if deal is not None and deal.opened is not None:
                secret, _ = self._secret(deal.seed)
                more = [i for i, c in enumerate(secret.deck) if c in set(event.hand)]
                changed[deal.round] = dataclasses.replace(
                    deal, opened=sorted(set(deal.opened) | set(more)))
        if resolved is not None:
            deal = self.deals.get(state.round_number)
            if deal is not None and deal.opened is None:
                # What is shown is what the public (spectator's) copy of the result holds.
                public = views.redacted_history([resolved], SPECTATOR,
                                          rules=self.settings.rules)[-1]
                assert isinstance(public, RoundResolved)
                shown = fairness.shown_cards(public)
                secret, _ = self._secret(deal.seed)
                changed[deal.round] = dataclasses.replace(
                    deal, opened=[i for i, c in enumerate(secret.deck) if c in shown])
        if state.phase is Phase.OVER:
            for deal in self.deals.values():
                if deal.client_seeds is not None and deal.opened is None \
                        and deal.round not in changed:
                    changed[deal.round] = dataclasses.replace(deal, opened=[])
        return list(changed.values())

    def fairness_record(self, seat: int | None) -> dict[str, Any]:
        """``fairness.json``: every round's public fairness record and, for ``seat``
        (a seat token's), the openings of its own dealt cards in rounds already opened."""
        rounds = sorted(self.deals.values(), key=lambda d: d.round)
        header = self._session_header()
        session = None if header is None else {"hash": fairness.session_hash(header),
                                               "started": header}
        if self.settings.seed_reveal != "shown":
            return {"room_id": self.room_id, "algorithm": fairness.ALGORITHM_V1,
                    "session_over": self.status == "over", "session": session, "rounds": [
                        {"round": d.round, "commitment": d.commitment,
                         "seed": d.seed if d.revealed else None} for d in rounds]}
        own = self._own_hands(seat)
        records = []
        for deal in rounds:
            record: dict[str, Any] = {"round": deal.round, "commitment": deal.commitment,
                                      "client_seeds": deal.client_seeds, "leaves": None,
                                      "opened": []}
            if deal.opened is not None:
                opening = self._opening(deal)
                record["leaves"], record["opened"] = opening.leaves, opening.opened
                if seat is not None:
                    secret = fairness.secret_from_seed(bytes.fromhex(deal.seed))
                    record["own"] = [o.to_json() for o in fairness.open_cards(
                        secret, own.get(deal.round, ()))]
            records.append(record)
        return {"room_id": self.room_id, "algorithm": fairness.ALGORITHM_V2,
                "session_over": self.status == "over", "seat": seat, "session": session,
                "rounds": records}

    def _own_hands(self, seat: int | None) -> dict[int, tuple[int, ...]]:
        """Round -> the cards dealt to ``seat`` as its own copy of the history shows them
        (none under ``no_peek``, where even the seat does not see its cards)."""
        if seat is None or not self.events:
            return {}
        hands: dict[int, tuple[int, ...]] = {}
        number = 0
        for event in views.redacted_history(self.events, self.viewer(seat)):
            if isinstance(event, CardsDealt):
                number += 1
                hand = event.hands[seat] if seat < len(event.hands) else None
                if hand:
                    hands[number] = tuple(hand)
        return hands

    def _open_action(self, client: Client, round_number: int, action_id: str,
                     phase: str) -> tuple[GameState, int, str] | None:
        """Checks shared by every in-round action; ``None`` for a duplicate (answered).

        Raises:
            ProtocolError: ``not_seated``, ``not_playing`` or ``stale_round``.
        """
        if client.seat is None:
            raise _fail("not_seated", "a spectator cannot act; join first")
        key = self._action_key(client.seat, action_id)
        if key in self.actions:
            client.send(Ack(action_id=action_id, duplicate=True))
            return None
        state = self.state
        if self.status != "playing" or state is None:
            raise _fail("not_playing", "the session is not in play")
        if state.phase.value != phase or round_number != state.round_number:
            if self._applied_before(client.seat, action_id):  # a late retry
                client.send(Ack(action_id=action_id, duplicate=True))
                return None
            current = (f"round {state.round_number} is in the {state.phase.value} phase"
                       if _deciding(state) else "no round is open now")
            if state.phase.value == phase:
                current = f"round {state.round_number} is being played"
                if phase == "declare":
                    current = f"round {state.round_number} is being declared"
            raise _fail("stale_round", f"round {round_number} is not open: {current}")
        return state, client.seat, key

    def _action_key(self, seat: int, action_id: str) -> str:
        """The dedupe key of ``action_id`` from ``seat`` in the round instance being
        played: ``"seat:deal:action_id"`` (``deal`` = :attr:`deals_dealt`). A round that is
        undone (companion mode) and dealt again under the same number is a new instance,
        so a client that builds its action ids from the round number is not answered
        ``duplicate`` there (docs/protocol.md)."""
        return f"{seat}:{self.deals_dealt}:{action_id}"

    def _applied_before(self, seat: int, action_id: str) -> bool:
        """Whether ``seat`` had ``action_id`` applied in an earlier round instance (a retry
        that arrives after its round: answered ``duplicate``, not ``stale_round``); also
        the ``"seat:action_id"`` keys of rooms stored before round instances."""
        if f"{seat}:{action_id}" in self.actions:
            return True
        prefix = f"{seat}:"
        return any(key.startswith(prefix) and key.split(":", 2)[2:] == [action_id]
                   for key in self.actions)

    async def _declare(self, client: Client, message: Declare) -> None:
        if self.settings.companion:
            companion.check_declare(self, message.round)  # a late drop (1-2-3 drop)
        opened = self._open_action(client, message.round, message.action_id, "declare")
        if opened is None:
            return
        state, seat, key = opened
        legal = engine.legal_declarations(state.rules)
        try:
            decl = Declaration(message.declaration)
        except ValueError:
            raise _fail("illegal_action", f"{quoted_input(message.declaration)} is not a "
                        "declaration: this table's are "
                        f"{', '.join(d.value for d in legal)}") from None
        problem = driver.can_declare(state, seat, decl)
        if problem is not None:
            raise _fail("illegal_action", problem)
        own_view = views.view_for(state, seat) if message.coach else None
        state, events = driver.declare(state, seat, decl)
        await self._persist_and_send(state, events, (key, seat, message.round),
                                     functools.partial(self._applied, client, key, seat,
                                                       message.round, message.action_id))
        if own_view is not None:
            await self._send_coach(client, own_view, message.round)

    @staticmethod
    async def _send_coach(client: Client, view: SeatView, round_number: int) -> None:
        """Send ``client`` the coach's advice on its own ``view`` (computed off the event
        loop; nothing when the coach has none or cannot advise)."""
        try:
            advice = await asyncio.to_thread(coach.advice, view)
        except GutsError:
            return
        if advice is not None:
            fields = {f.name: getattr(advice, f.name) for f in dataclasses.fields(advice)}
            fields["hand"] = [card_name(card) for card in advice.hand]
            client.send(Coach(round=round_number, line=advice.line(), **fields))

    async def _pass_card(self, client: Client, message: PassCard) -> None:
        if not self.settings.rules.pass_the_trash:
            raise _fail("illegal_action", "this room does not pass cards (Pass the Trash is "
                        "off)")
        state = self.state
        if (client.seat is not None
                and self._action_key(client.seat, message.action_id) not in self.actions
                and state is not None and self.status == "playing"
                and message.round == state.round_number and state.phase.value != "pass"):
            raise _fail("illegal_action", f"round {state.round_number} is not in the pass "
                        f"phase (it is in the {state.phase.value} phase)")
        opened = self._open_action(client, message.round, message.action_id, "pass")
        if opened is None:
            return
        state, seat, key = opened
        try:
            card = parse_card(message.card)
        except CardError as error:
            raise _fail("bad_message", f"pass_card.card: {error}") from None
        problem = driver.can_pass_card(state, seat, card)
        if problem is not None:
            raise _fail("illegal_action", problem)
        state, events = driver.pass_card(state, seat, card)
        await self._persist_and_send(state, events, (key, seat, message.round),
                                     functools.partial(self._applied, client, key, seat,
                                                       message.round, message.action_id))

    def _applied(self, client: Client, key: str, seat: int, round_number: int,
                 action_id: str) -> None:
        """A client action is stored and sent: it is known as applied (a duplicate is
        acknowledged, not applied again) and its sender gets the ack (in the frame of the
        change it made)."""
        self.actions[key] = (seat, round_number)
        client.send(_ack(action_id))

    async def _persist_and_send(self, state: GameState, events: list[Event],
                          action: tuple[str, int, int] | None,
                          after: Callable[[], None] | None = None) -> None:
        """Store ``events`` (the change from :attr:`state` to ``state``), then apply and
        send them (:meth:`_committed`) and call ``after`` (what the caller sends with the
        change: an action's ack).

        When nothing more is to be stored with them (the session goes on, a companion
        round's undo aside), the change is applied and sent by the database thread's
        hand-back itself (:meth:`RoomStore.append_async` ``then``), in the same callback
        that reports the commit: a turn of the event loop sooner than when this coroutine
        resumes, and before the loop's other work of that turn (so a reveal is not held up
        by other rooms' sockets). Otherwise after this coroutine resumes, as before."""
        assert self.session_id is not None
        self.last_active = time.monotonic()
        resolved = [e for e in events if isinstance(e, RoundResolved)]
        # the table driver ended the session when the round ended it
        end_events = [e for e in events if isinstance(e, SessionEnded)]
        reveal: list[int] = []
        v1 = self.settings.seed_reveal != "shown"
        if resolved and self.settings.seed_reveal == "round" \
                and state.round_number in self.deals:
            reveal.append(state.round_number)
        if state.phase is Phase.OVER and v1:
            reveal = [r for r, d in self.deals.items() if not d.revealed]
        opened = self._open_shown(state, resolved[-1] if resolved else None, events)
        pending = self._pending_changes()  # a rebuy applied, a return made: the same commit
        at_once = (state.phase is not Phase.OVER and self.status != "over"
                   and not self.settings.companion)
        then = (functools.partial(self._committed_at_once, state, events, pending, reveal,
                                  opened, after) if at_once else None)
        await self.store.append_async(self.room_id, self.session_id, len(self.events), events,
                                      action=action, reveal=reveal, deal_updates=opened,
                                      payloads=self._payloads_of(events), pending=pending,
                                      then=then)
        if at_once:
            return
        self._pending_stored(pending)
        if state.phase is Phase.OVER and not end_events:
            await self.store.run(self.store.set_status, self.room_id, "over")
        self._committed(state, events, (), reveal, opened)
        if state.phase is Phase.OVER:
            self.status = "over"
            self._broadcast_room()
        elif self.status == "over":  # a companion round that ended the session was undone
            self.status = "playing"
            await self.store.run(self.store.set_status, self.room_id, "playing")
            self._broadcast_room()
        self._after_change()
        if after is not None:
            after()

    def _committed(self, state: GameState, events: list[Event], pending: Sequence[SeatRow],
                   reveal: Sequence[int], opened: Sequence[DealRow]) -> None:
        """Apply and send a stored change (:meth:`_persist_and_send`)."""
        self._pending_stored(pending)
        previous = self.state
        self._sealed = None if previous is None else self._sealed_by(previous, state, events)
        self._commit(state, events)
        for deal in opened:
            self.deals[deal.round] = deal
        self._broadcast_events(events)
        for number in reveal:
            deal = self.deals[number]
            deal.revealed = True
            self._send_all(FairnessReveal(round=number, commitment=deal.commitment,
                                          seed=deal.seed))
        for deal in opened:
            self._send_opening(deal)

    def _committed_at_once(self, state: GameState, events: list[Event],
                           pending: Sequence[SeatRow], reveal: Sequence[int],
                           opened: Sequence[DealRow], after: Callable[[], None] | None
                           ) -> None:
        """:meth:`_committed` as the commit is handed back, then the timers, bots and next
        deal (:meth:`_after_change`) and ``after``."""
        self._committed(state, events, pending, reveal, opened)
        self._after_change()
        if after is not None:
            after()

    def _sealed_by(self, before: GameState, after: GameState, events: Sequence[Event]
                   ) -> tuple[GameState, int, list[Any]] | None:
        """When ``events`` (from ``before`` to ``after``) are one declaration nobody but
        its seat sees yet (a spectator's copy is a ``DeclarationSealed``,
        :func:`gutskit.core.views.redacted_history`: so is every other seat's, the
        declaration's audience being its declarer) and the round is still being declared:
        ``before``, the seat and the spectator's copy; else ``None``."""
        if (self.settings.companion or len(events) != 1
                or before.phase is not Phase.DECLARE or after.phase is not Phase.DECLARE
                or before.round_number != after.round_number):
            return None
        event = events[0]
        if not isinstance(event, Declared):
            return None
        shown = views.redacted_history(events, SPECTATOR, rules=self.settings.rules)
        if len(shown) == 1 and isinstance(shown[0], DeclarationSealed):
            return before, event.seat, list(shown)
        return None

    def _commit(self, state: GameState, events: Sequence[Event]) -> None:
        self.state = state
        self.events.extend(events)
        self.deals_dealt += sum(isinstance(e, CardsDealt) for e in events)

    async def _end(self, reason: str) -> None:
        if self.status != "playing" or self.state is None:
            raise _fail("not_playing", "the session is not in play")
        state, events = driver.end(self.state, reason)
        await self._persist_and_send(state, events, None)
        if self.status != "over":
            self.status = "over"
            await self.store.run(self.store.set_status, self.room_id, "over")
            self._broadcast_room()
            self._broadcast_state()

    def _after_change(self) -> None:
        """Timers, bots and the next deal after any change of the state."""
        state = self.state
        assert state is not None
        if state.phase is Phase.OVER or self.status != "playing":
            self._cancel(self._timer)
            self._cancel(self._next_deal)
            self.deadline = None
            self._timer_key = None
        elif _deciding(state):
            self._start_timer()
            self._schedule_bots()
        else:
            self.deadline = None
            self._timer_key = None
            self._cancel(self._timer)
            self._schedule_deal()
        if self.settings.companion:
            companion.after_change(self)  # 1-2-3 drop: the count the server runs
        self._broadcast_state()

    def _resume_play(self) -> None:
        state = self.state
        if state is None or self.status != "playing" or self.paused:
            return
        if _deciding(state):
            self._timer_key = None  # restart in full
            self._start_timer()
            self._schedule_bots()
        elif state.phase is Phase.DEAL:
            self._schedule_deal()

    def _current_key(self) -> tuple[int, str, int | None]:
        """What the timer runs for: the round, the phase and, under sequential
        declaration, whose turn it is."""
        state = self.state
        assert state is not None
        turn = None
        if state.phase is Phase.DECLARE and state.rules.declaration == "sequential":
            turn = state.next_to_declare()
        return (state.round_number, state.phase.value, turn)

    def _start_timer(self) -> None:
        """(Re)start the decision timer when the round, phase or turn changed."""
        key = self._current_key()
        if self.paused or self.settings.companion:  # companion: no clock at a real table
            self._cancel(self._timer)
            self.deadline = None
            self._timer_key = None
            return
        if key == self._timer_key and self._timer is not None and not self._timer.done():
            return
        self._cancel(self._timer)
        self._timer_key = key
        seconds = self.settings.decision_seconds
        self.deadline = time.monotonic() + seconds
        self._timer = self.spawn(self._timeout(key, seconds))

    async def _timeout(self, key: tuple[int, str, int | None], seconds: float) -> None:
        await asyncio.sleep(seconds)
        async with self.lock:
            state = self.state
            if (state is None or self.paused or self.status != "playing"
                    or not _deciding(state) or self._current_key() != key):
                return
            self._timer = None
            self._timer_key = None
            # Every silent seat (under sequential declaration: the one whose turn it is)
            # makes the table's default action (the table driver).
            silent = list(driver.waiting_for(state))
            state, events = driver.time_out(state, silent)
            timed_out = (functools.partial(self._send_all, TimedOut(round=key[0], seats=silent))
                         if key[1] == "declare" and silent  # not for passes: which card
                         else None)                         # went is secret
            await self._persist_and_send(state, events, None, timed_out)

    def _schedule_bots(self) -> None:
        state = self.state
        assert state is not None
        for seat in self.seats:
            if seat.bot_style is None or seat.kicked or not _may_act(state, seat.seat):
                continue
            task = self._bot_tasks.get(seat.seat)
            if task is not None and not task.done():
                continue
            low, high = self.manager.config.bot_delay
            delay = self._rng.uniform(low, high)
            self._bot_tasks[seat.seat] = self.spawn(
                self._bot_act(seat.seat, seat.bot_style, self._current_key(), delay))

    async def _bot_act(self, seat: int, style: str, key: tuple[int, str, int | None],
                       delay: float) -> None:
        await asyncio.sleep(delay)
        async with self.lock:
            state = self.state
            self._bot_tasks.pop(seat, None)
            if (state is None or self.status != "playing" or self._current_key()[:2] != key[:2]
                    or not _may_act(state, seat)):
                if state is not None and self.status == "playing" and _deciding(state):
                    self._schedule_bots()
                return
            bot = self._bots.get(seat)
            if bot is None:  # the style's bot (the equilibrium falls back where unmodelled)
                bot = play_table(1, ("standard" if style == "rule-of-thumb" else style,),
                                 self.settings.rules)[0]
                bot.name = self.seats[seat].name
                self._bots[seat] = bot
            try:  # off the event loop: a first equilibrium may take a solver's moment
                action = await asyncio.to_thread(bot_action, bot, state, seat, self._rng)
            except GutsError:  # a bot that cannot play these rules makes the default
                action = driver.default_action(state, seat)
            state, events = driver.apply_action(state, action)
            await self._persist_and_send(state, events, None)

    def _schedule_deal(self) -> None:
        if self.paused or self.status != "playing" or self.settings.companion:
            return
        if not self.clients:
            # Nobody is connected: the table waits before the next deal (a room of bots
            # alone does not play on by itself); a connection resumes it (:meth:`attach`).
            return
        if self._next_deal is not None and not self._next_deal.done():
            return
        self._next_deal = self.spawn(self._deal_later(self.settings.reveal_seconds))

    async def _deal_later(self, delay: float) -> None:
        await asyncio.sleep(delay)
        async with self.lock:
            self._next_deal = None
            await self._deal()

    @staticmethod
    def _cancel(task: asyncio.Task[None] | None) -> None:
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()

    async def archive(self, idle_seconds: float) -> bool:
        """Close the room if it is still idle (no connection, no action for
        ``idle_seconds``): a session in play is ended (the pot and reserve shared out, the
        ledger final; :func:`gutskit.core.engine.end_session`), the room's tasks stop and
        it is marked :data:`~gutskit.server.store.ARCHIVED` in the store. Returns whether
        it was archived.

        Raises:
            StorageError: the database could not be written (the room stays open).
        """
        async with self.lock:
            if self.clients or time.monotonic() - self.last_active < idle_seconds:
                return False
            if self.status == "playing" and self.state is not None:
                minutes = idle_seconds / 60
                await self._end(f"the room was idle for {minutes:g} minutes")
            await self.store.run(self.store.set_status, self.room_id, ARCHIVED)
            self.close()
            return True

    def spawn(self, coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run ``coroutine`` as a task of the room (its decision timer, a bot's action, the
        next deal, a companion count) on the running loop: :meth:`close` cancels it
        wherever it is, :meth:`RoomManager.aclose` waits for it. Once the room is closed
        the task is cancelled before it starts. An exception it ends with is logged
        (``gutskit.server``, an error with its traceback), not left to the loop's "Task
        exception was never retrieved"."""
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        if self._closed:
            task.cancel()
        return task

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            log.error("a task of room %s failed", self.room_id, exc_info=error)

    def close(self) -> None:
        """Cancel every task of the room (:meth:`spawn`: its timers, bots' actions, next
        deal, companion count), also one half way through an action (it is not applied;
        what it submitted to the store is committed, or not, as one write: the stored
        events replay to a consistent table). For good: a task spawned later is cancelled
        before it starts. Server shutdown (:meth:`RoomManager.aclose`), an archived room,
        a cluster's room run elsewhere."""
        self._closed = True
        for task in list(self._tasks):
            self._cancel(task)

    def running(self) -> list[asyncio.Task[None]]:
        """The room's tasks not yet ended (:meth:`spawn`)."""
        return [task for task in self._tasks if not task.done()]

    # -- sending -------------------------------------------------------------------------

    def _send_opening(self, deal: DealRow) -> None:
        """A round's :class:`FairnessOpening` to the connections that get openings pushed
        (:data:`~gutskit.server.protocol.OPENINGS_PUSHED_BELOW`), encoded once."""
        wanting = [c for c in self.clients if c.protocol < OPENINGS_PUSHED_BELOW]
        if wanting:
            text = self._opening(deal).model_dump_json()
            for client in wanting:
                client.send(text)

    def _send_all(self, message: Any) -> None:
        text = message.model_dump_json()  # the same bytes for everyone: encode once
        for client in self.clients:
            client.send(text)

    def _broadcast_room(self, exclude: Client | None = None) -> None:
        text = RoomUpdate(room=self.info()).model_dump_json()
        for client in self.clients:
            if client is not exclude:
                client.send(text)

    def _payloads_of(self, events: Sequence[Event]) -> list[dict[str, Any]]:
        """The events' :func:`~gutskit.core.history.event_to_dict`, worked out once per
        change: stored, and sent as they are to every viewer who may read them in full
        (the last change's are kept; nobody changes them)."""
        last = self._payloads
        if last is not None and len(last[0]) == len(events) and all(
                a is b for a, b in zip(last[0], events, strict=True)):
            return last[1]
        payloads = [event_to_dict(e) for e in events]
        self._payloads = (list(events), payloads)
        return payloads

    def _broadcast_events(self, events: Sequence[Event]) -> None:
        """Each client gets each event as its seat may see it: one copy per distinct
        viewer (every spectator shares one), each copy encoded once (an event everyone may
        read in full, or equal copies of several viewers, is encoded once for all: a copy
        is looked up by its hash, :func:`_record_key`, never compared with every other)."""
        first = len(self.events) - len(events)
        cache: dict[int | str | None, list[str]] = {}
        encoded: list[dict[Any, tuple[Any, str]]] = [{} for _ in events]
        payloads = self._payloads_of(events)
        sealed = self._sealed
        started = isinstance(events[0], SessionStarted)
        # everyone reads them in full: the events themselves
        public = not started and all(views.public_event(e) for e in events)
        for client in self.clients:
            seat = client.seat
            # the viewers who get the same copies: everyone (public events), every seat
            # but the declarer (a sealed declaration: the spectator's copy), else the seat
            group: int | str | None = (
                "public" if public else "sealed" if sealed is not None and not started
                and seat != sealed[1] else seat)
            texts = cache.get(group)
            if texts is None:
                if started:
                    shown: list[Any] = self.history_for(seat)[first:first + len(events)]
                elif public:
                    shown = list(events)
                elif group == "sealed":
                    assert sealed is not None
                    shown = sealed[2]
                else:
                    shown = self._visible_records(events, seat)
                texts = []
                for offset, record in enumerate(shown):
                    key = id(record) if record is events[offset] else _record_key(record)
                    known = encoded[offset].get(key)
                    if known is None:  # (the record is kept with its text: its id stays)
                        data = (record if isinstance(record, dict)
                                else payloads[offset] if record is events[offset]
                                else event_to_dict(record))
                        known = encoded[offset][key] = (record, encode(
                            {"type": "event", "seq": first + offset, "event": data}))
                    texts.append(known[1])
                cache[group] = texts
            if group == "sealed":  # what another seat declared, sealed: a notice
                notice = _notice_of(client)
                for text in texts:
                    notice(text)
            else:
                for text in texts:
                    client.send(text)

    def _clock(self) -> float | None:
        """The deadline a ``time_left`` sent now counts to (``None``: no clock runs)."""
        return None if self.paused else self.deadline

    def _broadcast_state(self) -> None:
        """Each client gets the table as its seat may see it, worked out in two parts: the
        fields every viewer shares (:func:`public_fields`, from the spectator's view, the
        driver's public facts worked out once: :func:`table_facts`) once per change, and
        each distinct viewer's own fields (:func:`private_fields`, from its own
        allow-listed view; every spectator shares one). Protocol 1 and 2: the whole view
        (:class:`TableState`); protocol 3: what changed since the view the connection holds
        (:class:`TablePatch`; nothing when nothing changed), the public part's change
        worked out and encoded once for every connection that holds the same table, each
        viewer's own change once per viewer.

        After one sealed declaration (:attr:`_sealed`) only the declarer's own fields and
        the public ones change (what another viewer sees of it is public: nothing else of
        theirs may depend on it): every other viewer's own fields are the ones last built
        for it with its ``my_turn``; only the declarer's are built
        (``tests/test_server_patch.py`` checks every view so derived against one built
        afresh)."""
        state = self.state
        sealed, self._sealed = self._sealed, None
        if state is None:
            return
        if self.settings.companion:
            self._broadcast_companion_state()
            return
        facts = table_facts(state)
        time_left = self._time_left()
        clock = self._clock()
        old = self._private
        if sealed is not None and (self._tables_state is not sealed[0] or self._public is None):
            sealed = None
        n = state.n_seats
        wanted = {self.viewer(seat) for seat in {client.seat for client in self.clients}}
        privates: dict[int | None, dict[str, Any]] = {}
        fresh = []
        for viewer in wanted:
            before = None if sealed is None or viewer.seat == sealed[1] else old.get(viewer.seat)
            if before is None:
                fresh.append(viewer)
                continue
            turn = viewer.seat is not None and _my_turn(viewer.seat, facts)
            privates[viewer.seat] = (before if before["my_turn"] == turn
                                     else {**before, "my_turn": turn})
        # after another seat's sealed declaration, a viewer whose own fields stay (not its
        # turn now) gets the public change as a notice: it may share a later frame
        unchanged = set() if sealed is None else {
            seat for seat, private in privates.items() if private is old.get(seat)}
        # every view built at once (the work they share once); the spectator's gives the
        # public fields
        built = views.views(state, [SPECTATOR, *fresh])
        public = public_fields(state, built[0], time_left, facts)
        for viewer, seen in zip(fresh, built[1:], strict=True):
            privates[viewer.seat] = private_fields(state, seen, facts)
        texts = _Texts(public, time_left)
        sent = self._sent
        for client in self.clients:
            seat = client.seat
            if seat is not None and not 0 <= seat < n:  # as self.viewer: the spectator
                seat = None
            private = privates[seat]
            held = sent.get(client) if client.protocol >= 3 else None
            if seat in unchanged:
                if held is not None and held[2] == clock:  # (its clock not set again)
                    defer = _defer_of(client)
                    if defer is not None:  # protocol 5: one patch when the frame goes
                        defer(self._held_patch)
                        continue
                send = _notice_of(client)
            else:
                send = client.send
            if held is None:
                send(texts.whole(seat, private))
            else:
                text = texts.patch(seat, held, private, clock)
                if text is not None:
                    send(text)
            if client.protocol >= 3:
                sent[client] = (public, private, clock)
        self._public = public
        self._private = privates
        self._tables_state = state
        self._late_texts = None

    def _held_patch(self, client: Client) -> str | None:
        """Protocol 5: the :class:`TablePatch` from the table ``client`` holds to the one
        last broadcast (:meth:`_broadcast_state`), made as its frame goes: after the
        notices it held (``app.WsClient.defer_patch``) one patch covers all their changes;
        ``None`` when nothing changed. The table it then holds is recorded, as for a patch
        sent at once."""
        held = self._sent.get(client)
        public = self._public
        if held is None or public is None:  # no table held (it gets a whole one next)
            return None
        seat = client.seat
        if seat is not None and (self.state is None or not 0 <= seat < self.state.n_seats):
            seat = None
        private = self._private.get(seat)
        if private is None:  # not a viewer of the last change: a whole table next
            self._sent.pop(client, None)
            return None
        clock = self._clock()
        if held[0] is public and held[1] is private and held[2] == clock:
            return None
        texts = self._late_texts
        time_left = self._time_left()
        if texts is None:
            texts = self._late_texts = _Texts(public, time_left)
        else:  # the change's parts are shared; the seconds left are those of now
            texts.ticking = '"time_left":' + pydantic_core.to_json(time_left).decode()
        self._sent[client] = (public, private, clock)
        return texts.patch(seat, held, private, clock)

    def _broadcast_companion_state(self) -> None:
        """Companion mode: each client gets its whole view (the companion view is built
        per viewer, :func:`gutskit.server.companion.view`), under every protocol."""
        cache: dict[int | None, str] = {}
        for client in self.clients:
            seat = client.seat
            text = cache.get(seat)
            if text is None:
                companion_view = self.view_of(seat)
                assert companion_view is not None  # a state: not the lobby
                text = cache[seat] = TableState.model_construct(
                    type="state", table=companion_view).model_dump_json()
            client.send(text)
        self._sent.clear()
        self._late_texts = None
        self._public = None
        self._private = {}
        self._tables_state = None

    # -- restore -------------------------------------------------------------------------

    def restore(self, loaded: LoadedRoom) -> None:
        """Take the stored facts (:meth:`RoomManager.load`)."""
        self.status = loaded.status
        self.paused = loaded.paused
        self.session_id = loaded.session_id
        self.events = list(loaded.events)
        self.deals_dealt = sum(isinstance(e, CardsDealt) for e in self.events)
        self.state = engine.replay(self.events) if self.events else None
        self.deals = {d.round: d for d in loaded.deals}
        self.actions = {key: value for key, value in loaded.actions.items()}
        self.asks = {row.number: SeatAsk(number=row.number, client=None, name=row.name,
                                         chair=row.chair, next_game=row.next_game,
                                         approved=row.approved, token_hash=row.token_hash)
                     for row in loaded.asks}  # each waits for its requester's token
        self.ask_count = max(loaded.ask_count, *self.asks, 0)
        self._asks_stored = ([ask.row() for ask in self.asks.values()], self.ask_count)
        if self.state is not None and self.state.phase is Phase.OVER:
            self.status = "over"

    async def resume_after_restart(self) -> None:
        """Restart the clock of a room in play (a round in progress keeps its cards)."""
        async with self.lock:
            if self.state is None or self.status != "playing":
                return
            # A seat kicked before kicks were table events: remove it now.
            state, events = self.state, []
            for seat in self.seats:
                if seat.kicked and driver.can_kick(state, seat.seat) is None:
                    state, more = driver.kick(state, seat.seat,
                                              f"{seat.name} was removed by the host")
                    events.extend(more)
            if events:
                await self._persist_and_send(state, events, None)
                return
            self._resume_play()


SECRETS_KEPT = 3
"""Secret orders a room keeps worked out (:meth:`Room._secret`): the round being played,
the next one committed to, and one spare."""


def _keep_secret(kept: dict[str, tuple[fairness.DeckSecret, list[str]]], seed: str,
                 secret: fairness.DeckSecret, leaves: list[str] | None = None
                 ) -> tuple[fairness.DeckSecret, list[str]]:
    """Keep ``secret`` (of the hex ``seed``) and its leaves (worked out unless given) in
    ``kept``, the oldest dropped beyond :data:`SECRETS_KEPT`; returns them."""
    entry = (secret, fairness.leaves(secret) if leaves is None else leaves)
    kept[seed] = entry
    while len(kept) > SECRETS_KEPT:
        del kept[next(iter(kept))]
    return entry


def _per(rate: limits.RateLimitItem) -> str:
    """A chat rate in words.

    >>> [_per(rate) for rate in limits.parse_many("5/10 seconds;1/minute")]
    ['5 lines per 10 seconds', '1 line per minute']
    """
    unit = rate.GRANULARITY.name
    window = unit if rate.multiples == 1 else f"{rate.multiples} {unit}s"
    return f"{rate.amount} line{'' if rate.amount == 1 else 's'} per {window}"


def _room_id() -> str:
    return secrets.token_urlsafe(8).replace("-", "x").replace("_", "y")


class RoomManager:
    """Every room of a server, with the store they persist to."""

    def __init__(self, store: RoomStore, config: ServerConfig | None = None) -> None:
        self.store = store
        self.config = config or ServerConfig()
        self.rooms: dict[str, Room] = {}
        self.chat_rates = limits.parse_many(self.config.chat_limit)
        self.chat_limiter = limits.strategies.MovingWindowRateLimiter(
            limits.storage.MemoryStorage())
        """Chat lines per seat (:attr:`ServerConfig.chat_limit`; key: room and seat)."""
        self.new_seed: Callable[[], bytes] = fairness.new_seed
        """Where deal seeds come from (the OS CSPRNG; tests replace it)."""
        self._spare: tuple[Callable[[], bytes], bytes,
                           asyncio.Future[fairness.Prepared] | None] | None = None
        """The next seed drawn ahead, from which source, and its working out
        (:meth:`new_commitment`)."""
        self.first_dealer: Callable[[int], int] = secrets.randbelow
        """The first dealer's seat among ``n`` (drawn at random; tests replace it)."""
        self._sweeper: asyncio.Task[None] | None = None

    def start_expiry(self) -> None:
        """Start closing idle rooms (:attr:`ServerConfig.idle_minutes`; checked a few times
        per period, at least once a minute) on the running event loop."""
        if self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(self._expire_idle())

    async def _expire_idle(self) -> None:
        idle = self.config.idle_minutes * 60
        while True:
            await asyncio.sleep(min(60.0, idle / 4))
            for room in list(self.rooms.values()):
                try:
                    archived = await room.archive(idle)
                except StorageError as error:  # the database is away: try again later
                    log.warning("room %s could not be archived: %s", room.room_id, error)
                    continue
                if archived:
                    self.rooms.pop(room.room_id, None)

    async def stored_room(self, room_id: str) -> Room | str | None:
        """A room that is not open: an archived one rebuilt for reading its exports
        (not kept: archived rooms cost no memory), or the status ``"set_aside"``, or
        ``None`` when there is no such room.

        Raises:
            StorageError: the database cannot be read.
        """
        status = await self.store.run(self.store.room_status, room_id)
        if status != ARCHIVED:
            return SET_ASIDE if status == SET_ASIDE else None
        loaded = await self.store.run(self.store.load_room, room_id)
        if loaded is None:
            return None
        try:
            room = self.rebuild(loaded)
        except Exception as error:
            self.store.set_aside(room_id, error)
            return SET_ASIDE
        room.status = "over"
        return room

    def new_commitment(self, number: int, kept: dict[str, tuple[fairness.DeckSecret,
                                                                 list[str]]] | None = None
                       ) -> DealRow:
        """Version 2: a fresh secret order for round ``number`` and its commitment (its
        order and leaves added to ``kept``, a room's :meth:`Room._secret`).

        The seeds are drawn from :attr:`new_seed` in the order the commitments are asked
        for, as always; but the next one is drawn as this one is handed out and worked out
        (:func:`fairness.prepare`: 104 SHA-256 and a shuffle) on the store's database
        thread meanwhile, when it has no write to do, so the deal that asks for it finds
        it ready (else, or without a running event loop, it is worked out here, from the
        same seed)."""
        prepared = self._take_spare()
        self._prepare_spare()
        _keep_secret({} if kept is None else kept, prepared.seed.hex(), prepared.secret,
                     prepared.leaves)
        return DealRow(round=number, commitment=prepared.commitment,
                       seed=prepared.seed.hex(), revealed=False)

    def _take_spare(self) -> fairness.Prepared:
        """The seed drawn ahead, worked out (:meth:`new_commitment`); a new one when there
        is none or :attr:`new_seed` was replaced since it was drawn."""
        spare, self._spare = self._spare, None
        if spare is None or spare[0] is not self.new_seed:
            return fairness.prepare(self.new_seed())
        _, seed, future = spare
        if future is not None and future.done() and not future.cancelled() \
                and future.exception() is None:
            return future.result()
        if future is not None:  # not ready yet: its job is dropped unless it has started
            future.cancel()     # (GroupWriter skips a cancelled idle job), not done twice
        return fairness.prepare(seed)

    def _prepare_spare(self) -> None:
        """Draw the next seed and work it out on the database thread (with a running
        event loop and an open store; else it is drawn at the next commitment)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        seed = self.new_seed()
        try:
            future = self.store.writer.call(lambda: fairness.prepare(seed), idle=True)
        except RuntimeError:  # the store is closed
            future = None
        self._spare = (self.new_seed, seed, future)

    def check_request(self, request: CreateRoom) -> tuple[Rules, str]:
        """What :meth:`create` refuses in ``request`` itself (no I/O: the room creation
        rate counts only requests that pass it, ``app.create_app``).

        Returns:
            The room's rules and the host's cleaned name.

        Raises:
            ProtocolError: ``bad_rules``, ``bad_name``, or ``bad_message`` for a
                ``decision_seconds`` / ``reveal_seconds`` below the server's floor
                (:attr:`ServerConfig.min_decision_seconds`,
                :attr:`ServerConfig.min_reveal_seconds`).
        """
        for field, value, floor in (
                ("decision_seconds", request.decision_seconds, self.config.min_decision_seconds),
                ("reveal_seconds", request.reveal_seconds, self.config.min_reveal_seconds)):
            if value < floor:
                raise _fail("bad_message", f"{field}: {value:g} s is below this "
                            f"server's minimum of {floor:g} s")
        try:
            rules = rules_from_mapping(request.rules)
        except RulesError as error:
            raise _fail("bad_rules", str(error)) from None
        try:  # the buy-in against the ante and min_buy_in, then anything else the
            # engine would refuse when the session starts
            check_buy_in(rules, request.buy_in)
            engine.start_event(["seat 1", "seat 2"], request.buy_in, rules=rules)
        except (engine.IllegalActionError, RulesError) as error:
            raise _fail("bad_rules", str(error)) from None
        return rules, clean_name(request.host_name)

    async def create(self, request: CreateRoom) -> tuple[Room, str]:
        """A new room from ``request`` with its host in seat 0.

        Returns:
            The room and the host's secret seat token.

        Raises:
            ProtocolError: what :meth:`check_request` refuses; ``server_full`` when
                :attr:`ServerConfig.max_rooms` rooms are open.
            StorageError: the database cannot be read.
        """
        most = self.config.max_rooms
        if await self.store.run(self.store.count_rooms) >= most:
            raise _fail("server_full", f"this server already has {most} open rooms, the "
                        "most it holds; try again later (a room closes after "
                        f"{self.config.idle_minutes:g} idle minutes)")
        rules, name = self.check_request(request)
        strength_table(rules.ranking)  # built once per ranking: now, not at the first showdown
        settings = RoomSettings(rules=rules, buy_in=request.buy_in,
                                decision_seconds=request.decision_seconds,
                                reveal_seconds=request.reveal_seconds,
                                seed_reveal=request.seed_reveal,
                                companion=request.companion,
                                approve_seats=request.approve_seats)
        token = secrets.token_urlsafe(24)
        host = SeatRow(seat=0, name=name, token_hash=hash_token(token), bot_style=None,
                       host=True, kicked=False, chair=0)
        room_id = _room_id()
        await self.store.run(self.store.create_room, room_id, settings.to_json(), host)
        room = Room(self, room_id, settings, [host])
        if settings.seed_reveal == "shown" and not settings.companion:  # round 1 committed
            first = self.new_commitment(1)
            await self.store.run(self.store.put_deal, room_id, first)
            room.deals[1] = first
        self.rooms[room_id] = room
        return room, token

    async def open_rematch(self, settings: RoomSettings, seats: list[SeatRow]) -> Room:
        """A new room in the lobby for a rematch (:meth:`Room._rematch`): ``settings``
        and ``seats`` (numbered, in chair order) as they are.

        Raises:
            ProtocolError: ``server_full`` (:attr:`ServerConfig.max_rooms`).
            StorageError: the database cannot be written.
        """
        most = self.config.max_rooms
        if await self.store.run(self.store.count_rooms) >= most:
            raise _fail("server_full", f"this server already has {most} open rooms, the "
                        "most it holds; try again later")
        room_id = _room_id()
        await self.store.run(self.store.create_room, room_id, settings.to_json(), *seats)
        room = Room(self, room_id, settings, seats)
        if settings.seed_reveal == "shown" and not settings.companion:  # round 1 committed
            first = self.new_commitment(1)
            await self.store.run(self.store.put_deal, room_id, first)
            room.deals[1] = first
        self.rooms[room_id] = room
        return room

    def load(self) -> list[Room]:
        """Rebuild every stored room but the archived and set-aside ones (call
        :meth:`Room.resume_after_restart` on each once the event loop runs). A room whose
        stored events fail to load or replay is set aside (:meth:`RoomStore.set_aside`:
        logged, marked in the store) and the others are served."""
        rooms = []
        for loaded in self.store.load_rooms():
            try:
                room = self.rebuild(loaded)
            except Exception as error:  # one bad room must not stop the server
                self.store.set_aside(loaded.room_id, error)
                continue
            self.rooms[room.room_id] = room
            rooms.append(room)
        return rooms

    def rebuild(self, loaded: LoadedRoom) -> Room:
        """A room from its stored facts (its state replayed from its events).

        Raises:
            Exception: whatever the stored facts make the rules or the engine raise (a
                room that cannot be rebuilt; :meth:`load` sets it aside).
        """
        room = Room(self, loaded.room_id, RoomSettings.from_json(loaded.settings),
                    loaded.seats)
        strength_table(room.settings.rules.ranking)
        room.restore(loaded)
        return room

    def close(self) -> None:
        """Stop every room's tasks and the idle expiry (cancelled: :meth:`aclose` also
        waits until they have ended)."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        for room in self.rooms.values():
            room.close()

    async def aclose(self) -> None:
        """:meth:`close`, then wait until the idle expiry and every room's tasks have
        ended: what ``guts serve`` does before it closes the store, so no bot's action or
        timeout still running writes to a closed store (session 12 F3: "Task exception was
        never retrieved ... RuntimeError('the store is closed')" at SIGTERM)."""
        self.close()
        sweeper, self._sweeper = self._sweeper, None
        for _ in range(100):  # a task ending may start another: cancelled at once (closed)
            tasks = [t for room in self.rooms.values() for t in room.running()]
            if sweeper is not None and not sweeper.done():
                tasks.append(sweeper)
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)
