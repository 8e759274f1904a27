"""The WebSocket JSON protocol between ``guts serve`` and its clients (version 5; the
server also speaks versions 1 to 4).

Every message is one JSON object with a ``"type"`` field naming one of the models below.
A client sends one message per WebSocket text frame. The server sends, under version 1,
one message per frame; under versions 2 and 3 (after a :class:`Hello` saying so), one
frame per change: a JSON array of the messages of that change, in order (its events,
fairness records, the new table view, the ack; :data:`PROTOCOL_VERSIONS`). Under version
3 the new table view after the first is a :class:`TablePatch`: only the fields that
changed. Version 4 is version 3 without the fairness openings pushed to every connection
(:data:`OPENINGS_PUSHED_BELOW`); version 5 is version 4 with notices held for the
connection's next frame (:data:`NOTICES_HELD_FROM`). Clients send
:data:`ClientMessage` (validated strictly: unknown fields, wrong types and unknown types
are refused with an :class:`Error` of code ``bad_message``); the server sends
:data:`ServerMessage`. The full reference with examples,
the connection and reconnect flow and the error codes is in ``docs/protocol.md``.

Cards are written as in hand histories (:mod:`gutskit.core.history`): ``"As"``, ``"Td"``, ``"2c"``;
a hand is a list of card names. Chips are integers. Seats are 0-based, clockwise.

What a client receives is always built from :func:`gutskit.core.views.view_for` /
:func:`gutskit.core.views.visible_events` for its own seat (or the public view for a spectator):
never another player's cards before a showdown, never an out player's cards, never a sealed
declaration before the reveal.

>>> parse_client_message('{"type": "declare", "round": 3, "action_id": "a1", '
...                      '"declaration": "in"}')
Declare(type='declare', round=3, action_id='a1', declaration='in', coach=False)
>>> parse_client_message('{"type": "fold"}')
Traceback (most recent call last):
...
gutskit.server.protocol.ProtocolError: bad_message: unknown message type 'fold'
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from gutskit.core.errors import GutsError
from gutskit.core.limits import MAX_CHIPS

PROTOCOL_VERSION = 5
"""The newest protocol version (what the browser table states in :class:`Hello`).
Incompatible changes bump it."""

PROTOCOL_VERSIONS = (1, 2, 3, 4, 5)
"""The versions the server speaks; :class:`Welcome` echoes the client's. Version 1 sends
each server message in its own WebSocket frame; versions 2 and 3 send the messages queued
for a connection in one turn of the server's event loop (one change) as one frame holding
a JSON array of them (messages sent before such a ``hello`` is accepted, errors, are
single objects). Versions 1 and 2 send the whole table view (:class:`TableState`) after
every change; versions 3 and 4 send it whole in :class:`Welcome` (and in a
:class:`TableState` when a connection has none yet) and after that only what changed, a
:class:`TablePatch`. Version 4 does not push :class:`FairnessOpening`
(:data:`OPENINGS_PUSHED_BELOW`). Version 5 sends the same messages as version 4, but a
notice (another seat's sealed declaration) waits for the connection's next frame
(:data:`NOTICES_HELD_FROM`)."""

NOTICES_HELD_FROM = 5
"""From this protocol version a notice (another seat's sealed declaration, while the
round is still being declared, for a connection whose own fields it leaves as they were)
is held for the next frame the connection gets anyway, at most ``app.NOTICE_HOLD``
seconds, and the table's change with it is one patch made when that frame goes (for all
the notices held), not a patch per notice. The client gets the same events, in order, and
ends with the same table as under version 4."""

OPENINGS_PUSHED_BELOW = 4
"""Connections of a protocol version below this one get every round's
:class:`FairnessOpening` as it is made (and those made so far on connect); from version 4
they are only in ``fairness.json`` (``GET /api/rooms/<id>/fairness.json``), where a
verifier reads them: about 4 KiB per round that no table shows, more than half of what a
six-seat round sent every seat."""

MAX_MESSAGE_BYTES = 4096
"""Largest client message the server reads; a larger frame is refused (``too_large``)."""

MAX_JSON_DEPTH = 32
"""Deepest nesting of arrays and objects accepted in a client message or an HTTP body
(a message is at most 2 levels deep; the house rules of ``POST /api/rooms`` 2 more); a
deeper one is refused (``too_deep``) before it is parsed, so no handler ever recurses
past it."""

CHAT_KEPT = 50
"""Chat lines a room keeps (in memory) for connections that arrive later (:class:`Welcome`)."""

# MAX_CHIPS (gutskit.core.limits, the one bound of every front end): the largest chip
# amount a client may send (a buy-in, a rebuy): stacks, pots and ledgers stay far inside
# the integers a browser holds exactly (JavaScript: 2**53). A larger one is refused with
# bad_message naming the field. The whole numbers of the house rules (the ante, pot_cap,
# min_buy_in, max_rebuys) are bounded by the core's Rules (gutskit.core.rules.BOUNDED):
# bad_rules, with the message every front end gives.

Chips = Annotated[int, Field(ge=1, le=MAX_CHIPS)]
"""A chip amount a client sends: 1 to :data:`MAX_CHIPS`."""

__all__ = [
    "ACTION_TYPES",
    "CHAT_KEPT",
    "ERROR_CODES",
    "MAX_CHAT",
    "MAX_CHIPS",
    "MAX_JSON_DEPTH",
    "MAX_MESSAGE_BYTES",
    "NOTICES_HELD_FROM",
    "OPENINGS_PUSHED_BELOW",
    "PROTOCOL_VERSION",
    "PROTOCOL_VERSIONS",
    "REACTIONS",
    "SEATS",
    "Ack",
    "AddBot",
    "ApproveRebuy",
    "ApproveSeat",
    "CallMisdeal",
    "Chat",
    "ChatLine",
    "Chips",
    "ClientMessage",
    "ClientSeed",
    "Coach",
    "ComeBack",
    "CompanionShowdown",
    "CompanionView",
    "CreateRoom",
    "CreatedRoom",
    "DealRound",
    "Declare",
    "DenyRebuy",
    "DenySeat",
    "EndSession",
    "Error",
    "EventMessage",
    "FairnessCommitment",
    "FairnessDealt",
    "FairnessOpening",
    "FairnessReveal",
    "FairnessSession",
    "Hello",
    "Join",
    "Kick",
    "Kicked",
    "Leave",
    "LobbySeat",
    "MatchQuote",
    "Mute",
    "NameWinners",
    "PassCard",
    "Pause",
    "Ping",
    "Pong",
    "Presence",
    "ProtocolError",
    "React",
    "Rebuy",
    "RebuyRequest",
    "Rematch",
    "RematchOpened",
    "Resume",
    "RoomInfo",
    "RoomUpdate",
    "SeatPending",
    "SeatRefused",
    "SeatRequest",
    "Seated",
    "ServerMessage",
    "ShowCards",
    "ShowHand",
    "ShownEntry",
    "SitOut",
    "Start",
    "StartCount",
    "TablePatch",
    "TableState",
    "TableView",
    "TimedOut",
    "UndoRound",
    "Welcome",
    "check_json_depth",
    "describe_body_error",
    "parse_client_message",
]

ERROR_CODES: dict[str, str] = {
    "bad_message": "not JSON, unknown type, missing or wrong field (the message says which)",
    "too_large": f"the frame is larger than {MAX_MESSAGE_BYTES} bytes",
    "too_deep": f"arrays and objects nested more than {MAX_JSON_DEPTH} levels deep",
    "unsupported_version": "hello.protocol is not a version this server speaks",
    "hello_required": "the first message must be hello",
    "no_room": "no room has this id (the connection is then closed, code 4404)",
    "room_closed": "the room was closed after being idle; its exports are still served "
                   "(the connection is then closed, code 4404)",
    "room_set_aside": "the room's stored events could not be rebuilt; it is set aside "
                      "(the connection is then closed, code 4404)",
    "rate_limited": "too many messages (or rooms created); slow down (nothing changes)",
    "server_full": "the server holds the most open rooms it takes; try again later "
                   "(HTTP 503 at room creation)",
    "too_many_connections": "the room or your address holds the most connections allowed "
                            "(the connection is then closed, code 1008)",
    "hello_timeout": "no hello soon enough after connecting (the connection is then "
                     "closed, code 1008)",
    "bad_token": "the seat token is unknown, revoked (kicked) or belongs to another room",
    "not_host": "only the host may do this",
    "not_seated": "a spectator cannot act; join first",
    "already_seated": "this connection already holds a seat",
    "room_full": "all 10 seats are taken",
    "name_taken": "another seat has this name",
    "bad_name": "a name must be 1 to 24 printable characters",
    "not_in_lobby": "seats can change only before the session starts",
    "not_playing": "the session has not started or is over",
    "stale_round": "the action names a round that is not the one being declared",
    "illegal_action": "the rules do not allow this now (the message says why)",
    "entries_conflict": "companion showdown: a card was entered twice across the entries; "
                        "every entry was cleared (no card or seat is named)",
    "already_seeded": "this seat already sent its client seed for that round",
    "bad_rules": "the house rules are invalid (the message names the rule)",
    "muted": "the host muted your chat",
    "seat_taken": "the seat asked for is taken (or asked for by someone waiting)",
    "already_asked": "this connection already waits for an answer to its seat request",
    "server_error": "the database could not store the action; nothing changed (retry)",
}
"""Every :class:`Error` code and what it means."""


MESSAGE_LIMIT = 300
"""Characters an error message sent to a client may have: a longer one (it quoted a value
the client sent, e.g. a 4000-digit round number) is cut, ending in "…", so an error never
echoes a message's bulk back (attack12 F5)."""


