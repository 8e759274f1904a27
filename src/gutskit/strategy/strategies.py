"""Strong bots: a threshold bot, the equilibrium bot and an exploitative (learning) bot.

All follow the :class:`gutskit.strategy.bots.Strategy` protocol (``declare(view, rng) ->
Declaration``) and see nothing but their :class:`~gutskit.core.views.SeatView`.

* :class:`ThresholdBot`: in exactly with hands at or above a percentile
  (:mod:`gutskit.strategy.tables`: the fraction of all hands a hand beats, ties half).
* :class:`EquilibriumBot`: plays the symmetric equilibrium for the number of players dealt
  in: the stored certified per-hand strategy where one applies
  (:func:`gutskit.strategy.certify.stored_strategy`), else the threshold of
  :mod:`gutskit.strategy.solver` (in above the threshold key, mixing at it).
* :class:`ExploitativeBot`: learns each opponent's in-rate (by pot size) and lowest shown
  hands from what its views show -- the last round's public result tells who was in (a
  showdown shows the hands of everyone in; an uncontested win shows who was alone in; a void
  round that nobody was) -- models each opponent as a threshold player, and best-responds
  to that model hand by hand (see :meth:`ExploitativeBot.in_gain`).

:func:`fast_policy` turns a bot into a :class:`gutskit.strategy.fast.FastPolicy` for the vectorized
simulator where the bot is a fixed function of hand and pot (``None`` for the adaptive
:class:`ExploitativeBot`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gutskit.core.errors import GutsError
from gutskit.core.events import Declaration, Outcome
from gutskit.core.rules import Rules
from gutskit.core.views import SeatView
from gutskit.strategy.bots import RandomBot, RuleOfThumbBot, Strategy

if TYPE_CHECKING:  # numpy is imported where it is used: building a bot loads none of it
    import numpy as np

    from gutskit.strategy.certify import PerHandStrategy
    from gutskit.strategy.fast import FastPolicy
    from gutskit.strategy.tables import HandTable

__all__ = [
    "BOT_KINDS",
    "PLAY_TABLE",
    "EquilibriumBot",
    "ExploitativeBot",
    "ThresholdBot",
    "fast_policy",
    "make_bot",
    "parse_bot_kinds",
    "play_table",
]


def _code(hand: tuple[int, ...]) -> int:
    index = 0
    for card in hand:
        index = index * 52 + card
    return index


def _cannot_cover(view: SeatView) -> bool:
    return view.rules.require_cover and view.stacks[view.seat] < view.owed


@dataclass
class ThresholdBot:
    """In exactly with a hand whose percentile is at least ``percentile`` (0..1).

    >>> from gutskit.strategy.tables import hand_table
    >>> bot = ThresholdBot(0.5)
    >>> bot.percentile
    0.5
    """

    percentile: float = 0.5
    name: str = "threshold"

    def declare(self, view: SeatView, rng: random.Random) -> Declaration:
        """In when the hand's percentile reaches :attr:`percentile` (out without cover
        under ``require_cover``)."""
        if view.hand is None or _cannot_cover(view):
            return Declaration.OUT
        from gutskit.strategy.tables import hand_table

        table = hand_table(view.rules.ranking)
        pct = float(table.rank_percentile[table.code_to_rank[_code(view.hand)]])
        return Declaration.IN if pct >= self.percentile else Declaration.OUT


def _solver_rules(rules: Rules) -> Rules:
    """The rules handed to the solver: sequential declaration is solved as simultaneous
    (the solver models sealed declarations; the equilibrium bot ignores earlier calls)."""
    if rules.declaration == "sequential":
        return rules.replace(declaration="simultaneous")
    return rules


def _pot_dependent(rules: Rules) -> bool:
    """Rules under which the solver's threshold depends on the pot (module docstring of
    :mod:`gutskit.strategy.solver`)."""
    return (rules.pot_cap is not None or rules.all_out == "best_pays_antes"
            or getattr(rules, "losers_pay", "all") != "all")


def _stored_cell(rules: Rules, players: int, model: str) -> PerHandStrategy | None:
    """The stored per-hand cell the equilibrium bot plays, if any (solver rules): certified
    exact (2 cards up to 6 players, 3 cards up to 3) or sampled (the rest up to 10
    players), the same cell the coach plays."""
    if rules.cards_per_hand not in (2, 3) or players > 10:
        return None  # no stored cell: skip importing the certified module
    from gutskit.strategy.certify import stored_strategy

    return stored_strategy(rules.cards_per_hand, players, model, rules, sampled=True)


@dataclass
class EquilibriumBot:
    """Plays the symmetric equilibrium for the number of players dealt in this round.

    Where a stored per-hand solution applies
    (:func:`gutskit.strategy.certify.stored_strategy` with ``sampled=True``: 2 or 3 cards,
    2 to 10 players dealt in, certified rules with the default ranking; certified exact or
    sampled), it plays that per-hand strategy: in with the hand's own in-probability
    (blockers and suits included; issue 12). Elsewhere, the
    threshold equilibrium of :func:`gutskit.strategy.solver.equilibrium`: in above the
    threshold key, in with the solver's mixing probability at it, out below. Nothing is
    solved on the spot beyond the threshold solver; the coach
    (:func:`gutskit.strategy.coach.equilibrium_strategy`) makes the same choice.

    Args:
        model: ``"recursive"`` (default, the pot carries on) or ``"one_round"``.
        name: display name.

    Raises (from :meth:`declare`):
        gutskit.strategy.solver.SolverError: rules the solver does not model.
    """

    model: str = "recursive"
    name: str = "equilibrium"

    def in_probability(self, view: SeatView) -> float:
        """The equilibrium's probability of *in* with this view's hand (the stored per-hand
        strategy where it applies, else the threshold solution)."""
        from gutskit.strategy.solver import equilibrium

        assert view.hand is not None
        rules = _solver_rules(view.rules)
        players = max(2, sum(view.dealt_in))
        cell = _stored_cell(rules, players, self.model)
        if cell is not None:
            return cell.in_probability(view.hand)
        pot = view.pot if _pot_dependent(rules) else None
        eq = equilibrium(cards_per_hand=rules.cards_per_hand, players=players, rules=rules,
                         model=self.model,  # type: ignore[arg-type]
                         pot=pot)
        from gutskit.strategy.tables import hand_table

        key = int(hand_table(rules.ranking).code_to_key[_code(view.hand)])
        return eq.in_probability(key)

    def declare(self, view: SeatView, rng: random.Random) -> Declaration:
        """In with :meth:`in_probability` (drawn with ``rng`` when mixing)."""
        if view.hand is None or _cannot_cover(view):
            return Declaration.OUT
        p = self.in_probability(view)
        if p >= 1.0:
            return Declaration.IN
        if p <= 0.0:
            return Declaration.OUT
        return Declaration.IN if rng.random() < p else Declaration.OUT


POT_BUCKETS = (1.0, 3.0, 10.0)
"""Edges of the pot buckets the exploitative bot learns in-rates in, as multiples of the
opening pot (players x ante): opening pot, up to 3x, up to 10x, more."""


@dataclass
class _Opponent:
    seen: list[int] = field(default_factory=lambda: [0] * (len(POT_BUCKETS) + 1))
    ins: list[int] = field(default_factory=lambda: [0] * (len(POT_BUCKETS) + 1))
    shown: list[float] = field(default_factory=list)


@dataclass
class ExploitativeBot:
    """Learns opponents' thresholds from what it has seen and best-responds.

    **What it learns.** For every opponent (by name): how often they were in, per pot
    bucket (:data:`POT_BUCKETS`), counted from the public result of each round it was dealt
    into (``view.last_result`` at its next decision), and the percentiles of the hands they
    showed at showdowns. An opponent is modelled as a threshold player whose threshold is
    ``1 - in-rate`` (a Beta prior of ``prior_strength`` pseudo-rounds at ``prior_in_rate``
    keeps early estimates sane), and never above the lowest hand they have shown (a player
    who showed a weak hand goes in with weak hands).

    **How it responds.** For the hand it holds it computes, against those thresholds
    (opponents independent; card removal ignored), the chance that every opponent is out,
    that it beats everyone in, ties, or loses, and the gain of *in* over *out* with the
    recursive game's continuation values (a matched pot comes back as a 1/N share, see
    :mod:`gutskit.strategy.solver`): ``U P (1 - 1/N) + (W - U) P + T P / 2 - L M (1 - 1/N)``;
    it goes
    in when that is positive (:meth:`in_gain`).

    Args:
        prior_in_rate: the in-rate assumed before any observation.
        prior_strength: weight of the prior, in rounds.
        name: display name.
    """

    prior_in_rate: float = 0.3
    prior_strength: float = 8.0
    name: str = "exploitative"
    _opponents: dict[str, _Opponent] = field(default_factory=dict, init=False, repr=False)
    _last: SeatView | None = field(default=None, init=False, repr=False)

    # -- learning ---------------------------------------------------------------------------

    def _bucket(self, pot: int, view: SeatView) -> int:
        opening = max(1, sum(view.dealt_in)) * view.rules.ante
        ratio = pot / opening
        for i, edge in enumerate(POT_BUCKETS):
            if ratio <= edge:
                return i
        return len(POT_BUCKETS)

    def observe(self, view: SeatView) -> None:
        """Learn from the result of the previous round this bot was dealt into (called by
        :meth:`declare`; rounds it was not dealt into are skipped, since it cannot tell
        who was dealt in then)."""
        last, self._last = self._last, view
        result = view.last_result
        if last is None or result is None or view.round_number != last.round_number + 1:
            return
        ins = _ins_of(result, len(view.names))
        if ins is None:
            return
        from gutskit.strategy.tables import hand_table

        table = hand_table(view.rules.ranking)
        bucket = self._bucket(last.pot, last)
        for seat, dealt in enumerate(last.dealt_in):
            if not dealt or seat == view.seat:
                continue
            opp = self._opponents.setdefault(view.names[seat], _Opponent())
            opp.seen[bucket] += 1
            if seat in ins:
                opp.ins[bucket] += 1
                shown = result.shown[seat]
                if shown:
                    opp.shown.append(float(table.rank_percentile[table.code_to_rank[
                        _code(tuple(shown))]]))

    def threshold_of(self, name: str, bucket: int) -> float:
        """The modelled threshold percentile of opponent ``name`` in a pot bucket."""
        opp = self._opponents.get(name)
        if opp is None:
            return 1.0 - self.prior_in_rate
        total_seen, total_in = sum(opp.seen), sum(opp.ins)
        pooled = ((total_in + self.prior_strength * self.prior_in_rate)
                  / (total_seen + self.prior_strength))
        rate = ((opp.ins[bucket] + self.prior_strength * pooled)
                / (opp.seen[bucket] + self.prior_strength))
        threshold = 1.0 - rate
        if opp.shown:
            threshold = min(threshold, min(opp.shown))
        return threshold

    # -- responding -------------------------------------------------------------------------

    def in_gain(self, view: SeatView) -> float:
        """Expected gain of *in* over *out* this round, in chips, under the opponent
        model (see the class docstring)."""
        assert view.hand is not None
        from gutskit.strategy.tables import hand_table

        table = hand_table(view.rules.ranking)
        rank = int(table.code_to_rank[_code(view.hand)])
        cum = _cumulative(table)
        below, tie_top = float(cum[rank]), float(cum[rank + 1])
        bucket = self._bucket(view.pot, view)
        all_out = win = not_lose = 1.0
        for seat, dealt in enumerate(view.dealt_in):
            if not dealt or seat == view.seat:
                continue
            t = self.threshold_of(view.names[seat], bucket)
            out = t
            j_below = max(0.0, below - t)
            j_tie = max(0.0, tie_top - max(below, t))
            all_out *= out
            win *= out + j_below
            not_lose *= out + j_below + j_tie
        n = max(2, sum(view.dealt_in))
        keep = 1.0 - 1.0 / n
        pot, owed = view.pot, view.owed
        tie = not_lose - win
        lose = 1.0 - not_lose
        return (all_out * pot * keep + (win - all_out) * pot + tie * pot / 2
                - lose * owed * keep)

    def declare(self, view: SeatView, rng: random.Random) -> Declaration:
        """Observe, then in when :meth:`in_gain` is positive."""
        self.observe(view)
        if view.hand is None or _cannot_cover(view):
            return Declaration.OUT
        return Declaration.IN if self.in_gain(view) > 0 else Declaration.OUT


def _ins_of(result: Any, n_seats: int) -> set[int] | None:
    """Seats that were in, from a public :class:`~gutskit.core.events.RoundResolved`."""
    outcome = result.outcome
    if outcome is Outcome.VOID:
        return set()
    if outcome is Outcome.UNCONTESTED:
        return set(result.winners)
    if outcome is Outcome.SHOWDOWN:
        return {s for s in range(n_seats) if result.shown[s] is not None}
    return None


_CUMULATIVE: dict[int, np.ndarray[Any, np.dtype[np.float64]]] = {}


def _cumulative(table: HandTable) -> np.ndarray[Any, np.dtype[np.float64]]:
    """``cum[r]`` = fraction of hands with dense rank below ``r`` (length n_ranks + 1)."""
    cached = _CUMULATIVE.get(id(table))
    if cached is None:
        import numpy as np

        cached = np.concatenate(([0.0], np.cumsum(table.rank_count) / table.n_hands))
        _CUMULATIVE[id(table)] = cached
    return cached


# ---------------------------------------------------------------------------------------------
# Bots as fast-simulator policies.


def _base_view(rules: Rules, players: int) -> SeatView:
    from gutskit.core.engine import deal, new_session
    from gutskit.core.views import view_for

    state = new_session([f"p{i}" for i in range(players)], 10**9, rules=rules)
    k = rules.cards_per_hand
    hands = tuple(tuple(range(i * k, (i + 1) * k)) for i in range(players))
    state, _ = deal(state, hands)
    return view_for(state, 0)


def _with_pot(view: SeatView, pot: int) -> SeatView:
    from gutskit.core.settlement import match_amount

    owed = match_amount(pot, view.rules)
    replace: Callable[..., SeatView] = view._replace  # NamedTuple
    return replace(pot=pot, owed=owed)


Cut = tuple[int, int, int]


def _pot_scan(cutoff: Callable[[int], Cut], max_pot: int) -> tuple[list[int], list[Cut]]:
    """Change points of a step function of the pot on ``[0, max_pot]`` (monotone pieces
    found by bisection): ``(edges, values)`` with ``values[i]`` on
    ``[edges[i-1], edges[i])``."""
    edges: list[int] = []
    values: list[Cut] = [cutoff(0)]

    def walk(lo: int, hi: int, v_lo: Cut, v_hi: Cut) -> None:
        if v_lo == v_hi and hi - lo <= 64:
            return
        if hi - lo == 1:
            if v_lo != v_hi:
                edges.append(hi)
                values.append(v_hi)
            return
        mid = (lo + hi) // 2
        v_mid = cutoff(mid)
        walk(lo, mid, v_lo, v_mid)
        walk(mid, hi, v_mid, v_hi)

    walk(0, max_pot, values[0], cutoff(max_pot))
    return edges, values


def _rule_of_thumb_policy(bot: RuleOfThumbBot, rules: Rules, players: int,
                          table: HandTable) -> FastPolicy:
    """:meth:`gutskit.strategy.bots.RuleOfThumbBot.plays` as in-tables by pot (plain resolution):
    at a pot of at most two antes, hands at or above its threshold; above, the hands the
    seeds' rule plays at or above the threshold, and for a loose bot also every hand at or
    above the rule's share lowered by the style. The tests replay deals through both."""
    from gutskit.strategy.bots import _rule_share_percentile, qualifies_by_rule_of_thumb

    base = _base_view(rules, players)
    pct = table.rank_percentile
    import numpy as np

    from gutskit.strategy.fast import FastPolicy

    first = np.unique(table.rank, return_index=True)[1]
    rule = np.array([qualifies_by_rule_of_thumb(tuple(int(c) for c in table.cards[i]),
                                                rules.cards_per_hand) for i in first])
    share = _rule_share_percentile(rules.ranking)

    def cuts(pot: int) -> tuple[int, int, int]:
        view = _with_pot(base, pot)
        bar = int(np.searchsorted(pct, bot.threshold(view), side="left"))
        loose = (int(np.searchsorted(pct, share + bot.tightening(view) + bot.style,
                                     side="left")) if bot.style < 0 else table.n_ranks)
        return (int(pot <= 2 * rules.ante), bar, loose)

    max_pot = 4096 * players * rules.ante
    edges, values = _pot_scan(cuts, max_pot)
    ranks = np.arange(table.n_ranks)
    rows = []
    for small, bar, loose in values:
        if small:
            rows.append(ranks >= bar)
        else:
            rows.append((rule & (ranks >= bar)) | (ranks >= loose))
    probs = np.array(rows, dtype=np.float64)
    return FastPolicy(probs, np.array(edges, dtype=np.int64), name=bot.name)


