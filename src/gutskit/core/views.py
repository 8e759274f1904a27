"""What each viewer may know: the one place that decides it, by allow-list.

A *viewer* (:class:`Viewer`) is a seat, or a spectator: the observer with no private
information (OpenSpiel's observer types; lichess, where each event says who may see it).
Every item of information states who may see it, its :class:`Audience`, in one of two
allow-lists: :data:`VIEW_FIELDS` (each field of the table view, :class:`SeatView`) and
:data:`RECORD_FIELDS` (each field of each hand-history event). :func:`view` builds any
viewer's view of a state and :func:`redacted_history` any viewer's copy of a hand history
from them, a spectator's by the same functions as a seat's. An item missing from the lists
is hidden: a new field is hidden until it is allowed.

The audiences (RULES.md "Antes, declaration, resolution", "Variants"):

* everyone: the table's public facts, the reveal of the declarations and every round's
  public result (:class:`~gutskit.core.events.RoundResolved`: the hands shown at a
  showdown, the ghost hand, the community card once turned); never the cards of a player
  who was out or won uncontested, which no event shows;
* the owner: a seat's own cards while they are out (under No Peek not even those until the
  reveal: the owner sees its hand as the variants show it), the card it chooses to pass;
* the owner and the receiver: a passed card (Pass the Trash);
* the declarer: a declaration until the reveal (everyone as it is made under sequential
  declaration);
* nobody: the ghost hand and the community card as dealt, face down (everyone sees them
  in the round's result once they are turned).

Bots decide from a :class:`SeatView` alone, and every front end (terminal, server) sends a
player nothing but its view and its copy of the history.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, NamedTuple

from gutskit.core import settlement
from gutskit.core.cards import Card
from gutskit.core.engine import GameState, Phase
from gutskit.core.events import (
    AntesPosted,
    CardsDealt,
    CardsPassed,
    CardsShown,
    Declaration,
    DeclarationsRevealed,
    Declared,
    Event,
    Hand,
    HandShown,
    Misdealt,
    PassChosen,
    Rebought,
    RoundResolved,
    RoundUndone,
    SatOut,
    SeatAway,
    SeatBack,
    SeatLeft,
    SeatRemoved,
    SessionEnded,
    SessionStarted,
    WinnersNamed,
)
from gutskit.core.history import DeclarationSealed, PassSealed, PassSeen, Record
from gutskit.core.rules import Rules
from gutskit.variants import variants_for
from gutskit.variants.pass_the_trash import givers as _givers

__all__ = ["RECORD_FIELDS", "SPECTATOR", "SPECTATOR_SEAT", "VIEW_FIELDS", "Audience",
           "DeclarationSealed", "PassSealed", "PassSeen", "SeatView", "Viewer",
           "joint_views", "known_events", "public_event", "redacted_history", "seat_viewer",
           "view", "view_for", "views", "visible_events"]


class Viewer(NamedTuple):
    """Who looks at the table: seat ``seat`` (0-based), or a spectator (``seat = None``),
    who holds no private information. (A named tuple: bots' views are built thousands of
    times a second; :func:`seat_viewer` gives the shared instance of a seat.)"""

    seat: int | None = None

    @property
    def spectator(self) -> bool:
        """Whether this viewer is a spectator."""
        return self.seat is None


SPECTATOR = Viewer()
"""The spectator: sees only what everyone may see."""

SPECTATOR_SEAT = -1
"""The ``seat`` of a spectator's :class:`SeatView` and redactions."""

_SEAT_VIEWERS = tuple(Viewer(seat) for seat in range(64))


def seat_viewer(seat: int) -> Viewer:
    """The viewer seat ``seat`` is (a shared instance for the usual seats)."""
    return _SEAT_VIEWERS[seat] if 0 <= seat < len(_SEAT_VIEWERS) else Viewer(seat)