class ProtocolError(GutsError):
    """A client message that cannot be accepted. ``code`` is one of :data:`ERROR_CODES`;
    ``message`` says why, cut to :data:`MESSAGE_LIMIT` characters."""

    def __init__(self, code: str, message: str) -> None:
        if len(message) > MESSAGE_LIMIT:
            message = message[:MESSAGE_LIMIT - 1] + "…"
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class _Message(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


# ---------------------------------------------------------------------------------------------
# HTTP bodies (the lobby page creates a room over HTTP, then opens the WebSocket).


class CreateRoom(_Message):
    """``POST /api/rooms``: the host creates a room and takes seat 0.

    Attributes:
        host_name: the host's player name (1-24 characters).
        rules: house rules (``{"preset": "german-2card", "pot_cap": 50}``; every key of
            :class:`gutskit.core.rules.Rules` or ``"preset"``); empty = the defaults.
            Checked by :func:`gutskit.core.rules.rules_from_mapping` when the room is made
            (``bad_rules``: every whole number at most :data:`MAX_CHIPS`, as in every
            front end).
        buy_in: chips each player brings (every seat starts with the same stack), 1 to
            :data:`MAX_CHIPS`.
        decision_seconds: the declaration timer; a seat silent when it ends counts as out.
        reveal_seconds: pause after a round is resolved before the next deal (the reveal).
        seed_reveal: how the deals are proved fair (docs/fairness.md): ``"shown"`` (the
            default: per-card commitments, only the cards shown are opened, players add
            client seeds; out hands stay private), or the version-1 full-seed reveal,
            which lets anyone compute every hand of a round *including the out hands*:
            ``"round"`` (after each round) or ``"session"`` (when the session ends).
    """

    host_name: str
    rules: dict[str, Any] = Field(default_factory=dict)
    buy_in: Chips = 100
    decision_seconds: float = Field(30.0, gt=0, le=600)
    reveal_seconds: float = Field(3.0, ge=0, le=60)
    seed_reveal: Literal["shown", "round", "session"] = "shown"
    companion: bool = False
    """Companion mode (docs/companion.md): the cards are dealt at a real table, the phones
    declare and enter the cards shown; no deck, no timer, no bots (``seed_reveal`` and
    ``decision_seconds`` are not used)."""
    approve_seats: bool = False
    """Host approval of who sits down: a :class:`Join` waits for the host's
    :class:`ApproveSeat` / :class:`DenySeat` (off by default: a free seat is taken at
    once)."""


class CreatedRoom(_Message):
    """Answer to ``POST /api/rooms``.

    Attributes:
        room_id: the room's id (URL-safe).
        url: the invite link, ``http://HOST:PORT/r/<room_id>``.
        seat: the host's seat (0).
        token: the host's secret seat token (send it in :class:`Hello` to take the seat;
            keep it in the browser's storage to reconnect).
    """

    room_id: str
    url: str
    seat: int
    token: str


# ---------------------------------------------------------------------------------------------
# Client -> server.


class Hello(_Message):
    """First message on a connection to ``/ws/<room_id>``.

    Attributes:
        protocol: the client's protocol version (one of :data:`PROTOCOL_VERSIONS`; it
            sets the framing of what the server sends on this connection).
        token: a seat token (from :class:`CreatedRoom` or :class:`Seated`) to take (or take
            back, after a reconnect) that seat, or a seat request's token
            (:class:`SeatPending`) to take the request back after a server restart;
            ``None`` to watch as a spectator.
    """

    type: Literal["hello"] = "hello"
    protocol: int
    token: str | None = None


SEATS = 10
"""Seats (chairs) around a table, numbered 0..9 clockwise; the host sits in seat 0."""


class Join(_Message):
    """Take a free seat, or ask for one.

    In the lobby the seat is taken at once (answered by :class:`Seated`), or, in a room
    with host approval (:attr:`CreateRoom.approve_seats`), asked for (answered by
    :class:`SeatPending`, then :class:`Seated` or :class:`SeatRefused`). During or after
    a session a spectator asks to sit **for the next session** (the rematch,
    :class:`Rematch`): answered by :class:`SeatPending` with ``next_game`` true.

    Attributes:
        name: the player name (1-24 printable characters).
        seat: the chair wanted, 0 to 9 clockwise (:data:`SEATS`); ``None``: the lowest
            free one. Clockwise order decides the dealer button's moves and the order of
            sequential declaration.
    """

    type: Literal["join"] = "join"
    name: str
    seat: int | None = Field(None, ge=0, le=SEATS - 1)


class ApproveSeat(_Message):
    """Host: let the player of seat request ``request`` (:attr:`RoomInfo.seat_requests`)
    sit down (in the lobby at once; a request for the next session at the rematch)."""

    type: Literal["approve_seat"] = "approve_seat"
    request: int


class DenySeat(_Message):
    """Host: refuse seat request ``request``; the requester watches on as a spectator
    (:class:`SeatRefused`)."""

    type: Literal["deny_seat"] = "deny_seat"
    request: int


class Rematch(_Message):
    """Host, once the session is over: open a new session with the same rules and the
    players still seated (bots keep their seats; players who left or were removed are not
    seated again; the spectators whose request to sit was granted join them), in a new
    room linked to this one (:attr:`RoomInfo.next_room`).

    Attributes:
        ledger: ``"carried"``: the running ledger keeps adding up across the sessions
            (each player's net so far is carried into the new room's ledger);
            ``"reset"``: the new session's ledger starts from zero.
    """

    type: Literal["rematch"] = "rematch"
    ledger: Literal["carried", "reset"]


class Leave(_Message):
    """Give up one's seat; the connection stays as a spectator. Before the session the seat
    is freed; during it the seat leaves for good (:func:`gutskit.core.table.leave`: never
    dealt in again, its chips stay in the ledger, a decision it owes this round is made
    for it)."""

    type: Literal["leave"] = "leave"


DeclarationName = Literal["in", "out", "high", "low", "both"]
"""A declaration: ``in``/``out``; under Hi-Lo Guts (``hi_lo``) ``high``/``low``/``both``/
``out`` (:attr:`TableView.legal_declarations` lists what the rules allow)."""


_IN_OUT: list[DeclarationName] = ["in", "out"]


class Declare(_Message):
    """Declare for round ``round`` (:attr:`TableView.round`): ``declaration`` is one of
    :attr:`TableView.legal_declarations`.

    ``action_id`` is chosen by the client (unique per action, at most 64 characters): a
    repeated ``action_id`` is acknowledged again and applied once; a ``round`` that is not
    the one being declared is refused (``stale_round``). ``coach``: also send this
    connection (only) a :class:`Coach` message about its hand after the :class:`Ack`.
    """

    type: Literal["declare"] = "declare"
    round: int
    action_id: str = Field(min_length=1, max_length=64)
    declaration: str = Field(max_length=64)  # checked by the room against its rules
    coach: bool = False


class PassCard(_Message):
    """Pass the Trash (``pass_the_trash``): choose the card (``"7h"``, one of your own) that
    goes to the next seat on your left in round ``round``; all passes are exchanged at once
    when every seat has chosen (or the timer ends: the lowest card is passed for a silent
    seat). ``action_id`` as in :class:`Declare`."""

    type: Literal["pass_card"] = "pass_card"
    round: int
    action_id: str = Field(min_length=1, max_length=64)
    card: str = Field(min_length=2, max_length=3)


BotStyle = Literal["equilibrium", "standard", "rule-of-thumb", "exploitative", "cautious",
                   "loose"]
"""The bots a host may seat, by style and strength (:data:`gutskit.strategy.strategies.BOT_KINDS`):
``equilibrium`` (the solver's symmetric equilibrium; the rule of thumb where the solver does
not model the rules), ``standard`` (the rule-of-thumb bot: the rule books' rule of thumb;
``rule-of-thumb``, the name the CLI and the browser show, is accepted and read as
``standard``, the value stored and sent as ``LobbySeat.bot_style``), ``exploitative``
(learns each opponent and best-responds), ``cautious`` / ``loose`` (the rule of thumb,
tighter / looser)."""


class AddBot(_Message):
    """Host: seat a bot (before the session starts) of ``style`` (:data:`BotStyle`;
    ``rule-of-thumb`` is read as ``standard``)."""

    type: Literal["add_bot"] = "add_bot"
    style: BotStyle = "standard"

    @field_validator("style")
    @classmethod
    def _one_wire_name(cls, value: str) -> str:
        return "standard" if value == "rule-of-thumb" else value  # the one translation


class Kick(_Message):
    """Host: remove a seat. Before the session: the seat is freed. During the session: the
    seat's token is revoked and the seat is removed for good
    (:func:`gutskit.core.table.kick`): never dealt in or anteing again, a decision it owes
    this round is made for it, its chips stay its own in the ledger."""

    type: Literal["kick"] = "kick"
    seat: int


class Rebuy(_Message):
    """Ask to buy ``chips`` more (1 to :data:`MAX_CHIPS`; a rebuy, or a top-up of a short
    stack; ``rebuys``): refused
    unless the rules would allow it at the next break between rounds
    (:func:`gutskit.core.table.can_rebuy_later`). The host approves it
    (:class:`ApproveRebuy`); it is applied between rounds. Pending requests are listed in
    :attr:`RoomInfo.rebuy_requests`."""

    type: Literal["rebuy"] = "rebuy"
    chips: Chips


class SitOut(_Message):
    """Go away (sit out): the seat and its chips stay, it is dealt out from the next deal
    (:func:`gutskit.core.table.sit_out`; a round in progress is played out). Seated, in
    play."""

    type: Literal["sit_out"] = "sit_out"


class ComeBack(_Message):
    """Come back from away: for the next game (:func:`gutskit.core.table.can_come_back`).
    Asked in the middle of a game, the return is listed in :attr:`LobbySeat.back_next_game`
    and made when the pot is empty between rounds."""

    type: Literal["come_back"] = "come_back"


class ShowHand(_Message):
    """Show your cards to the table after your uncontested win (between that round and the
    next deal; :func:`gutskit.core.table.can_show_hand`, :attr:`TableView.can_show`):
    everyone then receives the public ``HandShown`` event. Optional: the rule books let
    the winner keep them hidden."""

    type: Literal["show_hand"] = "show_hand"


class ApproveRebuy(_Message):
    """Host: approve the pending rebuy of ``seat`` (applied at once between rounds, else at
    the next break; dropped with an error if the rules no longer allow it then)."""

    type: Literal["approve_rebuy"] = "approve_rebuy"
    seat: int


class DenyRebuy(_Message):
    """Host: refuse the pending rebuy of ``seat`` (it is dropped; the seat may ask again)."""

    type: Literal["deny_rebuy"] = "deny_rebuy"
    seat: int


class Start(_Message):
    """Host: start the session with the seated players (2 to 10) and deal the first round."""

    type: Literal["start"] = "start"


class Pause(_Message):
    """Host: stop the clock; no new deal until :class:`Resume`. Declarations already
    made stay sealed; seats may still declare."""

    type: Literal["pause"] = "pause"


class Resume(_Message):
    """Host: restart the clock (the declaration timer restarts in full)."""

    type: Literal["resume"] = "resume"


class EndSession(_Message):
    """Host: end the session now (the pot and any reserve are shared out,
    :func:`gutskit.core.engine.end_session`); the ledger is final."""

    type: Literal["end_session"] = "end_session"


class Ping(_Message):
    """Keep-alive; answered by :class:`Pong`."""

    type: Literal["ping"] = "ping"


class ClientSeed(_Message):
    """Your randomness for the deal of round ``round`` (``seed_reveal = "shown"``): 16 to
    64 bytes as hex, sent after that round's :class:`FairnessCommitment` and before its
    deal; one per seat and round (a second is refused with ``already_seeded``). Seated
    players only; the seeds mixed into a deal are published with it
    (:class:`FairnessDealt`). With an ``action_id`` (optional) a seed taken is answered
    :class:`Ack` once it is stored (mixed into that deal after a restart too); without
    one, by nothing until the deal."""

    type: Literal["client_seed"] = "client_seed"
    round: int = Field(ge=1)
    seed: str = Field(min_length=32, max_length=128)
    action_id: str | None = Field(default=None, min_length=1, max_length=64)


MAX_CHAT = 200
"""Longest chat line (characters, after stripping); a longer one is refused
(``bad_message``)."""

REACTIONS = ("👍", "👏", "😂", "😮", "😢", "🔥", "🍀", "🙈")
"""The emoji reactions a seat may send (:class:`React`)."""

Reaction = Literal["👍", "👏", "😂", "😮", "😢", "🔥", "🍀", "🙈"]


class Chat(_Message):
    """Seated: say ``text`` (1 to :data:`MAX_CHAT` printable characters) to the table. Chat
    is not game state: it never touches the engine or the hand history, and it is kept in
    memory only (the last :data:`CHAT_KEPT` lines, lost when the server restarts).
    Spectators read the chat but may not write (``not_seated``); a muted seat is refused
    (``muted``); each seat may send chat and reactions at the room's chat rate
    (``rate_limited``; ``docs/protocol.md``, "Limits")."""

    type: Literal["chat"] = "chat"
    text: str = Field(min_length=1, max_length=MAX_CHAT)


class React(_Message):
    """Seated: an emoji reaction (one of :data:`REACTIONS`), as :class:`Chat`."""

    type: Literal["react"] = "react"
    emoji: Reaction


class Mute(_Message):
    """Host: mute (``muted`` true) or unmute a seat's chat and reactions
    (:attr:`LobbySeat.muted`)."""

    type: Literal["mute"] = "mute"
    seat: int
    muted: bool = True


# -- companion mode (docs/companion.md): a real table deals ------------------------------

CardText = Annotated[str, Field(min_length=2, max_length=3)]
"""A card as text (``"Ah"``, ``"Td"``, ``"10d"``)."""


class DealRound(_Message):
    """Companion mode: the cards of round ``round`` (:attr:`TableView.round` + 1) were dealt
    at the real table; the antes due are posted and the declarations open
    (:func:`gutskit.core.table.deal`). The host or the dealer
    (:attr:`TableView.dealer`) sends it; :attr:`TableView.may_deal` says when."""

    type: Literal["deal"] = "deal"
    round: int


class StartCount(_Message):
    """Companion mode under 1-2-3 drop: the host or the dealer starts the count of round
    ``round`` before every fist is in (it starts by itself when the last one is in). The
    server runs the count (:attr:`CompanionView.count`); when it ends, whoever has not
    dropped is in and the fists open on every phone (:func:`gutskit.core.table.open_fists`).
    :attr:`CompanionView.may_count` says when."""

    type: Literal["count"] = "count"
    round: int


class ShowCards(_Message):
    """Companion mode, at the showdown of round ``round``: the cards ``seat`` shows
    (``None``: the sender's own seat; only the host enters another seat's), and the
    ghost hand / community card (host only) when the rules deal them. Entries are kept by
    the server until every card :attr:`CompanionShowdown.seats` needs is in, then the
    round is settled at once (:func:`gutskit.core.table.show_cards`); until then an
    entry is seen only by whoever made it. A seat may enter again to correct its entry."""

    type: Literal["show_cards"] = "show_cards"
    round: int
    seat: int | None = None
    cards: list[CardText] | None = Field(None, max_length=10)
    ghost: list[CardText] | None = Field(None, max_length=10)
    community: list[CardText] | None = Field(None, max_length=10)


class NameWinners(_Message):
    """Companion mode, host: the table names the winners of round ``round`` instead of
    entering cards (:func:`gutskit.core.table.name_winners`: ``winners`` (Hi-Lo: the high
    side), ``low_winners`` (Hi-Lo), ``losers`` (``losers_pay = "worst"``); ``[]`` with a
    ghost hand: the ghost won)."""

    type: Literal["name_winners"] = "name_winners"
    round: int
    winners: list[int] = Field(max_length=10)
    low_winners: list[int] = Field(default_factory=list, max_length=10)
    losers: list[int] | None = Field(None, max_length=10)


class CallMisdeal(_Message):
    """Companion mode, host: round ``round`` is a misdeal (:func:`gutskit.core.table.misdeal`:
    the antes stay, the same dealer deals again)."""

    type: Literal["misdeal"] = "misdeal"
    round: int


class UndoRound(_Message):
    """Companion mode, host: undo round ``round``, the last one (settled and not followed
    by a deal, or still in progress; :func:`gutskit.core.table.undo_round`: every chip
    back, kept in the history as ``RoundUndone``)."""

    type: Literal["undo_round"] = "undo_round"
    round: int


ClientMessage = Annotated[
    Hello | Join | Leave | Declare | PassCard | AddBot | Kick | Start | Pause | Resume | EndSession
    | Ping | ClientSeed | Rebuy | ApproveRebuy | DenyRebuy | SitOut | ComeBack | Chat | React
    | Mute | DealRound | StartCount | ShowCards | NameWinners | CallMisdeal | UndoRound
    | ShowHand | ApproveSeat | DenySeat | Rematch,
    Field(discriminator="type"),
]
"""Any message a client may send."""

_CLIENT = TypeAdapter[ClientMessage](ClientMessage)

ACTION_TYPES = frozenset(
    model.model_fields["type"].default for model in get_args(get_args(ClientMessage)[0])
    if "action_id" in model.model_fields)
"""The ``type`` of every client message that carries an ``action_id`` (an action the
client retries until it is answered: ``declare``, ``pass_card``, ``client_seed``)."""


def check_json_depth(data: str | bytes, limit: int = MAX_JSON_DEPTH) -> None:
    """Refuse JSON text whose arrays and objects nest more than ``limit`` levels, without
    parsing it (a scan that skips strings; text with at most ``limit`` brackets in all is
    passed at once). Malformed text is left to the parser.

    >>> check_json_depth('{"a": [1, {"b": "[[[["}]}', limit=3)
    >>> check_json_depth("[" * 5 + "]" * 5, limit=3)
    Traceback (most recent call last):
    ...
    gutskit.server.protocol.ProtocolError: too_deep: JSON nested more than 3 levels deep

    Raises:
        ProtocolError: ``too_deep``.
    """
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    if text.count("[") + text.count("{") <= limit:
        return
    depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                raise ProtocolError("too_deep", f"JSON nested more than {limit} levels deep")
        elif char in "]}":
            depth -= 1


def parse_client_message(data: str | bytes) -> ClientMessage:
    """Validate one client frame.

    Raises:
        ProtocolError: ``too_large`` (over :data:`MAX_MESSAGE_BYTES`), ``too_deep`` (over
            :data:`MAX_JSON_DEPTH`) or ``bad_message`` (not JSON, not an object, unknown
            type, bad field; the message says which).
    """
    if len(data) > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", f"message of {len(data)} bytes; the limit is "
                            f"{MAX_MESSAGE_BYTES}")
    check_json_depth(data)
    try:
        raw = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as error:
        raise ProtocolError("bad_message", f"not JSON: {error}") from None
    if not isinstance(raw, dict):
        raise ProtocolError("bad_message", "a message must be a JSON object")
    try:
        return _CLIENT.validate_python(raw)
    except ValidationError as error:
        raise ProtocolError("bad_message", _describe(error, raw)) from None


