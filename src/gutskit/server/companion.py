"""Companion mode online (issue 10 part 1, docs/companion.md): a room in which gutskit does
not deal.

The cards are dealt at a real table; the phones are the fists and the chips. What the
table may do and when is asked of the table driver (:mod:`gutskit.core.table`): the deal
(unseen hands, the antes due), the declarations (the same messages as a dealt room), the
showdown (:func:`gutskit.core.table.showdown_needs`, :func:`~gutskit.core.table.show_cards`,
:func:`~gutskit.core.table.name_winners`), misdeals and the undo of the last round. This
module only handles the messages and keeps the cards entered at a showdown until every
one needed is in (:class:`Desk`); no rule is restated here.

Who sees what: everything the table driver records is an event and goes through
:func:`gutskit.core.views.redacted_history` like any other (the cards shown at a showdown
are public once the round is settled). Before that, an entry is seen only by the
connection(s) of the seat that made it (its own cards, or the host's entries for others);
the others see only *which* seats have entered (:class:`CompanionShowdown.entered`).
Entries are not stored: a server restarted in the middle of a showdown asks for them
again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from gutskit.core import table as driver
from gutskit.core.cards import Card, CardError, card_name, parse_card
from gutskit.core.engine import GameState, Phase
from gutskit.core.events import Event
from gutskit.server.protocol import (
    CallMisdeal,
    CompanionShowdown,
    CompanionView,
    DealRound,
    NameWinners,
    ProtocolError,
    ShowCards,
    ShownEntry,
    StartCount,
    UndoRound,
)

__all__ = ["COUNT_STEP", "MESSAGES", "Count", "Desk", "after_change", "check_declare",
           "handle", "view"]

MESSAGES = (DealRound, StartCount, ShowCards, NameWinners, CallMisdeal, UndoRound)
"""The client messages of companion mode (:func:`handle`)."""

CompanionMessage = DealRound | StartCount | ShowCards | NameWinners | CallMisdeal | UndoRound

COUNT_STEP = 0.8
"""Seconds per number of the count of "1-2-3 drop" (3, 2, 1, then the fists open)."""


@dataclass
class Count:
    """The count of "1-2-3 drop" the server is running for round ``round``: the number
    every phone shows (``step``: 3, 2, 1) and the task that counts."""

    round: int
    step: int = 3
    task: asyncio.Task[None] | None = None


@dataclass
class Desk:
    """The cards entered at the showdown of round ``round`` so far (not yet settled).

    Attributes:
        round: the round the entries belong to (other rounds' entries are dropped).
        hands: seat -> (its cards, the seat that entered them).
        ghost, community: (the cards, the seat that entered them), or ``None``.
        conflicts: how many times this round's entries conflicted and were cleared.
    """

    round: int = 0
    hands: dict[int, tuple[tuple[Card, ...], int]] = field(default_factory=dict)
    ghost: tuple[tuple[Card, ...], int] | None = None
    community: tuple[tuple[Card, ...], int] | None = None
    conflicts: int = 0

    def at(self, round_number: int) -> Desk:
        """This desk if it holds round ``round_number``'s entries, else a fresh one."""
        return self if self.round == round_number else Desk(round=round_number)


class Client(Protocol):
    """A connection (:class:`gutskit.server.rooms.Client`): its seat, ``None`` = spectator."""

    seat: int | None


class Room(Protocol):
    """What this module uses of a :class:`gutskit.server.rooms.Room` (the room's authority;
    its lock is held by the caller)."""

    settings: Any
    seats: Any
    status: str
    paused: bool
    state: GameState | None
    desk: Desk
    count: Count | None
    counted: int
    lock: asyncio.Lock

    async def _persist_and_send(self, state: GameState, events: list[Event],
                                action: tuple[str, int, int] | None) -> None: ...

    def _take_rebuys(self, state: GameState) -> tuple[GameState, list[Event]]: ...

    def _take_returns(self, state: GameState) -> tuple[GameState, list[Event]]: ...

    async def _end(self, reason: str) -> None: ...

    def _broadcast_room(self) -> None: ...

    def _broadcast_state(self) -> None: ...

    def spawn(self, coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None]: ...


def _fail(code: str, message: str) -> ProtocolError:
    return ProtocolError(code, message)


def _cards(text: Sequence[str], what: str) -> tuple[Card, ...]:
    try:
        return tuple(parse_card(c) for c in text)
    except CardError as error:
        raise _fail("bad_message", f"show_cards.{what}: {error}") from None


def _names(cards: Sequence[Card]) -> list[str]:
    return [card_name(c) for c in cards]


def _is_host(room: Room, client: Client) -> bool:
    return client.seat is not None and room.seats[client.seat].host


def _playing(room: Room, client: Client) -> GameState:
    """The state of a companion room in play, for a seated connection.

    Raises:
        ProtocolError: ``illegal_action`` (not a companion room), ``not_seated``,
            ``not_playing``.
    """
    if not room.settings.companion:
        raise _fail("illegal_action", "this room deals its own cards (not a companion room)")
    if client.seat is None:
        raise _fail("not_seated", "a spectator cannot act; join first")
    if room.status != "playing" or room.state is None:
        raise _fail("not_playing", "the session is not in play")
    return room.state


def _ended_by_round(room: Room) -> bool:
    """A companion room whose session a round ended, and that round may still be undone
    (:func:`gutskit.core.table.can_undo_round`: not after the table agreed to stop)."""
    return (bool(room.settings.companion) and room.status == "over" and room.state is not None
            and room.state.phase is Phase.OVER and driver.can_undo_round(room.state) is None)


def _round(state: GameState, number: int, phase: Phase) -> None:
    if state.round_number != number or state.phase is not phase:
        raise _fail("stale_round", f"round {number} is not in the {phase.value} phase: round "
                    f"{state.round_number} is in the {state.phase.value} phase")


def _host_only(room: Room, client: Client, what: str) -> None:
    if not _is_host(room, client):
        raise _fail("not_host", f"only the host may {what}")


async def handle(room: Room, client: Client, message: CompanionMessage) -> None:
    """Apply one companion-mode message (the caller holds the room's lock).

    Raises:
        ProtocolError: refused (``not_host``, ``not_seated``, ``not_playing``,
            ``stale_round``, ``bad_message`` for a card that is not one,
            ``illegal_action`` with the table driver's reason); nothing changed. Or
            ``entries_conflict`` (:data:`CONFLICT`): the showdown's entries were all cleared.
    """
    if isinstance(message, UndoRound) and _ended_by_round(room):
        assert room.state is not None
        state = room.state  # the round that ended the session can be undone
        if client.seat is None:
            raise _fail("not_seated", "a spectator cannot act; join first")
    else:
        state = _playing(room, client)
    if isinstance(message, DealRound):
        await _deal(room, client, state, message.round)
    elif isinstance(message, StartCount):
        _start_count(room, client, state, message.round)
    elif isinstance(message, ShowCards):
        await _show(room, client, state, message)
    elif isinstance(message, NameWinners):
        _host_only(room, client, "name the winners")
        _round(state, message.round, Phase.SHOWDOWN)
        winners, low = list(message.winners), list(message.low_winners)
        losers = None if message.losers is None else list(message.losers)
        problem = driver.can_name_winners(state, winners, low_winners=low, losers=losers)
        if problem is not None:
            raise _fail("illegal_action", problem)
        room.desk = Desk()
        await room._persist_and_send(*driver.name_winners(
            state, winners, low_winners=low, losers=losers), None)
    elif isinstance(message, CallMisdeal):
        _host_only(room, client, "call a misdeal")
        await _redo(room, state, message.round, "the round being played",
                    driver.can_misdeal(state),
                    lambda: driver.misdeal(state, "misdeal called by the host"))
    else:
        _host_only(room, client, "undo a round")
        await _redo(room, state, message.round, "the last round",
                    driver.can_undo_round(state),
                    lambda: driver.undo_round(state, "undone by the host"))


async def _redo(room: Room, state: GameState, number: int, which: str,
                problem: str | None,
                change: Callable[[], driver.Result]) -> None:
    """A host's misdeal or undo of round ``number`` (``which`` names the round it must be
    in an error): refused as ``stale_round`` for another round and ``illegal_action`` with
    the core's ``problem``; otherwise the entries on the desk are cleared and the core's
    ``change`` is stored and sent."""
    if state.round_number != number:
        raise _fail("stale_round", f"round {number} is not {which} "
                    f"(round {state.round_number})")
    if problem is not None:
        raise _fail("illegal_action", problem)
    room.desk = Desk()
    await room._persist_and_send(*change(), None)


async def _deal(room: Room, client: Client, state: GameState, number: int) -> None:
    """The host or the dealer says round ``number`` was dealt: approved rebuys and returns
    first, then the deal (the session ends when the driver says it cannot go on)."""
    assert client.seat is not None
    if not _is_host(room, client) and client.seat != state.dealer:
        raise _fail("not_host", f"only the host or the dealer ({state.names[state.dealer]}) "
                    "says the cards are dealt")
    if room.paused:
        raise _fail("illegal_action", "the table is paused")
    if state.phase is not Phase.DEAL or number != state.round_number + 1:
        raise _fail("stale_round", f"round {number} cannot be dealt now: round "
                    f"{state.round_number} is in the {state.phase.value} phase")
    state, bought = room._take_rebuys(state)
    state, back = room._take_returns(state)
    status = driver.status(state)
    if status.step is driver.Step.END:
        if bought or back:
            await room._persist_and_send(state, [*bought, *back], None)
        await room._end(status.reason or "fewer than two players left with chips")
        return
    problem = driver.can_deal(state)
    if problem is not None:
        if bought or back:
            await room._persist_and_send(state, [*bought, *back], None)
        raise _fail("illegal_action", problem)
    new, events = driver.deal(state)
    room.desk = Desk()
    await room._persist_and_send(new, [*bought, *back, *events], None)
    room._broadcast_room()  # rebuy requests taken, seats back


def _own_problem(desk: Desk, seat: int, state: GameState) -> str | None:
    """A card repeated among the entries that connection ``seat`` made (its own
    knowledge, so the card may be named), or an extra of the wrong size; ``None`` if none.
    Entries of other seats are never looked at here (they must not leak)."""
    sizes = dict(state.variants.extra_cards)
    seen: set[Card] = set()
    entries = [cards for cards, by in desk.hands.values() if by == seat]
    for what, entry in (("ghost", desk.ghost), ("community", desk.community)):
        if entry is not None and entry[1] == seat:
            if len(entry[0]) not in (0, sizes.get(what, 0)):
                return (f"the {what} cards ({' '.join(_names(entry[0]))}) are "
                        f"{len(entry[0])}, expected {sizes.get(what, 0)}")
            entries.append(entry[0])
    for cards in entries:
        for card in cards:
            if card in seen:
                return f"card {card_name(card)} is entered twice in your entries"
            seen.add(card)
    return None


def _conflict(desk: Desk) -> bool:
    """Whether a card is given twice across the entries (of any seats)."""
    cards = [c for cards, _ in desk.hands.values() for c in cards]
    for entry in (desk.ghost, desk.community):
        if entry is not None:
            cards.extend(entry[0])
    return len(cards) != len(set(cards))


CONFLICT = ("the cards entered conflict (a card was entered twice across the entries): every "
            "entry of this showdown is cleared; enter the cards again (or the host enters "
            "them all)")
"""The error (code ``entries_conflict``) answering the entry that completed a showdown whose
entries conflict: it names no card and no seat, so an entry cannot be used to probe the
entries pending from other seats. Every other phone learns of it from the state it is sent
at the same time (``showdown.conflicts`` one higher, the entries cleared)."""


async def _show(room: Room, client: Client, state: GameState, message: ShowCards) -> None:
    """One ``show_cards`` entry. Each entry is checked on its own (its size, a card repeated
    among the sender's own entries: named); the entries are checked against each other only
    once all are in, and a conflict then names nothing and clears every entry
    (:data:`CONFLICT`), so no entry reveals another seat's pending cards."""
    _round(state, message.round, Phase.SHOWDOWN)
    assert client.seat is not None
    needs = driver.showdown_needs(state)
    assert needs is not None
    host = _is_host(room, client)
    desk = room.desk.at(state.round_number)
    hands = dict(desk.hands)
    ghost, community = desk.ghost, desk.community
    if message.cards is not None:
        seat = client.seat if message.seat is None else message.seat
        if seat != client.seat and not host:
            raise _fail("not_host", "only the host enters another player's cards")
        if seat not in needs.seats:
            name = state.names[seat] if 0 <= seat < state.n_seats else f"seat {seat}"
            raise _fail("illegal_action", f"the cards of {name!r} are not needed at this "
                        "showdown")
        cards = _cards(message.cards, "cards")
        if len(cards) != state.rules.cards_per_hand:
            raise _fail("illegal_action", f"a hand has {state.rules.cards_per_hand} cards, "
                        f"not {len(cards)} ({' '.join(message.cards)})")
        hands[seat] = (cards, client.seat)
    for what, given, needed in (("ghost", message.ghost, needs.ghost),
                                ("community", message.community, needs.community)):
        if given is None:
            continue
        if not host:
            raise _fail("not_host", f"only the host enters the {what} cards")
        if not needed:
            raise _fail("illegal_action", f"the rules of this table deal no {what} cards")
        entry = (_cards(given, what), client.seat)
        if what == "ghost":
            ghost = entry
        else:
            community = entry
    new = Desk(round=state.round_number, hands=hands, ghost=ghost, community=community,
               conflicts=desk.conflicts)
    problem = _own_problem(new, client.seat, state)
    if problem is not None:
        raise _fail("illegal_action", problem)
    complete = (all(s in hands for s in needs.seats) and (ghost is not None or not needs.ghost)
                and (community is not None or not needs.community))
    if complete:
        if _conflict(new):
            room.desk = Desk(round=state.round_number, conflicts=desk.conflicts + 1)
            room._broadcast_state()  # every phone sees conflicts + 1 and says so
            raise _fail("entries_conflict", CONFLICT)
        shown = {s: hands[s][0] for s in needs.seats}
        ghost_cards = None if ghost is None else ghost[0]
        community_cards = None if community is None else community[0]
        problem = driver.can_show_cards(state, shown, ghost=ghost_cards,
                                        community=community_cards)
        if problem is not None:
            raise _fail("illegal_action", problem)
        room.desk = Desk()
        await room._persist_and_send(*driver.show_cards(
            state, shown, ghost=ghost_cards, community=community_cards), None)
        return
    room.desk = new
    room._broadcast_state()


def _counting_down(room: Room, state: GameState) -> bool:
    """A count is running for the round being declared."""
    return room.count is not None and room.count.round == state.round_number


def _may_count(room: Room, state: GameState, seat: int | None) -> bool:
    """Whether ``seat`` (the host or the dealer) may start the count now."""
    return (seat is not None and room.status == "playing" and not room.paused
            and (room.seats[seat].host or seat == state.dealer)
            and not _counting_down(room, state) and driver.can_open_fists(state) is None)


def _start_count(room: Room, client: Client, state: GameState, number: int) -> None:
    """The host or the dealer starts the count of round ``number`` (1-2-3 drop)."""
    assert client.seat is not None
    if not _is_host(room, client) and client.seat != state.dealer:
        raise _fail("not_host", f"only the host or the dealer ({state.names[state.dealer]}) "
                    "starts the count")
    _round(state, number, Phase.DECLARE)
    problem = driver.can_open_fists(state)
    if problem is not None:
        raise _fail("illegal_action", problem)
    if _counting_down(room, state):
        raise _fail("illegal_action", f"the count of round {number} is already running")
    _begin(room, number)
    room._broadcast_state()


def _begin(room: Room, number: int) -> None:
    count = Count(round=number)
    room.count = count
    count.task = room.spawn(_run_count(room, count))


async def _run_count(room: Room, count: Count) -> None:
    """Count 3, 2, 1 (one :data:`COUNT_STEP` each, every phone told each number), then open
    the fists (:func:`gutskit.core.table.open_fists`): the server is the one authority on
    the count and on the moment the fists open. A count whose round was misdealt, undone
    or paused away stops silently."""
    while True:
        await asyncio.sleep(COUNT_STEP)
        async with room.lock:
            if room.count is not count:
                return
            if count.step > 1:
                count.step -= 1
                room._broadcast_state()
                continue
            room.count = None
            room.counted = count.round
            state = room.state
            if (state is None or room.status != "playing" or state.round_number != count.round
                    or driver.can_open_fists(state) is not None):
                room._broadcast_state()
                return
            await room._persist_and_send(*driver.open_fists(state), None)
            return


def after_change(room: Room) -> None:
    """After any change of a companion room's state: a count whose round is no longer being
    declared is dropped; when every fist is in under 1-2-3 drop
    (:attr:`gutskit.core.table.Step.COUNT`) the count starts by itself."""
    state = room.state
    count = room.count
    if count is not None and (state is None or room.status != "playing"
                              or state.round_number != count.round
                              or state.phase is not Phase.DECLARE):
        if count.task is not None and count.task is not asyncio.current_task():
            count.task.cancel()
        room.count = None
    if (room.count is None and state is not None and room.status == "playing"
            and not room.paused and driver.status(state).step is driver.Step.COUNT):
        _begin(room, state.round_number)


def check_declare(room: Room, number: int) -> None:
    """A declaration for round ``number`` after its count opened the fists is a late drop
    (1-2-3 drop, RULES.md step 3; the Estonian rule book names late drops as the rule's
    weakness): refused, naming the rule, instead of the generic stale round.

    Raises:
        ProtocolError: ``illegal_action`` for a late drop; nothing otherwise.
    """
    state = room.state
    if (state is not None and room.counted == number == state.round_number
            and state.phase is not Phase.DECLARE):
        raise _fail("illegal_action", f"too late: the count of round {number} is over and "
                    "the fists are open (1-2-3 drop: a player who did not drop on the count "
                    "is in)")


def view(room: Room, state: GameState, seat: int | None) -> CompanionView:
    """What recipient ``seat`` (``None``: a spectator) may know of the companion table now
    (:attr:`gutskit.server.protocol.TableView.companion`)."""
    host = seat is not None and 0 <= seat < len(room.seats) and room.seats[seat].host
    playing = room.status == "playing" and not room.paused
    may_deal = (playing and seat is not None and (host or seat == state.dealer)
                and driver.status(state).step is driver.Step.DEAL)
    showdown = None
    needs = driver.showdown_needs(state)
    if needs is not None:
        desk = room.desk.at(state.round_number)
        mine = [ShownEntry(seat=s, cards=_names(cards))
                for s, (cards, by) in sorted(desk.hands.items()) if seat is not None and by == seat]
        showdown = CompanionShowdown(
            seats=list(needs.seats), in_seats=list(needs.in_seats), ghost=needs.ghost,
            community=needs.community, entered=sorted(desk.hands),
            high_seats=list(needs.high_seats), low_seats=list(needs.low_seats),
            ghost_entered=desk.ghost is not None, community_entered=desk.community is not None,
            mine=mine, conflicts=desk.conflicts,
            my_ghost=_names(desk.ghost[0]) if desk.ghost and desk.ghost[1] == seat else None,
            my_community=(_names(desk.community[0])
                          if desk.community and desk.community[1] == seat else None))
    return CompanionView(
        may_deal=may_deal,
        may_undo=host and ((playing and driver.can_undo_round(state) is None)
                           or _ended_by_round(room)),
        may_misdeal=host and room.status == "playing" and driver.can_misdeal(state) is None,
        showdown=showdown, may_count=_may_count(room, state, seat),
        count=room.count.step if room.count is not None and _counting_down(room, state)
        else None)