class Audience(enum.Enum):
    """Who may see an item of information (the owner: the seat the item belongs to, the
    seat of a per-seat item)."""

    EVERYONE = "everyone"
    """Every seat and every spectator."""
    OWNER = "owner"
    """Only the seat the item belongs to."""
    RECEIVER = "receiver"
    """The seat it belongs to and the seat it is passed to (Pass the Trash)."""
    DECLARER = "declarer"
    """The seat that declared; everyone when declarations are public as made (sequential
    declaration)."""
    NOBODY = "nobody"
    """Nobody (a later public event shows it, if the rules show it at all)."""


class SeatView(NamedTuple):
    """Everything one viewer may know now (:func:`view`). Per-seat tuples are indexed by
    seat. Who may see each field: :data:`VIEW_FIELDS`.

    An immutable record (a named tuple: bots build and read thousands per second).

    Attributes:
        seat: whose view this is (:data:`SPECTATOR_SEAT`, -1, for a spectator).
        hand: the seat's own cards this round (``None`` when not dealt in and for a
            spectator; ``()`` while unseen under ``no_peek``); after Pass the Trash, the
            hand after the exchange.
        declarations: declarations visible to this viewer (own always; others' once
            revealed, or as made under sequential declaration); ``None`` where unknown.
        declared: which seats have declared this round (not what they declared).
        dealt_in: which seats hold cards this round.
        owed: what a loser would pay to match the current pot (chips).
        last_result: the last round's public settlement (hands shown only at showdown).
        passed: Pass the Trash: the card this seat passes (once chosen).
        received: Pass the Trash: the card this seat received (after the exchange).
        passes_chosen: Pass the Trash: which seats have chosen their card (not which).
    """

    seat: int
    rules: Rules
    names: tuple[str, ...]
    stacks: tuple[int, ...]
    eliminated: tuple[bool, ...]
    dealer: int
    pot: int
    reserve: int
    phase: Phase
    hand: Hand | None
    declarations: tuple[Declaration | None, ...]
    declared: tuple[bool, ...]
    dealt_in: tuple[bool, ...]
    round_number: int
    game_number: int
    owed: int
    last_result: RoundResolved | None
    passed: Card | None = None
    received: Card | None = None
    passes_chosen: tuple[bool, ...] = ()

    @property
    def opponents(self) -> int:
        """Other players dealt in this round."""
        own = 0 <= self.seat < len(self.dealt_in) and self.dealt_in[self.seat]
        return sum(self.dealt_in) - (1 if own else 0)

    @property
    def must_pass(self) -> bool:
        """Pass the Trash: whether this seat must choose the card it passes now."""
        return (self.phase is Phase.PASS and self.hand is not None
                and self.passed is None)


_E, _OWNER, _RECEIVER, _DECLARER, _NOBODY = (
    Audience.EVERYONE, Audience.OWNER, Audience.RECEIVER, Audience.DECLARER, Audience.NOBODY)

VIEW_FIELDS: Mapping[str, Audience] = MappingProxyType({
    "seat": _E, "rules": _E, "names": _E, "stacks": _E, "eliminated": _E, "dealer": _E,
    "pot": _E, "reserve": _E, "phase": _E, "declared": _E, "dealt_in": _E,
    "round_number": _E, "game_number": _E, "owed": _E, "last_result": _E,
    "passes_chosen": _E,
    "hand": _OWNER,  # as the variants let the owner see it (No Peek: unseen)
    "declarations": _DECLARER,  # per seat
    "passed": _OWNER,
    "received": _RECEIVER,  # the giver's card: the giver and the receiver
})
"""Who may see each field of a :class:`SeatView` (a field not listed: nobody)."""