def _describe(error: ValidationError, raw: dict[str, Any], whole: str = "message") -> str:
    parts = []
    for item in error.errors():
        if item["type"] == "union_tag_invalid":
            return f"unknown message type {raw.get('type')!r}"
        if item["type"] == "union_tag_not_found":
            return "a message needs a \"type\" field"
        loc = ".".join(str(p) for p in item["loc"]) or whole
        msg = str(item["msg"]).lower()
        if item["type"] == "missing":
            parts.append(f"{loc}: field required")
        else:
            parts.append(f"{loc}: {msg} (got {quoted_input(item.get('input'))})")
    return "; ".join(parts)


QUOTED = 40
"""The most characters of a client's bad value quoted back in an error message."""


def quoted_input(value: Any) -> str:
    """A client's bad value as an error message quotes it: as JSON, bytes decoded first
    (an HTTP body that is not JSON), cut to :data:`QUOTED` characters with its length
    when longer (a 5000-digit number is not sent back whole).

    >>> print(quoted_input(0), quoted_input("30"), quoted_input(b"[1, 2"))
    0 "30" "[1, 2"
    >>> print(quoted_input(b"[" + b"9" * 5000 + b"]"))
    "[9999999999999999999999999… (5002 characters)
    """
    if isinstance(value, bytes | bytearray):
        value = bytes(value).decode("utf-8", "replace")
    if isinstance(value, str) and len(value) > QUOTED:
        return f"{json.dumps(value[:QUOTED - 14])[:-1]}… ({len(value)} characters)"
    text = json.dumps(value, default=str)
    if len(text) > QUOTED:
        return f"{text[:QUOTED - 14]}… ({len(text)} characters)"
    return text


