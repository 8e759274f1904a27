"""Hand-history events: frozen records of every change to a session.

The hand history *is* the event log: :func:`gutskit.core.engine.replay` rebuilds any state from
it. Seats are indices in clockwise order; per-seat tuples are indexed by seat. Chips are
integers.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias, TypeVar

from gutskit.core.cards import Card
from gutskit.core.rules import Rules


class Declaration(enum.Enum):
    """A player's declaration (RULES.md "Antes, declaration, resolution", step 3).

    ``HIGH``, ``LOW`` and ``BOTH`` are the "in" declarations of Hi-Lo Guts (``hi_lo``,
    German/French seed), where ``IN`` is not used; elsewhere only ``IN`` and ``OUT``.
    """

    IN = "in"
    OUT = "out"
    HIGH = "high"
    LOW = "low"
    BOTH = "both"


IN_DECLARATIONS = frozenset({Declaration.IN, Declaration.HIGH, Declaration.LOW,
                             Declaration.BOTH})
"""The declarations that put a player in."""


class Outcome(enum.Enum):
    """How a round was resolved (RULES.md step 4)."""

    VOID = "void"
    """Nobody in: the deal is played again (``all_out``)."""
    UNCONTESTED = "uncontested"
    """Exactly one in: that player takes the whole pot without showing or matching."""
    SHOWDOWN = "showdown"
    """Two or more in: the best hand wins, every other player in matches the pot."""


Hand: TypeAlias = tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class SessionStarted:
    """The table sits down: names clockwise, starting stacks (the buy-ins), first dealer,
    the starting pot and reserve (normally 0), and the rules."""

    rules: Rules
    names: tuple[str, ...]
    stacks: tuple[int, ...]
    dealer: int
    pot: int = 0
    reserve: int = 0
    loss_limits: tuple[int | None, ...] | None = None
    """Each player's personal loss limit (chips; ``None`` = none), a per-seat choice
    (seeds: "set a personal loss limit before play"); a player whose net loss reaches it is
    sat out (:class:`SatOut`)."""
    companion: bool = False
    """Companion mode (issue 10): the cards are dealt at a real table, not by gutskit. Every
    deal records each hand as ``()`` (dealt, not known), a player may declare in without
    gutskit knowing the cards, and a round that compares hands waits in the showdown phase
    for the cards of the players in (:class:`CardsShown`) or the winners named by the table
    (:class:`WinnersNamed`); the host may undo the last round (:class:`RoundUndone`)."""


@dataclass(frozen=True, slots=True)
class AntesPosted:
    """Antes for the coming deal. ``amounts[seat]`` left each stack; ``refill`` chips moved
    from the reserve to the pot first (``pot_cap_mode = "reserve"``); ``new_game`` is true
    when the pot was empty."""

    amounts: tuple[int, ...]
    refill: int
    new_game: bool


@dataclass(frozen=True, slots=True)
class CardsDealt:
    """Each seat's hand, or ``None`` for a seat not dealt in. Secret: a seat's view shows
    only its own hand (not even that under ``no_peek``).

    ``ghost`` is the ghost hand (``ghost_hand``) and ``community`` the community card as a
    one-card hand (``community_card``), both dealt face down: secret until the showdown /
    the turn. ``()`` means dealt but not recorded (a referee's real table)."""

    hands: tuple[Hand | None, ...]
    ghost: Hand | None = None
    community: Hand | None = None


@dataclass(frozen=True, slots=True)
class PassChosen:
    """Pass the Trash: one seat has chosen the card it passes to its left. Secret: only
    that seat sees it until the exchange (others see that it has chosen)."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class CardsPassed:
    """Pass the Trash: every seat's passed card moves to the next seat dealt in on its
    left, all at once. ``passes[seat]`` is the card ``seat`` passed (``None`` for seats not
    dealt in). Secret: a seat sees only the card it passed and the card it received."""

    passes: tuple[Card | None, ...]


@dataclass(frozen=True, slots=True)
class Misdealt:
    """A misdeal (a wrong number of cards, a card exposed while dealing): the cards are
    thrown in, the antes stay in the pot, the same dealer deals again and no new ante is
    asked (German/French seed)."""

    reason: str = "misdeal"


@dataclass(frozen=True, slots=True)
class Rebought:
    """A rebuy between rounds: ``chips`` more for ``seat`` (``rebuys``)."""

    seat: int
    chips: int


@dataclass(frozen=True, slots=True)
class SatOut:
    """``seat`` is sat out for the rest of the session, keeping its chips; ``reason`` says
    why (its personal loss limit was reached)."""

    seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class SeatAway:
    """``seat`` sits out for a while (away): it keeps its seat and its chips, is dealt out
    from the next deal (no ante, no cards) and comes back with :class:`SeatBack`
    (:mod:`gutskit.core.table`)."""

    seat: int


@dataclass(frozen=True, slots=True)
class SeatBack:
    """``seat``, away, is back: it is dealt in again from the next deal."""

    seat: int


@dataclass(frozen=True, slots=True)
class SeatLeft:
    """``seat`` left the table for good: never dealt in again, no share of what is left in
    the pot; its chips stay in the ledger. A decision still open this round is made for it
    (:func:`gutskit.core.table.default_action`)."""

    seat: int


@dataclass(frozen=True, slots=True)
class SeatRemoved:
    """``seat`` was removed from the table for good (the host kicked it); as
    :class:`SeatLeft` otherwise. ``reason`` says why."""

    seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class Declared:
    """One seat's declaration. Sealed until :class:`DeclarationsRevealed` unless the
    declaration is sequential."""

    seat: int
    declaration: Declaration


@dataclass(frozen=True, slots=True)
class DeclarationsRevealed:
    """All declarations shown at once (the fists open)."""

    declarations: tuple[Declaration | None, ...]


@dataclass(frozen=True, slots=True)
class RoundResolved:
    """The settlement of a round (RULES.md step 4-5, "Money, limits, ending").

    Attributes:
        outcome: void, uncontested or showdown.
        shown: the hands shown at a showdown (``None`` for every other seat and for every
            seat in a void or uncontested round).
        winners: the seats that took (a share of) the pot.
        won: chips each seat took from the pot.
        matched: chips each seat paid into the next pot (its match).
        eliminated: seats eliminated this round (``shortfall = "eliminate"``).
        to_reserve: chips moved from the pot to the reserve (``pot_cap_mode = "reserve"``).
        pot_after: the pot after the round (carry-over + matches, capped).
        next_dealer: the dealer of the next round.
        session_over: the session ends with this round (``end_on_uncontested``, or fewer
            than two players left in play and no bust seat with a rebuy left).
        community: the community card turned after the declarations (``community_card``),
            as a one-card hand.
        ghost: the ghost hand, shown at a showdown (``ghost_hand``).
        ghost_won: the ghost hand was best: nobody took the pot.
        high_winners, low_winners: the winners of the high and the low pot (``hi_lo``).
        high_pot, low_pot: what the high and the low side played for (``hi_lo``).
        ante_payers: who pays everyone's ante for the re-deal (a void round under
            ``all_out = "best_pays_antes"``: the best hand(s), shown in ``shown``).
        failed_high, failed_low: ``hi_lo``: the seats that declared both and lose both ways
            because their hand did not win or tie the high (resp. low) side (RULES.md
            Variants, Hi-Lo Guts: "a *both* player must win or tie both ways"); a seat may
            be in both. Empty when the table named the winners (companion mode: no hand
            was compared).
    """

    outcome: Outcome
    shown: tuple[Hand | None, ...]
    winners: tuple[int, ...]
    won: tuple[int, ...]
    matched: tuple[int, ...]
    eliminated: tuple[int, ...]
    to_reserve: int
    pot_after: int
    next_dealer: int
    session_over: bool
    community: Hand | None = None
    ghost: Hand | None = None
    ghost_won: bool = False
    high_winners: tuple[int, ...] = ()
    low_winners: tuple[int, ...] = ()
    high_pot: int = 0
    low_pot: int = 0
    ante_payers: tuple[int, ...] = ()
    failed_high: tuple[int, ...] = ()
    failed_low: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class CardsShown:
    """Companion mode: the cards turned face up at the real table's showdown, entered
    into gutskit: ``hands[seat]`` for each seat whose cards the round needs (the players
    in; every dealt seat for the all-out penalty), ``None`` for the others; the ghost hand
    and the community card when the rules have them and the round needs them. Public: the
    table sees them. The round is then settled from them exactly as a dealt round
    (:class:`RoundResolved` follows)."""

    hands: tuple[Hand | None, ...]
    ghost: Hand | None = None
    community: Hand | None = None


@dataclass(frozen=True, slots=True)
class WinnersNamed:
    """Companion mode: the table agrees not to enter cards and names the result of the
    showdown; the chips move by the same settlement as a dealt round (:class:`RoundResolved`
    follows). Public.

    Attributes:
        winners: the seats that take the pot (tied winners split it); ``()`` under
            ``ghost_hand``: nobody beat the ghost hand. Under ``hi_lo`` the high side's
            winners. In a void round under ``all_out = "best_pays_antes"``: the seats
            holding the best hand, who pay the re-deal's antes.
        low_winners: ``hi_lo``: the low side's winners.
        losers: ``losers_pay = "worst"``: the seats holding the worst hand in, who match
            (``None`` under every other rule: every player in who did not win matches).
    """

    winners: tuple[int, ...]
    low_winners: tuple[int, ...] = ()
    losers: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class RoundUndone:
    """Companion mode: the host undoes the last round (a wrong entry): every chip it moved
    goes back (antes, wins, matches, the reserve, eliminations, and the end of the session
    the round caused) and the table stands where it stood before that round's deal, with
    the same dealer. Kept in the hand history (never a silent edit). Public.

    Attributes:
        round: the number of the round undone (1-based, as counted by the deals).
        stacks: the stacks restored (chips).
        pot: the pot restored.
        reserve: the reserve restored.
        reason: why (as the host gave it).
    """

    round: int
    stacks: tuple[int, ...]
    pot: int
    reserve: int
    reason: str = "undone by the host"


@dataclass(frozen=True, slots=True)
class HandShown:
    """After an uncontested win the winner chose to show its cards to the table (RULES.md
    "Resolve", exactly one in: the pot is taken *without showing cards*; showing them is
    the winner's choice). Public from then on; never made for a seat that did not choose.

    Attributes:
        seat: the winner who shows.
        hand: its cards of the round just won.
    """

    seat: int
    hand: Hand


@dataclass(frozen=True, slots=True)
class SessionEnded:
    """The session stops. ``payouts[seat]`` is that seat's share of what was left in the
    pot and the reserve (shared evenly among the players still seated, odd chips clockwise
    from the dealer's left)."""

    reason: str
    payouts: tuple[int, ...]


Event: TypeAlias = (
    SessionStarted | AntesPosted | CardsDealt | PassChosen | CardsPassed | Declared
    | DeclarationsRevealed | RoundResolved | Misdealt | Rebought | SatOut | SessionEnded
    | SeatAway | SeatBack | SeatLeft | SeatRemoved | CardsShown | WinnersNamed | RoundUndone
    | HandShown
)
"""Any hand-history event."""


_E = TypeVar("_E")


def builder(cls: type[_E]) -> Callable[..., _E]:
    """A constructor of the frozen, slotted event class ``cls`` that takes the same
    arguments and returns an equal event, for the engine's hot paths.

    A frozen dataclass sets each field in ``__init__`` through ``object.__setattr__`` (one
    C call per field, defaults included: 18 for :class:`RoundResolved`). The builder fills
    a draft, a plain class with the same slots, by ordinary stores, then turns it into
    ``cls`` by one ``__class__`` assignment (allowed because the two layouts are the same);
    the result is an ordinary, immutable ``cls`` instance. ``tests/test_engine_speed.py``
    checks each builder against its class.
    """
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    draft = type(f"_{cls.__name__}Draft", (), {"__slots__": cls.__slots__})  # type: ignore[attr-defined]
    namespace: dict[str, Any] = {"_new": object.__new__, "_Draft": draft, "_Event": cls}
    params = []
    for f in fields:
        if f.default is dataclasses.MISSING:
            params.append(f.name)
        else:
            namespace[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
    stores = "".join(f"    event.{f.name} = {f.name}\n" for f in fields)
    source = (f"def build({', '.join(params)}):\n    event = _new(_Draft)\n{stores}"
              "    event.__class__ = _Event\n    return event\n")
    exec(source, namespace)  # code generated from the fields, as dataclasses does
    build: Callable[..., _E] = namespace["build"]
    build.__qualname__ = build.__name__ = f"build_{cls.__name__}"
    build.__doc__ = f"Build a :class:`{cls.__name__}` (same arguments, faster)."
    return build