def fast_policy(bot: Strategy, rules: Rules, players: int) -> FastPolicy | None:
    """``bot`` as a :class:`~gutskit.strategy.fast.FastPolicy` at a table of ``players`` players
    who are all dealt in, or ``None`` when the bot adapts (:class:`ExploitativeBot`), is
    unknown, or is the equilibrium bot under rules where the equilibrium depends on the pot
    (a pot cap, ``best_pays_antes``, ``losers_pay = worst``) or where it plays a stored
    per-hand strategy (hands of one rank differ by their suits, which a
    :class:`~gutskit.strategy.fast.FastPolicy` by rank cannot express).

    :class:`~gutskit.strategy.bots.RuleOfThumbBot` depends on the pot: its cut-offs are found at
    every pot up to ``4096 x players x ante`` (step changes by bisection, sampled every 64
    chips where they seem flat) and held beyond.
    """
    import numpy as np

    from gutskit.strategy.fast import FastPolicy
    from gutskit.strategy.tables import hand_table

    table = hand_table(rules.ranking)
    if isinstance(bot, ThresholdBot):
        return FastPolicy.threshold(bot.percentile, rules.ranking, name=bot.name)
    if isinstance(bot, RandomBot):
        return FastPolicy.constant(bot.p_in, rules.ranking, name=bot.name)
    if isinstance(bot, EquilibriumBot):
        from gutskit.strategy.solver import equilibrium

        srules = _solver_rules(rules)
        if _pot_dependent(srules):
            return None  # a threshold per pot size: no fixed table
        if _stored_cell(srules, players, bot.model) is not None:
            return None  # a per-hand strategy: not a function of the hand's rank
        eq = equilibrium(cards_per_hand=rules.cards_per_hand, players=players, rules=srules,
                         model=bot.model)  # type: ignore[arg-type]
        probs = np.array([eq.in_probability(int(k)) for k in table.rank_keys])
        return FastPolicy(probs[None, :], name=bot.name)
    if isinstance(bot, RuleOfThumbBot):
        return _rule_of_thumb_policy(bot, rules, players, table)
    return None