RECORD_FIELDS: dict[type[Any], Mapping[str, Audience]] = {
    SessionStarted: {"rules": _E, "names": _E, "stacks": _E, "dealer": _E, "pot": _E,
                     "reserve": _E, "loss_limits": _E, "companion": _E},
    AntesPosted: {"amounts": _E, "refill": _E, "new_game": _E},
    CardsDealt: {"hands": _OWNER, "ghost": _NOBODY, "community": _NOBODY},
    PassChosen: {"seat": _E, "card": _OWNER},
    CardsPassed: {"passes": _RECEIVER},
    Declared: {"seat": _E, "declaration": _DECLARER},
    DeclarationsRevealed: {"declarations": _E},
    RoundResolved: {
        "outcome": _E, "shown": _E, "winners": _E, "won": _E, "matched": _E,
        "eliminated": _E, "to_reserve": _E, "pot_after": _E, "next_dealer": _E,
        "session_over": _E, "community": _E, "ghost": _E, "ghost_won": _E,
        "high_winners": _E, "low_winners": _E, "high_pot": _E, "low_pot": _E,
        "ante_payers": _E, "failed_high": _E, "failed_low": _E},
    Misdealt: {"reason": _E},
    Rebought: {"seat": _E, "chips": _E},
    SatOut: {"seat": _E, "reason": _E},
    SessionEnded: {"reason": _E, "payouts": _E},
    SeatAway: {"seat": _E},
    SeatBack: {"seat": _E},
    SeatLeft: {"seat": _E},
    SeatRemoved: {"seat": _E, "reason": _E},
    # companion mode: the cards turned up at the real table, the result the table named,
    # the host's undo are all made in front of everyone
    CardsShown: {"hands": _E, "ghost": _E, "community": _E},
    WinnersNamed: {"winners": _E, "low_winners": _E, "losers": _E},
    RoundUndone: {"round": _E, "stacks": _E, "pot": _E, "reserve": _E, "reason": _E},
    # the winner of an uncontested pot chose to show its cards: public from then on (the
    # event exists only once the seat chose; RULES.md "Resolve")
    HandShown: {"seat": _E, "hand": _E},
}
"""Who may see each field of each hand-history event (an event type not listed is
withheld; a field not listed is hidden). ``RoundResolved`` is the public settlement: the
engine puts in ``shown`` only what the rules show."""


# -- the table's facts that decide an audience ------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Table:
    """What the audiences depend on under a rule set."""

    open_declarations: bool
    """Declarations are public as they are made (sequential declaration)."""
    own_hand: Callable[[Hand], Hand] | None
    """What the owner sees of its dealt hand before the reveal (``None``: all of it)."""


_STRICT = _Table(open_declarations=False, own_hand=None)
_TABLES: dict[int, tuple[Rules, _Table]] = {}


def _table(rules: Rules | None) -> _Table:
    """The facts of ``rules`` (remembered by the rule set's identity: states share it)."""
    if rules is None:  # a slice of a history without its rules: the strict reading
        return _STRICT
    known = _TABLES.get(id(rules))
    if known is not None and known[0] is rules:
        return known[1]
    game = variants_for(rules)  # the variants decide (sequential declaration, No Peek)
    table = _Table(open_declarations=not game.sealed,
                   own_hand=game.view_hand if game.hides_cards else None)
    if len(_TABLES) > 256:
        _TABLES.clear()
    _TABLES[id(rules)] = (rules, table)
    return table


def _may_see(audience: Audience | None, viewer: Viewer, owner: int | None, table: _Table,
             receiver: int | None = None) -> bool:
    """Whether ``viewer`` may see an item of ``owner`` (``None``: nobody's) whose audience
    is ``audience`` (``None``: not on the allow-list, hidden)."""
    if audience is _E:
        return True
    seat = viewer.seat
    if audience is _DECLARER:
        return table.open_declarations or (seat is not None and seat == owner)
    if seat is None:
        return False
    if audience is _OWNER:
        return seat == owner
    if audience is _RECEIVER:
        return seat in (owner, receiver)
    return False


# -- views ----------------------------------------------------------------------------------


_FIELDS = SeatView._fields
_HAND, _DECLS, _PASSED, _RECEIVED = (_FIELDS.index(name) for name in (
    "hand", "declarations", "passed", "received"))
if _FIELDS != ("seat", "rules", "names", "stacks", "eliminated", "dealer", "pot", "reserve",
               "phase", "hand", "declarations", "declared", "dealt_in", "round_number",
               "game_number", "owed", "last_result", "passed", "received",
               "passes_chosen"):  # pragma: no cover - _build lays them out in this order
    raise ImportError("SeatView's fields changed: update views._build")