def describe_body_error(error: ValidationError) -> str:
    """One line naming each bad field of an HTTP body (``POST /api/rooms``), e.g.
    ``"buy_in: input should be greater than or equal to 1 (got 0)"``; ``body: ...`` when
    the body itself is not a JSON object."""
    return _describe(error, {}, whole="body")


# ---------------------------------------------------------------------------------------------
# Server -> client.


class LobbySeat(_Message):
    """A seat as everyone sees it: name, bot or human, host, connected, kicked; ``away``
    (sat out: dealt out, :class:`SitOut`), ``back_next_game`` (away, its return asked for:
    made when the next game starts, :class:`ComeBack`); ``muted`` (the host muted its chat,
    :class:`Mute`)."""

    seat: int
    name: str
    bot: bool
    host: bool
    connected: bool
    kicked: bool
    bot_style: str | None = None
    away: bool = False
    back_next_game: bool = False
    muted: bool = False
    chair: int = 0
    """The seat's chair around the table (0-9 clockwise, :attr:`Join.seat`); ``seat`` is
    its place in the session's seat order (the chairs taken, in clockwise order)."""


class SeatRequest(_Message):
    """A request to sit down (:class:`Join`) waiting for the host (public: a name and a
    chair, nothing else).

    Attributes:
        request: its number (what :class:`ApproveSeat` / :class:`DenySeat` name).
        name: the name asked for.
        chair: the chair asked for (0-9).
        next_game: for the next session (asked during or after a session).
        approved: the host granted it (a next-session request waits for the rematch).
    """

    request: int
    name: str
    chair: int
    next_game: bool
    approved: bool


