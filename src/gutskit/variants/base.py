"""The interface between the engine and the variants: the hooks a variant may override.

A variant (RULES.md "Variants") is a small class that overrides a few well-named hooks of
:class:`Variant` (python-chess's ``chess/variant.py`` style); every hook's default is the
standard game, so a variant says only how it differs. The engine composes the variants a
:class:`~gutskit.core.rules.Rules` turns on (:func:`gutskit.variants.variants_for`) and calls
the hooks at named steps of its one pipeline: the deal (:meth:`Variant.extra_cards`), the
antes (:meth:`Variant.antes`), the declarations (:attr:`Variant.declarations`), the
resolution (:meth:`Variant.score`, :meth:`Variant.on_void`, :meth:`Variant.showdown`,
:meth:`Variant.winners`, :meth:`Variant.losers`, :meth:`Variant.turn`) and the views
(:meth:`Variant.view_hand`).

Variants never import the engine: they see the state through the read-only
:class:`RoundState` protocol (which :class:`gutskit.core.engine.GameState` satisfies), so the
imports point one way: engine -> variants -> rules, events, cards, evaluation, settlement.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import ClassVar, Protocol

from gutskit.core.events import Declaration, Hand, RoundResolved
from gutskit.core.rules import Rules

Score = Callable[[Hand, bool], int]
"""A hand's strength key (higher = better; ``low=True``: the key of its best low hand,
lower = better) under the round's rules: ``score(hand, low)``."""


class RoundState(Protocol):
    """What a variant may read of the engine's state (a :class:`GameState`)."""

    @property
    def rules(self) -> Rules: ...
    @property
    def names(self) -> tuple[str, ...]: ...
    @property
    def stacks(self) -> tuple[int, ...]: ...
    @property
    def dealer(self) -> int: ...
    @property
    def pot(self) -> int: ...
    @property
    def hands(self) -> tuple[Hand | None, ...]: ...
    @property
    def declarations(self) -> tuple[Declaration | None, ...]: ...
    @property
    def ghost(self) -> Hand | None: ...
    @property
    def community(self) -> Hand | None: ...
    @property
    def last_result(self) -> RoundResolved | None: ...
    @property
    def ante_payers(self) -> tuple[int, ...]: ...
    @property
    def seats_in_play(self) -> tuple[int, ...]: ...


class Resolution:
    """The round's settlement while the pipeline builds it (chips are integers; per-seat
    lists indexed by seat). The class-level fields (defaults) are the variants' additions to
    :class:`~gutskit.core.events.RoundResolved`.

    Attributes:
        won: chips each seat takes from the pot.
        owed: what each loser must match (before ``shortfall`` and ``pot_cap``).
        shown: the hands shown (``None`` = not shown).
        winners: the seats that take (a share of) the pot.
        carry: chips left in the pot by the award (odd chips, a pot nobody took).
    """

    community: Hand | None = None
    ghost: Hand | None = None
    ghost_won = False
    high_winners: tuple[int, ...] = ()
    low_winners: tuple[int, ...] = ()
    high_pot = 0
    low_pot = 0
    ante_payers: tuple[int, ...] = ()
    failed_high: tuple[int, ...] = ()
    failed_low: tuple[int, ...] = ()
    # (class-level defaults: a variant that sets one sets it on the instance; the standard
    # game's round stores only the five fields below)

    def __init__(self, won: list[int], owed: list[int], shown: list[Hand | None]) -> None:
        self.won = won
        self.owed = owed
        self.shown = shown
        self.winners: tuple[int, ...] = ()
        self.carry = 0