_PRIVATE = frozenset({_HAND, _DECLS, _PASSED, _RECEIVED})
# read once (in Python 3.11 ``Phase.DECLARE`` goes through ``EnumType.__getattr__``'s slot)
_PASS, _DECLARE, _SHOWDOWN = Phase.PASS, Phase.DECLARE, Phase.SHOWDOWN
_new_tuple = tuple.__new__


def _hidden(name: str) -> Any:
    """A field's value when hidden: its default, else ``None``."""
    return SeatView._field_defaults.get(name)


class _Plan(NamedTuple):
    """An allow-list of the view compiled once: the fields from the public state that are
    hidden from everyone, and the audiences of the private fields."""

    masked: tuple[tuple[int, Any], ...]
    hand: Audience | None
    declarations: Audience | None
    passed: Audience | None
    received: Audience | None


def _compile(fields: Mapping[str, Audience]) -> _Plan:
    masked = tuple((i, _hidden(name)) for i, name in enumerate(_FIELDS)
                   if i not in _PRIVATE and fields.get(name) is not _E)
    return _Plan(masked, fields.get("hand"), fields.get("declarations"),
                 fields.get("passed"), fields.get("received"))


_PLAN = _compile(VIEW_FIELDS)


def view(state: GameState, viewer: Viewer, *,
         allow: Mapping[str, Audience] = VIEW_FIELDS) -> SeatView:
    """What ``viewer`` may know of ``state``, by the allow-list ``allow``.

    Raises:
        IndexError: ``viewer`` is a seat that is not at the table.
    """
    return views(state, (viewer,), allow=allow)[0]


def views(state: GameState, viewers: Iterable[Viewer], *,
          allow: Mapping[str, Audience] = VIEW_FIELDS) -> list[SeatView]:
    """:func:`view` of each of ``viewers`` (the work they share is done once).

    Raises:
        IndexError: a viewer is a seat that is not at the table.
    """
    plan = _PLAN if allow is VIEW_FIELDS else _compile(allow)
    return _build(state, [v.seat for v in viewers], plan)


def _sees_own(audience: Audience | None, table: _Table) -> bool:
    """Whether a seat may see its own item of ``audience`` (the same for every seat)."""
    return _may_see(audience, _SEAT_VIEWERS[0], 0, table)


_Decided = tuple[_Table, bool, bool, bool]
_DECISIONS: dict[int, tuple[Rules, _Decided]] = {}


def _decisions(plan: _Plan, rules: Rules) -> _Decided:
    """Under ``rules``: the table's facts, whether everyone sees the declarations as made,
    whether a seat sees its own hand, whether it sees its own declaration (decided once
    per rule set for the allow-list :data:`VIEW_FIELDS`: states share their rules)."""
    if plan is _PLAN:
        known = _DECISIONS.get(id(rules))
        if known is not None and known[0] is rules:
            return known[1]
    table = _table(rules)
    decided = (table, _may_see(plan.declarations, SPECTATOR, None, table),
               _sees_own(plan.hand, table), _sees_own(plan.declarations, table))
    if plan is _PLAN:
        if len(_DECISIONS) > 256:
            _DECISIONS.clear()
        _DECISIONS[id(rules)] = (rules, decided)
    return decided