BOT_KINDS: dict[str, str] = {
    "equilibrium": "plays the solver's symmetric equilibrium (gutskit.strategy.solver)",
    "rule-of-thumb": ("the rule books' rules of thumb, tighter as the pot grows "
                      "(gutskit.strategy.bots)"),
    "cautious": "rule of thumb, 4 percentile points tighter",
    "loose": "rule of thumb, 8 percentile points looser",
    "exploitative": "learns opponents' in-rates and shown hands, best-responds",
    "random": "in with probability 1/2 whatever the hand",
    "threshold": ("in at the median hand or better (threshold:P for percentile P, from 0 to 1 "
                  "or a percent: threshold:0.7, threshold:70%)"),
}
"""Bot kinds for ``guts tournament --bots`` and ``guts play --bots``."""

BOT_KIND_ALIASES: dict[str, str] = {"standard": "rule-of-thumb"}
"""Other names accepted for a kind of :data:`BOT_KINDS` and never shown: ``standard`` is the
rule-of-thumb bot (the server's wire value, :data:`gutskit.server.protocol.BotStyle`, and
the name of earlier versions)."""

PLAY_TABLE = ("equilibrium", "loose", "rule-of-thumb", "exploitative", "cautious",
              "equilibrium", "random", "loose", "rule-of-thumb")