class RebuyRequest(_Message):
    """A seat's pending rebuy (:class:`Rebuy`): ``chips``, and whether the host approved it."""

    seat: int
    chips: int
    approved: bool


class RoomInfo(_Message):
    """The public facts of a room (same for every recipient).

    Attributes:
        room_id: the room id.
        status: ``"lobby"`` (seats open), ``"playing"``, ``"over"``.
        paused: the host paused the table.
        seats: the seats in order.
        rules: every house rule and its value (:meth:`gutskit.core.rules.Rules.to_dict`).
        buy_in: each seat's starting stack.
        decision_seconds, reveal_seconds, seed_reveal: see :class:`CreateRoom`.
        spectators: number of connected spectators.
        rebuy_requests: pending rebuys (:class:`Rebuy`), by seat.
        companion: a companion room (:attr:`CreateRoom.companion`): a real table deals.
        approve_seats: the host approves who sits down (:attr:`CreateRoom.approve_seats`).
        seat_requests: the requests to sit down (:class:`SeatRequest`), oldest first.
        previous_room: the room whose rematch this room is (``None``: the first session).
        next_room: the room of this session's rematch (:class:`Rematch`), once opened.
        ledger_carried: this room's ledger carries the nets of the earlier sessions.
    """

    room_id: str
    status: Literal["lobby", "playing", "over"]
    paused: bool
    seats: list[LobbySeat]
    rules: dict[str, Any]
    buy_in: int
    decision_seconds: float
    reveal_seconds: float
    seed_reveal: Literal["shown", "round", "session"]
    spectators: int
    rebuy_requests: list[RebuyRequest] = []
    companion: bool = False
    approve_seats: bool = False
    seat_requests: list[SeatRequest] = []
    previous_room: str | None = None
    next_room: str | None = None
    ledger_carried: bool = False