def _build(state: GameState, seats: Sequence[int | None], plan: _Plan,
           dealt: Sequence[int] | None = None) -> list[SeatView]:
    """The views of ``seats`` (``None``: the spectator), or of the seats dealt in,
    ``dealt`` (:func:`joint_views`). What the public state gives is computed once; each
    seat's private fields are added as their audiences allow."""
    rules = state.rules
    phase = state.phase
    declaring = phase is _DECLARE
    showing = declaring or phase is _PASS
    n = len(state.names)
    hands = state.hands
    declarations = state.declarations
    passes = state.passes
    known = _DECISIONS.get(id(rules)) if plan is _PLAN else None
    table, open_now, own_hand, own_decl = (
        known[1] if known is not None and known[0] is rules else _decisions(plan, rules))
    # the fists are open: as made (sequential), or revealed while a companion showdown waits
    open_decls = (declaring and open_now) or phase is _SHOWDOWN
    # the public facts (the private fields start hidden)
    rules_, names, stacks, eliminated, dealer, pot, reserve, phase_ = (
        rules, state.names, state.stacks, state.eliminated, state.dealer, state.pot,
        state.reserve, phase)
    decls = declarations if open_decls else (None,) * n
    declared = ((False,) * n if declarations.count(None) == n
                else tuple([d is not None for d in declarations]))
    dealt_in = ((True,) * n if all(hands) or None not in hands  # (``all``: cheaper)
                else tuple([h is not None for h in hands]))
    round_number, game_number = state.round_number, state.game_number
    owed, last_result = settlement.match_amount(state.pot, rules), state.last_result
    chosen = () if passes is None or not showing else tuple([p is not None for p in passes])
    if plan.masked:  # an allow-list that hides some of them
        template: list[Any] = [
            SPECTATOR_SEAT, rules_, names, stacks, eliminated, dealer, pot, reserve, phase_,
            None, decls, declared, dealt_in, round_number, game_number, owed, last_result,
            None, None, chosen]
        for index, value in plan.masked:
            template[index] = value
        (_, rules_, names, stacks, eliminated, dealer, pot, reserve, phase_, _, decls,
         declared, dealt_in, round_number, game_number, owed, last_result, _, _,
         chosen) = template
    own_hand = own_hand and showing
    # a seat sees its own declaration before the others only once it has made one
    own_decl = own_decl and declaring and not open_decls and declarations.count(None) < n
    transform = table.own_hand
    out = []
    if dealt is not None and not own_decl and transform is None and (
            passes is None or not showing):
        # the usual case: the seats' views differ by the seat and its hand alone: one row
        # of the fields in their order, its seat and hand set for each seat, copied into
        # each view (no intermediate tuple per view)
        row: list[Any] = [
            SPECTATOR_SEAT, rules_, names, stacks, eliminated, dealer, pot, reserve, phase_,
            None, decls, declared, dealt_in, round_number, game_number, owed, last_result,
            None, None, chosen]
        for s in dealt:
            row[0] = s
            if own_hand:
                row[9] = hands[s]
            out.append(_new_tuple(SeatView, row))
        return out
    for seat in seats:
        if seat is None:
            out.append(_new_tuple(SeatView, (
                SPECTATOR_SEAT, rules_, names, stacks, eliminated, dealer, pot, reserve,
                phase_, None, decls, declared, dealt_in, round_number, game_number, owed,
                last_result, None, None, chosen)))
            continue
        if not 0 <= seat < n:
            raise IndexError(f"seat {seat!r} is not at the table")
        hand = hands[seat] if own_hand else None
        if hand is not None and transform is not None:
            hand = transform(hand)
        mine = decls
        if own_decl and declarations[seat] is not None:
            mine = tuple([d if s == seat else None for s, d in enumerate(declarations)])
        passed = received = None
        if passes is not None and showing and hands[seat] is not None:
            passed, received = _passes_seen(state, seat, plan, table)
        # tuple.__new__: the named tuple's own __new__ without its Python-level call (the
        # fields in their declared order)
        out.append(_new_tuple(SeatView, (
            seat, rules_, names, stacks, eliminated, dealer, pot, reserve, phase_, hand, mine,
            declared, dealt_in, round_number, game_number, owed, last_result, passed,
            received, chosen)))
    return out


def _passes_seen(state: GameState, seat: int, plan: _Plan, table: _Table
                 ) -> tuple[Card | None, Card | None]:
    """Pass the Trash: the card ``seat`` passes and, after the exchange, the card it
    received, as their audiences allow."""
    passes = state.passes
    assert passes is not None
    viewer = seat_viewer(seat)
    passed = passes[seat] if _may_see(plan.passed, viewer, seat, table) else None
    received = None
    if state.phase is Phase.DECLARE:
        giver = _givers(state.hands).get(seat)
        if giver is not None and _may_see(plan.received, viewer, giver, table,
                                          receiver=seat):
            received = passes[giver]
    return passed, received