"""The default opponents of ``guts play``, seat by seat (the first ``players - 1``): at least
one equilibrium bot, and a mix of looser and tighter rule-of-thumb players."""


class UnknownBotError(GutsError):
    """A bot kind that :func:`make_bot` does not know."""


THRESHOLD_FORMS = "from 0 to 1 or 0% to 100%, e.g. threshold:0.7 or threshold:70%"
"""How a threshold percentile is written (``threshold:P``), for messages and help."""


def threshold_percentile(arg: str, kind: str) -> float | None:
    """The percentile ``P`` of ``threshold:P`` (``kind`` is the whole text, for messages):
    a fraction from 0 to 1 (``0.7``) or a percent from 0% to 100% (``70%``), as a fraction;
    ``None`` when ``arg`` is no number at all (``guts odds --strategy`` then reads a hand).
    The one parser of a threshold percentile (bots: :func:`make_bot`; ``guts odds``).

    >>> threshold_percentile("70%", "threshold:70%"), threshold_percentile("0.25", "x")
    (0.7, 0.25)
    >>> threshold_percentile("Qs Jd 2c", "threshold:Qs Jd 2c") is None
    True

    Raises:
        UnknownBotError: a number outside 0..1 (0%..100%).
    """
    text = arg.strip()
    percent = text.endswith("%")
    number = text[:-1].strip() if percent else text
    try:
        value = float(number)
    except ValueError:
        return None
    if not number.isascii() or "_" in number:  # float() reads '٠.٧' and '0_7' too
        return None
    if percent:
        value /= 100
    if not (0.0 <= value <= 1.0) or math.isnan(value):
        raise UnknownBotError(f"threshold percentile {arg!r} in {kind!r} must be "
                              f"{THRESHOLD_FORMS}")
    return value