class MatchQuote(_Message):
    """What the recipient would pay if it declared ``declaration`` and was beaten
    (:class:`gutskit.core.table.MatchQuote`): ``least`` to ``most`` chips (they differ only
    for Hi-Lo *high* / *low*: its side's match, or the whole pot's when nobody plays the
    other side), of which it would pay ``pays`` under ``shortfall``; ``eliminated``: it
    would be out for the rest of the session."""

    declaration: DeclarationName
    least: int
    most: int
    pays: int
    eliminated: bool


class ShownEntry(_Message):
    """Companion mode: the cards one seat shows, as entered (:class:`ShowCards`)."""

    seat: int
    cards: list[str]


class CompanionShowdown(_Message):
    """Companion mode: what the showdown waits for (:func:`gutskit.core.table.showdown_needs`)
    and what has been entered so far.

    Attributes:
        seats: the seats whose cards are needed, in order from the dealer's left.
        in_seats: the seats that declared in (the winners a host may name are among them;
            in a void round among ``seats``).
        ghost, community: the rules deal a ghost hand / a community card: it is needed too.
        high_seats, low_seats: Hi-Lo: the seats a host may name on the high side (declared
            high or both) and on the low side (low or both); empty under other rules.
        entered: the seats whose cards are in (public: not which cards).
        ghost_entered, community_entered: the ghost hand / community card is in.
        mine: the entries the recipient made (its own, and the host's for others); what
            others entered stays with them until the round is settled.
        my_ghost, my_community: the ghost hand / community card, to the host who entered
            them.
        conflicts: how many times this showdown's entries conflicted (a card given twice
            across different entries, found once all were in) and were all cleared: every
            seat enters again. Which card and whose entry is never said.
    """

    seats: list[int]
    in_seats: list[int]
    ghost: bool
    community: bool
    entered: list[int]
    high_seats: list[int] = Field(default_factory=list)
    low_seats: list[int] = Field(default_factory=list)
    ghost_entered: bool = False
    community_entered: bool = False
    mine: list[ShownEntry] = Field(default_factory=list)
    my_ghost: list[str] | None = None
    my_community: list[str] | None = None
    conflicts: int = 0


class CompanionView(_Message):
    """Companion mode (:attr:`TableView.companion`; ``None`` in a dealt room).

    Attributes:
        may_deal: the recipient may say the next round was dealt (:class:`DealRound`):
            the host or the dealer, between rounds, when the driver can deal.
        may_undo: host: the last round may be undone now (:class:`UndoRound`).
        may_misdeal: host: a misdeal may be called now (:class:`CallMisdeal`).
        showdown: at a showdown, what it waits for (else ``None``).
        may_count: under 1-2-3 drop, the recipient (host or dealer) may start the count
            now (:class:`StartCount`).
        count: under 1-2-3 drop, the count the server is running: the number every phone
            shows now (3, 2, 1; the fists open after 1), else ``None``.
    """

    may_deal: bool = False
    may_undo: bool = False
    may_misdeal: bool = False
    showdown: CompanionShowdown | None = None
    may_count: bool = False
    count: int | None = None