def view_for(state: GameState, seat: int) -> SeatView:
    """The view of seat ``seat`` (0-based) of ``state`` (:func:`view`).

    Raises:
        IndexError: ``seat`` is not at the table.
    """
    if not 0 <= seat < state.n_seats:
        raise IndexError(f"seat {seat!r} is not at the table")
    return _build(state, (seat,), _PLAN)[0]


def joint_views(state: GameState) -> dict[int, SeatView]:
    """The views of every seat dealt in, for a simultaneous decision (shares the work)."""
    hands = state.hands
    dealt: Sequence[int] = range(len(hands)) if all(hands) else state.dealt  # (usual: all)
    return dict(zip(dealt, _build(state, dealt, _PLAN, dealt), strict=True))


# -- histories ------------------------------------------------------------------------------


def _public_types(allow: Mapping[type[Any], Mapping[str, Audience]]) -> frozenset[type[Any]]:
    """The event types every field of which everyone may see."""
    return frozenset(cls for cls, fields in allow.items()
                     if all(fields.get(f.name) is _E for f in dataclasses.fields(cls)))


def _dealt(event: CardsDealt, viewer: Viewer, table: _Table, fields: Mapping[str, Audience]
           ) -> CardsDealt:
    """A hand is ``()`` ("dealt, unseen") where hidden, ``None`` (not dealt in) stays."""
    audience = fields.get("hands")
    hands: list[Hand | None] = []
    for seat, hand in enumerate(event.hands):
        if hand is None or not _may_see(audience, viewer, seat, table):
            hands.append(None if hand is None else ())
        elif seat == viewer.seat and table.own_hand is not None:
            hands.append(table.own_hand(hand))
        else:
            hands.append(hand)

    def extra(name: str, cards: Hand | None) -> Hand | None:
        return cards if cards is None or _may_see(fields.get(name), viewer, None, table) \
            else ()

    return CardsDealt(hands=tuple(hands), ghost=extra("ghost", event.ghost),
                      community=extra("community", event.community))


def _exchange(event: CardsPassed, viewer: Viewer, table: _Table,
              fields: Mapping[str, Audience], hands: Sequence[Hand | None]) -> PassSeen:
    """The viewer's share of the exchange: the card it passed and the card it received."""
    seat = viewer.seat
    if seat is None or not 0 <= seat < len(event.passes):
        return PassSeen(SPECTATOR_SEAT, None, None)
    audience = fields.get("passes")
    giver = _givers(hands).get(seat)
    receiver = next((r for r, g in _givers(hands).items() if g == seat), None)
    passed = event.passes[seat] if giver is not None and _may_see(
        audience, viewer, seat, table, receiver=receiver) else None
    received = event.passes[giver] if giver is not None and _may_see(
        audience, viewer, giver, table, receiver=seat) else None
    if passed is None:
        received = None
    return PassSeen(seat, passed, received)


def _redact(event: Event, viewer: Viewer, table: _Table,
            fields: Mapping[str, Audience], hands: Sequence[Hand | None]) -> Record | None:
    """``viewer``'s copy of one event that not everyone may read in full (``None``:
    withheld)."""
    if isinstance(event, CardsDealt):
        return _dealt(event, viewer, table, fields)
    if isinstance(event, Declared):
        return event if _may_see(fields.get("declaration"), viewer, event.seat, table) \
            else DeclarationSealed(event.seat)
    if isinstance(event, PassChosen):
        return event if _may_see(fields.get("card"), viewer, event.seat, table) \
            else PassSealed(event.seat)
    if isinstance(event, CardsPassed):
        return _exchange(event, viewer, table, fields, hands)
    # any other event: a hidden field takes its default; without one, the event is withheld
    owner = getattr(event, "seat", None)
    changes: dict[str, Any] = {}
    for field in dataclasses.fields(event):
        if not _may_see(fields.get(field.name), viewer, owner, table):
            if field.default is not dataclasses.MISSING:
                changes[field.name] = field.default
            elif field.default_factory is not dataclasses.MISSING:
                changes[field.name] = field.default_factory()
            else:
                return None
    return dataclasses.replace(event, **changes)