def make_bot(kind: str) -> Strategy:
    """A fresh bot of ``kind`` (see :data:`BOT_KINDS`; ``threshold:0.7`` sets the
    percentile).

    Raises:
        UnknownBotError: unknown kind or bad percentile.
    """
    from gutskit.strategy.bots import STYLES

    name, colon, arg = kind.partition(":")
    name = BOT_KIND_ALIASES.get(name, name)
    if name not in BOT_KINDS:
        raise UnknownBotError(f"unknown bot {kind!r} (known: {', '.join(BOT_KINDS)})")
    if name == "threshold":
        if colon and not arg.strip():
            raise UnknownBotError(f"{kind!r} has no percentile after 'threshold:' "
                                  f"({THRESHOLD_FORMS}; plain 'threshold' is 0.5)")
        p = threshold_percentile(arg, kind) if arg else 0.5
        if p is None:
            raise UnknownBotError(
                f"threshold percentile {arg!r} in {kind!r} is not a number: a bot's threshold "
                f"is a percentile ({THRESHOLD_FORMS}; a hand such as threshold:'9c 9d 2h' "
                "is taken by guts odds --strategy only)")
        return ThresholdBot(p, name=kind if arg else "threshold")
    if arg:
        raise UnknownBotError(f"bot {name!r} takes no argument (got {kind!r})")
    if name == "equilibrium":
        return EquilibriumBot()
    if name == "rule-of-thumb":
        return RuleOfThumbBot()
    if name in ("cautious", "loose"):
        return RuleOfThumbBot(style=STYLES[name], name=name)
    if name == "exploitative":
        return ExploitativeBot()
    if name == "random":
        return RandomBot()
    raise UnknownBotError(f"unknown bot {kind!r} (known: {', '.join(BOT_KINDS)})")