class TableView(_Message):
    """One recipient's view of the table, from :func:`gutskit.core.views.view_for` (seat
    ``seat``) or the public view (``seat = -1``, spectators).

    Attributes:
        seat: whose view (-1 = spectator).
        names, stacks, eliminated: per seat.
        dealer: the dealer's seat.
        pot, reserve: chips.
        phase: ``"deal"`` (between rounds), ``"pass"`` (Pass the Trash: choosing the card
            to pass), ``"declare"``, ``"showdown"`` (companion mode: waiting for the cards
            shown at the real table or the winners named), ``"over"``.
        round: the round being declared (or the last one dealt); the ``round`` a
            :class:`Declare` must carry.
        game: games started so far.
        hand: the recipient's own cards this round (``None`` for spectators, seats not
            dealt in, and between rounds).
        declarations: per seat ``"in"``/``"out"`` (Hi-Lo: ``"high"``/``"low"``/``"both"``)
            or ``None``: the recipient's own as soon as made, the others' only when revealed
            (or as made under sequential declaration).
        declared: per seat: has declared this round (not what).
        dealt_in: per seat: holds cards this round.
        owed: what a loser would pay to match the current pot.
        my_turn: the table waits for the recipient's declaration now
            (:func:`gutskit.core.table.waiting_for`; under sequential declaration only the
            seat whose turn it is).
        to_act: the seats the table waits for now, in declaration order (their card
            under Pass the Trash, or their declaration; sequential: the one seat whose
            turn it is); empty between rounds.
        turn: the seat whose turn it is to declare under in-turn (sequential) declaration
            (:func:`gutskit.core.table.turn`), else ``None``: under simultaneous and drop
            declaration nobody has "a turn", even when one seat is left to declare.
        next_antes: between rounds, the antes the next deal collects per seat
            (:func:`gutskit.core.table.next_antes`; after a void round: what ``all_out``
            does), ``None`` when none are due or a round is in progress.
        matches: while the recipient is dealt in and the round is declared, what it would
            pay if beaten, per declaration other than *out* (:class:`MatchQuote`); else
            ``None``.
        can_show: the recipient won the round just settled uncontested and may show its
            cards (:class:`ShowHand`; :func:`gutskit.core.table.can_show_hand`).
        rebuy: the smallest rebuy the recipient may ask for now (:class:`Rebuy`, bought at
            the next break once the host approves; :func:`gutskit.core.table.can_rebuy_later`
            with :func:`gutskit.core.table.rebuy_floor`), ``None`` when the rules allow
            none now.
        last_result: the last round's settlement as in the hand history
            (:func:`gutskit.core.history.event_to_dict` of ``RoundResolved``; hands are shown
            only for a showdown's in players).
        time_left: seconds left on the declaration timer (``None`` when not declaring or
            paused).
        legal_declarations: what :class:`Declare` may say under the room's rules.
        community: between rounds, the community card (``community_card``) of the round
            just settled, else ``None`` (also after a round thrown in: a misdeal, a
            session ended mid-round).
        ghost: between rounds, the ghost hand (``ghost_hand``) of the round just settled
            when its showdown showed it, else ``None``.
        passed: Pass the Trash: per seat, has chosen the card to pass (``None`` otherwise).
        passed_card: Pass the Trash: the card you pass (once chosen).
        received_card: Pass the Trash: the card you received (after the exchange).
    """

    seat: int
    names: list[str]
    stacks: list[int]
    eliminated: list[bool]
    dealer: int
    pot: int
    reserve: int
    phase: Literal["deal", "pass", "declare", "showdown", "over"]
    round: int
    game: int
    hand: list[str] | None
    declarations: list[DeclarationName | None]
    declared: list[bool]
    dealt_in: list[bool]
    owed: int
    my_turn: bool
    last_result: dict[str, Any] | None
    time_left: float | None
    legal_declarations: list[DeclarationName] = Field(default_factory=lambda: _IN_OUT.copy())
    community: list[str] | None = None
    ghost: list[str] | None = None
    passed: list[bool] | None = None
    passed_card: str | None = None
    received_card: str | None = None
    to_act: list[int] = Field(default_factory=list)
    turn: int | None = None
    next_antes: list[int] | None = None
    matches: list[MatchQuote] | None = None
    rebuy: int | None = None
    companion: CompanionView | None = None
    can_show: bool = False


class ChatLine(_Message):
    """A chat line or reaction (:class:`Chat`, :class:`React`), sent to every connection
    of the room (seats and spectators). ``seq`` numbers the room's chat from 1; ``seat``
    and ``name``: who said it; exactly one of ``text`` (a clients shows it as text, never
    as HTML) and ``emoji``. No card, no declaration: chat is not game state."""

    type: Literal["chat"] = "chat"
    seq: int
    seat: int
    name: str
    text: str | None = None
    emoji: str | None = None


class Welcome(_Message):
    """Answer to :class:`Hello`: who you are here and the room.

    Attributes:
        protocol: the protocol version of this connection (the client's :class:`Hello`).
        seat: your seat, or ``None`` for a spectator.
        host: you are the host.
        room: the room.
        table: your view of the table (``None`` in the lobby).
        chat: the room's last chat lines (:class:`ChatLine`, at most :data:`CHAT_KEPT`).
    """

    type: Literal["welcome"] = "welcome"
    protocol: int
    seat: int | None
    host: bool
    room: RoomInfo
    table: TableView | None
    chat: list[ChatLine] = Field(default_factory=list)


class Seated(_Message):
    """Answer to :class:`Join` (to that client only): your seat and its secret token."""

    type: Literal["seated"] = "seated"
    seat: int
    token: str


class SeatPending(_Message):
    """Answer to :class:`Join` (to that client only) when it must wait: the host approves
    who sits down, or the seat is for the next session.

    Attributes:
        request: the request's number (:class:`SeatRequest`).
        chair: the chair asked for.
        next_game: the seat is for the next session (the rematch).
        token: the request's secret token: a connection that says it in its
            :class:`Hello` takes the request back after a server restart (or a failover),
            and, once the host grants it in the lobby, holds the seat (it becomes the
            seat's token).
    """

    type: Literal["seat_pending"] = "seat_pending"
    request: int
    chair: int
    next_game: bool
    token: str | None = None


class SeatRefused(_Message):
    """To the requester only: the host refused its request (:class:`DenySeat`), or the
    rematch opened before the host answered; it watches on as a spectator."""

    type: Literal["seat_refused"] = "seat_refused"
    request: int
    reason: str


class RematchOpened(_Message):
    """To everyone in the room: the host opened the rematch (:class:`Rematch`) in room
    ``room_id``. A seated player's token is valid there too (the same seat); a spectator
    whose request to sit was granted receives its new ``token`` (only on its own
    connection); everyone else watches there.

    Attributes:
        room_id: the new room.
        ledger: ``"carried"`` or ``"reset"``.
        token: the recipient's new seat token (granted requests only), else ``None``.
    """

    type: Literal["rematch"] = "rematch"
    room_id: str
    ledger: Literal["carried", "reset"]
    token: str | None = None


class RoomUpdate(_Message):
    """The room changed (a seat, connection, pause, status); sent to everyone."""

    type: Literal["room"] = "room"
    room: RoomInfo


class TableState(_Message):
    """Your view of the table after a change (sent after the events that caused it)."""

    type: Literal["state"] = "state"
    table: TableView