class Variant(ABC):
    """One variant family. Subclasses set :attr:`name` and override the hooks they change;
    :meth:`applies` says whether a rule set turns the variant on."""

    name: ClassVar[str] = ""
    """The variant's name (RULES.md "Variants")."""

    declarations: ClassVar[tuple[Declaration, ...] | None] = None
    """The declarations a player may make (``None``: the standard in / out)."""

    antes_every_hand: ClassVar[bool] = False
    """Antes are due at every deal, not only when a game starts."""

    pass_phase: ClassVar[bool] = False
    """A pass phase comes between the deal and the declarations."""

    uncontested_win: ClassVar[bool] = True
    """A lone player in takes the pot without a showdown."""

    in_turn: ClassVar[bool] = False
    """Players declare one at a time, in declaration order (clockwise from the dealer's
    left)."""

    sealed: ClassVar[bool] = True
    """A declaration stays hidden from the other seats until the reveal."""

    pot_may_stay: ClassVar[bool] = False
    """A showdown may leave the pot with nobody (the ghost hand beats every hand in; every
    hi-lo player in declared both and failed): in companion mode the table may name no
    winner."""

    hides_cards: ClassVar[bool] = False
    """:meth:`view_hand` hides something (the views take their slower, careful path)."""

    @classmethod
    @abstractmethod
    def applies(cls, rules: Rules) -> bool:
        """Whether ``rules`` turn this variant on (each variant says; abstract)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules

    # The deal. ---------------------------------------------------------------------------

    def extra_cards(self) -> tuple[tuple[str, int], ...]:
        """Cards dealt beyond the hands, after them, in order: ``(what, how many)`` with
        ``what`` ``"ghost"`` or ``"community"`` (the :class:`CardsDealt` field)."""
        return ()

    # The antes. --------------------------------------------------------------------------

    def antes(self, state: RoundState, amounts: tuple[int, ...]) -> tuple[int, ...]:
        """Each seat's ante at this deal, given the standard ``amounts``."""
        return amounts

    # The resolution. ---------------------------------------------------------------------

    def missing_cards(self, state: RoundState, in_seats: Sequence[int],
                      compared: bool) -> str | None:
        """Why the round cannot be settled from what was recorded (cards the variant needs
        but a referee's real table did not record, ``()``), or ``None``. ``in_seats``: the
        seats in; ``compared``: the round compares hands (a showdown, or a void round
        settled by the hands)."""
        return None

    def score(self, state: RoundState, table: Sequence[int]) -> Score | None:
        """How a hand is scored this round (``None``: the standard strength table)."""
        return None

    def on_void(self, state: RoundState, score: Score, result: Resolution) -> None:
        """Nobody is in: what the void round settles beyond the ``all_out`` re-deal."""
        return None  # a hook: by default nothing

    def showdown(self, state: RoundState, in_seats: Sequence[int], score: Score,
                 result: Resolution) -> bool:
        """Settle the whole showdown (fill ``won``, ``owed``, ``winners``, ``carry``) and
        return ``True``; ``False`` (the default): the standard steps do it."""
        return False

    def winners(self, state: RoundState, keys: dict[int, int], score: Score,
                result: Resolution) -> tuple[int, ...] | None:
        """Who takes the pot, given each in seat's key (``None``: the best key; ``()``:
        nobody, the pot stays)."""
        return None

    def losers(self, state: RoundState, keys: dict[int, int],
               winners: tuple[int, ...]) -> list[int] | None:
        """Who must match the pot (``None``: every seat in that did not win)."""
        return None

    def turn(self, state: RoundState, result: Resolution) -> None:
        """Cards turned face up at every resolution, whatever the outcome."""
        return None  # a hook: by default nothing

    # Companion mode: the table names the result instead of showing the cards. -----------

    def named_problem(self, state: RoundState, in_seats: Sequence[int],
                      winners: Sequence[int], low_winners: Sequence[int]) -> str | None:
        """Why the winners the table named cannot be the result of this showdown under the
        variant (``None``: they can)."""
        return None

    def award(self, state: RoundState, in_seats: Sequence[int], winners: tuple[int, ...],
              low_winners: tuple[int, ...], result: Resolution) -> bool:
        """Award the pot to ``winners`` (and ``low_winners``) and fill ``owed``, as
        :meth:`showdown` does once it knows the winners; ``True`` if the variant did it,
        ``False`` (the default): the standard steps do it."""
        return False

    def winners_named(self, state: RoundState, winners: tuple[int, ...],
                      result: Resolution) -> None:
        """The table named ``winners`` (companion mode): what the variant records, as
        :meth:`winners` does from the keys."""
        return None  # a hook: by default nothing

    # The views. --------------------------------------------------------------------------

    def view_hand(self, hand: Hand) -> Hand:
        """What a seat sees of its own dealt ``hand`` before the reveal."""
        return hand