def _solver_models(rules: Rules, players: int) -> bool:
    """Whether :func:`gutskit.strategy.solver.game_model` accepts ``rules`` (sequential
    declaration solved as simultaneous). The plain rules with no variant and no pot cap are
    accepted without importing the solver (and numpy): ``guts play`` shows its first
    prompt before loading them."""
    plain = not (rules.community_card or rules.pass_the_trash or rules.hi_lo
                 or rules.no_peek or rules.ghost_hand or rules.pot_cap is not None)
    if plain:
        return True
    from gutskit.strategy.solver import SolverError, game_model

    try:
        game_model(players, _solver_rules(rules), "recursive", players * rules.ante)
    except SolverError:
        return False
    return True


def bot_kind(kind: str) -> str:
    """The name shown for the bot kind ``kind``: an alias (:data:`BOT_KIND_ALIASES`) becomes
    its kind, any other text is returned as it is.

    >>> bot_kind("standard"), bot_kind("loose"), bot_kind("threshold:0.7")
    ('rule-of-thumb', 'loose', 'threshold:0.7')
    """
    return BOT_KIND_ALIASES.get(kind, kind)


def parse_bot_kinds(text: str) -> tuple[str, ...]:
    """``"equilibrium,loose"`` -> ``("equilibrium", "loose")``, every kind checked; an alias
    is read as its kind (``"standard"`` -> ``"rule-of-thumb"``).

    Raises:
        UnknownBotError: an empty list or an unknown kind (the message lists the known ones).
    """
    kinds = tuple(part.strip() for part in text.split(","))
    if not any(kinds) or not all(kinds):
        raise UnknownBotError(f"no bot kind in {text!r} (known: {', '.join(BOT_KINDS)})")
    for kind in kinds:
        make_bot(kind)
    return tuple(bot_kind(kind) for kind in kinds)