_PUBLIC_TYPES = _public_types(RECORD_FIELDS)


def redacted_history(events: Iterable[Event], viewer: Viewer, *, rules: Rules | None = None,
                     allow: Mapping[type[Any], Mapping[str, Audience]] | None = None
                     ) -> list[Record]:
    """``viewer``'s copy of a hand history, by the allow-list ``allow`` (default
    :data:`RECORD_FIELDS`): other seats' dealt cards are ``()`` ("dealt, unseen"), and so
    are the ghost hand and the community card (public in the round's
    :class:`~gutskit.core.events.RoundResolved` once shown) and, under ``no_peek``, the
    seat's own cards; under sealed declaration, other seats' :class:`Declared` events are
    :class:`DeclarationSealed`; other seats' passed cards are :class:`PassSealed` and the
    exchange a :class:`PassSeen` with only the card this seat passed and received (nothing
    for a spectator). Showdown hands stay (they were shown). An event type not on the
    list is left out.

    ``rules`` redacts a history that does not start with its :class:`SessionStarted` (a
    slice of a session); otherwise the session's rules are read from that event (without
    either, declarations are taken as sealed).
    """
    allow = RECORD_FIELDS if allow is None else allow
    public = _PUBLIC_TYPES if allow is RECORD_FIELDS else _public_types(allow)
    table = _table(rules)
    hands: tuple[Hand | None, ...] = ()
    out: list[Record] = []
    for event in events:
        kind = type(event)
        if kind is SessionStarted:
            assert isinstance(event, SessionStarted)
            table = _table(event.rules)
        if kind in public:
            out.append(event)
        else:
            fields = allow.get(kind)
            copy = None if fields is None else _redact(event, viewer, table, fields, hands)
            if copy is not None:
                out.append(copy)
        if kind is CardsDealt:
            assert isinstance(event, CardsDealt)
            hands = event.hands
    return out


def public_event(event: Event) -> bool:
    """Whether every viewer may read ``event`` in full (every field of its type is
    :attr:`Audience.EVERYONE`'s in :data:`RECORD_FIELDS`): every viewer's copy of it in
    :func:`redacted_history` is the event itself.

    >>> from gutskit.core.events import Declared, Rebought
    >>> public_event(Rebought(seat=1, chips=20)), public_event(Declared(1, Declaration.IN))
    (True, False)
    """
    return type(event) in _PUBLIC_TYPES


def visible_events(events: Iterable[Event], seat: int | Viewer, *, rules: Rules | None = None
                   ) -> list[Record]:
    """:func:`redacted_history` for seat ``seat`` (a negative seat: the spectator)."""
    viewer = seat if isinstance(seat, Viewer) else SPECTATOR if seat < 0 else seat_viewer(seat)
    return redacted_history(events, viewer, rules=rules)


def known_events(records: Iterable[Record]) -> list[Event]:
    """The events a viewer's copy of a history says, hidden information left unknown:
    sealed declarations and passes are dropped (the reveal and the exchange follow), a
    :class:`PassSeen` is the exchange of the cards it names (``None`` for the others),
    hands not seen stay ``()``. :func:`gutskit.core.engine.evolve` replays the result; a
    full history comes back unchanged.
    """
    out: list[Event] = []
    hands: tuple[Hand | None, ...] = ()
    for record in records:
        if isinstance(record, DeclarationSealed | PassSealed):
            continue
        if isinstance(record, PassSeen):
            passes: list[Card | None] = [None] * len(hands)
            giver = _givers(hands).get(record.seat)
            if 0 <= record.seat < len(hands) and record.passed is not None:
                passes[record.seat] = record.passed
            if giver is not None and record.received is not None:
                passes[giver] = record.received
            out.append(CardsPassed(tuple(passes)))
            continue
        if isinstance(record, CardsDealt):
            hands = record.hands
        out.append(record)
    return out