class TablePatch(_Message):
    """Protocol 3: what changed in your view of the table since the last one sent to this
    connection (in its :class:`Welcome`, a :class:`TableState` or an earlier patch): the
    :class:`TableView` fields whose value changed, each whole (a JSON merge patch of the
    view's top level, RFC 7396; no field is ever removed). ``time_left`` is in it only when
    the clock was set again (a new deadline, a pause, a resume): the client counts down
    from the last one it got. Built from the same allow-listed view as
    :class:`TableState`; nothing is sent when nothing a viewer sees changed.

    Attributes:
        table: field name -> its new value (the names of :class:`TableView`).

    Raises:
        ValidationError: a field that :class:`TableView` does not have.
    """

    type: Literal["patch"] = "patch"
    table: dict[str, Any]

    @field_validator("table")
    @classmethod
    def _fields_of_the_view(cls, value: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(value) - set(TableView.model_fields))
        if unknown:
            raise ValueError(f"not fields of the table view: {unknown}")
        return value


class EventMessage(_Message):
    """One hand-history event as you may see it (:func:`gutskit.core.views.visible_events`):
    other seats' dealt cards are ``""`` (dealt, unseen), another seat's sealed declaration
    is ``{"type": "DeclarationSealed", "seat": 2}``. ``seq`` numbers the room's events
    from 0 (``SessionStarted``)."""

    type: Literal["event"] = "event"
    seq: int
    event: dict[str, Any]


class FairnessCommitment(_Message):
    """Published before round ``round`` is dealt: ``commitment`` = SHA-256 (hex) of the
    deck and the server seed (version 1), or of the 52 salted leaves of the committed order
    (version 2: published one round ahead, in the lobby for round 1, so that client seeds
    can follow it); ``docs/protocol.md``, "Provably fair deal"."""

    type: Literal["commitment"] = "commitment"
    round: int
    commitment: str


class FairnessSession(_Message):
    """The commitment to the session's header, sent to everyone when the session starts
    (before the first deal) and on connect: ``hash`` =
    :func:`gutskit.server.fairness.session_hash` of the ``SessionStarted`` event (names,
    seats, starting stacks, first dealer, house rules); ``fairness.json`` repeats it with
    the header (``"session"``) and ``guts verify`` checks the hand history against it."""

    type: Literal["session"] = "session"
    hash: str


class FairnessReveal(_Message):
    """The server seed of round ``round`` (hex), revealed after the round (or at the end
    of the session, see :attr:`CreateRoom.seed_reveal`); ``guts verify`` checks it."""

    type: Literal["reveal"] = "reveal"
    round: int
    commitment: str
    seed: str


class FairnessDealt(_Message):
    """Version 2: round ``round`` was dealt with these client seeds mixed in (per seat,
    ``null`` = none); check that yours is there."""

    type: Literal["deal_seeds"] = "deal_seeds"
    round: int
    commitment: str
    client_seeds: list[str | None]


class FairnessOpening(_Message):
    """Version 2, after round ``round`` (or at the end of the session for a round that
    never finished): the 52 leaves of the commitment and the openings of the cards shown
    (``{"position", "card", "salt"}``); nothing else is ever opened."""

    type: Literal["opening"] = "opening"
    round: int
    commitment: str
    leaves: list[str]
    opened: list[dict[str, Any]]


class Ack(_Message):
    """An action was accepted (``duplicate``: it had been applied already, nothing new)."""

    type: Literal["ack"] = "ack"
    action_id: str
    duplicate: bool = False


class Error(_Message):
    """A refused message: nothing changed. ``code`` is one of :data:`ERROR_CODES`;
    ``action_id`` echoes the refused :class:`Declare`'s id."""

    type: Literal["error"] = "error"
    code: str
    message: str
    action_id: str | None = None


class TimedOut(_Message):
    """The declaration timer of round ``round`` ended: ``seats`` were silent and count as
    out (sent to everyone after that change's events, which reveal the declarations)."""

    type: Literal["timeout"] = "timeout"
    round: int
    seats: list[int]


class Kicked(_Message):
    """The host removed you from your seat; you stay connected as a spectator."""

    type: Literal["kicked"] = "kicked"
    seat: int


class Presence(_Message):
    """Who is connected now (sent to everyone after connections came or went, at most one
    per room every quarter second; the newcomer has its :class:`Welcome`).

    Attributes:
        connected: per seat, as :attr:`LobbySeat.connected` (a bot is always connected).
        spectators: connected spectators, as :attr:`RoomInfo.spectators`.
    """

    type: Literal["presence"] = "presence"
    connected: list[bool]
    spectators: int


class Coach(_Message):
    """The coach on the hand a seat just declared with (:func:`gutskit.strategy.coach.advice`
    on that seat's own view taken before the declaration). Sent only to the connection
    whose :class:`Declare` had ``coach`` true, after its :class:`Ack`; never sent when the
    seat held no hand it may look at or the coach could not advise.

    Attributes:
        round: the round declared in.
        hand: the cards (e.g. ``["As", "Ah"]``).
        description: the hand in words.
        players: players dealt in (the seat included).
        pot: the pot in chips.
        in_probability: the equilibrium's probability of *in* with this hand (``None``:
            no advice, :attr:`note` says why).
        source: which equilibrium.
        ev: chips that *in* gains over *out* at this pot (``None`` if not computed).
        ev_se: its standard error (``None`` when exact).
        exact: whether :attr:`ev` is exact.
        note: why something is missing (``""`` otherwise).
        line: the whole advice in one English line, as ``guts play --coach`` prints it.
    """

    type: Literal["coach"] = "coach"
    round: int
    hand: list[str]
    description: str
    players: int
    pot: int
    in_probability: float | None
    source: str
    ev: float | None
    ev_se: float | None
    exact: bool
    note: str = ""
    line: str = ""


class Pong(_Message):
    """Answer to :class:`Ping`."""

    type: Literal["pong"] = "pong"


ServerMessage = Annotated[
    Welcome | Seated | RoomUpdate | TableState | TablePatch | EventMessage
    | FairnessCommitment
    | FairnessSession | FairnessReveal | FairnessDealt | FairnessOpening | Ack | Error
    | TimedOut | Kicked | Presence | Coach | Pong | ChatLine | SeatPending | SeatRefused
    | RematchOpened,
    Field(discriminator="type"),
]
"""Any message the server sends."""

SERVER_ADAPTER = TypeAdapter[ServerMessage](ServerMessage)
"""Validates server messages (tests and Python clients)."""