def play_table(n: int, kinds: tuple[str, ...] | None = None,
               rules: Rules | None = None) -> list[Strategy]:
    """``n`` fresh bots for ``guts play``, named from
    :data:`gutskit.strategy.bots.BOT_NAMES` with their kind beside the name
    (``"Ava (equilibrium)"``). ``kinds`` (default :data:`PLAY_TABLE`) is repeated to fill
    the seats. Under ``rules`` the solver does not model (the variants: community card,
    pass the trash, hi-lo, no peek, sequential...), an equilibrium bot plays the rule of
    thumb instead, and its name says so.

    Raises:
        UnknownBotError: an unknown kind, or more kinds than seats.
    """
    from gutskit.strategy.bots import BOT_NAMES

    modelled = rules is None or _solver_models(rules, n + 1)

    kinds = kinds if kinds is not None else PLAY_TABLE[:n]
    if len(kinds) > n:
        raise UnknownBotError(f"{len(kinds)} bots listed ({', '.join(kinds)}) but the table "
                              f"has {n} seat{'s' if n != 1 else ''} for bots")
    bots = []
    for i in range(n):
        kind = kinds[i % len(kinds)]
        bot = make_bot(kind)
        label = bot_kind(kind)
        if isinstance(bot, EquilibriumBot) and not modelled:
            bot = RuleOfThumbBot()
            label = "equilibrium not modelled here: rule of thumb"
        bot.name = f"{BOT_NAMES[i % len(BOT_NAMES)]} ({label})"
        bots.append(bot)
    return bots
