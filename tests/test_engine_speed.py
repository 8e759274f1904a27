"""The engine's hot-path shortcuts give exactly what the plain code gives: the deal's own
draws equal ``random.Random.sample``, the event builders equal the event classes, the
rule-of-thumb bot's remembered bars equal :meth:`RuleOfThumbBot.plays`."""

from __future__ import annotations

import dataclasses
import pickle
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gutskit.core import events as ev
from gutskit.core.cards import DECK
from gutskit.core.engine import (
    Phase,
    _sample_deck,
    can_deal,
    can_declare,
    deal_from_rng,
    declare,
    legal_declarations,
    new_session,
    pass_card,
)
from gutskit.core.events import Declaration
from gutskit.core.rules import PRESETS, Rules, preset
from gutskit.core.views import joint_views, view_for
from gutskit.strategy.bots import RuleOfThumbBot


@pytest.mark.parametrize("seed", range(40))
def test_sample_deck_draws_what_sample_draws(seed: int) -> None:
    for k in range(53):
        ours, theirs = random.Random(seed), random.Random(seed)
        assert _sample_deck(ours, k) == theirs.sample(DECK, k)
        assert ours.random() == theirs.random()  # the same bits were consumed


def test_sample_deck_leaves_other_sources_to_sample() -> None:
    class Counting(random.Random):
        calls = 0

        def sample(self, population, k, *, counts=None):  # type: ignore[no-untyped-def]
            Counting.calls += 1
            return super().sample(population, k, counts=counts)

    assert _sample_deck(Counting(3), 15) == random.Random(3).sample(DECK, 15)
    assert Counting.calls == 1


@pytest.mark.parametrize("cls", [ev.AntesPosted, ev.CardsDealt, ev.DeclarationsRevealed,
                                 ev.RoundResolved])
def test_builders_build_equal_frozen_events(cls: type[Any]) -> None:
    build: Callable[..., Any] = ev.builder(cls)
    values: dict[str, Any] = {
        ev.AntesPosted: {"amounts": (1, 0, 1), "refill": 2, "new_game": True},
        ev.CardsDealt: {"hands": ((0, 5, 9), None, (1, 2, 3)), "community": (7,)},
        ev.DeclarationsRevealed: {"declarations": (ev.Declaration.IN, None)},
        ev.RoundResolved: {"outcome": ev.Outcome.SHOWDOWN, "shown": ((0, 5, 9), None),
                           "winners": (0,), "won": (4, 0), "matched": (0, 4),
                           "eliminated": (), "to_reserve": 0, "pot_after": 4,
                           "next_dealer": 1, "session_over": False, "high_pot": 3},
    }[cls]  # type: ignore[assignment]
    built, made = build(**values), cls(**values)
    assert type(built) is cls
    assert built == made and hash(built) == hash(made) and repr(built) == repr(made)
    assert dataclasses.astuple(built) == dataclasses.astuple(made)
    assert pickle.loads(pickle.dumps(built)) == made
    name = dataclasses.fields(cls)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(built, name, None)


@pytest.mark.parametrize("style", [-0.08, 0.0, 0.04])
def test_remembered_bars_play_like_plays(style: float) -> None:
    rng = random.Random(5)
    bot = RuleOfThumbBot(style=style)
    for cards in (2, 3):
        rules = Rules(cards_per_hand=cards)
        state = new_session(["a", "b", "c", "d", "e"], 10**6, rules=rules)
        for pot in (0, 1, 3, 5, 12, 40, 300):
            dealt, _ = deal_from_rng(
                dataclasses.replace(state, pot=pot, total=state.total + pot), rng)
            for view in joint_views(dealt).values():
                assert view.hand is not None
                for _ in range(2):  # the second time from the remembered bars
                    played = bot.declare(view, rng) is Declaration.IN
                    assert played == bot.plays(view.hand, view)


_VIEW_RULES = [preset(name) for name in PRESETS] + [
    Rules(no_peek=True), Rules(pass_the_trash=True), Rules(declaration="sequential"),
    Rules(hi_lo=True, community_card=True), Rules(ghost_hand=True, losers_pay="worst")]


@settings(max_examples=30, deadline=None)
@given(index=st.integers(0, len(_VIEW_RULES) - 1), n=st.integers(2, 6),
       seed=st.integers(0, 2**32))
def test_joint_views_are_each_seats_view(index: int, n: int, seed: int) -> None:
    """:func:`joint_views` builds the usual case (no private field but the hand) on its own
    route; it gives every seat exactly the view :func:`view_for` gives, at every moment of
    random sessions under the presets and variants (passes, sealed and open declarations,
    No Peek, declarations made one by one)."""
    rng = random.Random(seed)
    rules = _VIEW_RULES[index]
    state = new_session(["a", "b", "c", "d", "e", "f"][:n], 40, rules=rules)
    choices = legal_declarations(rules)
    for _ in range(4):
        if can_deal(state) is not None:
            break
        state, _ = deal_from_rng(state, rng)
        while state.phase in (Phase.PASS, Phase.DECLARE):
            assert joint_views(state) == {s: view_for(state, s) for s in state.dealt}
            if state.phase is Phase.PASS:
                seat = next(s for s in state.dealt if state.passes and state.passes[s] is None)
                hand = state.hands[seat]
                assert hand
                state, _ = pass_card(state, seat, rng.choice(hand))
                continue
            seat = next(s for s in state.declaration_order() if state.declarations[s] is None)
            legal = [d for d in choices if can_declare(state, seat, d) is None]
            state, _ = declare(state, seat, rng.choice(legal))
        assert joint_views(state) == {s: view_for(state, s) for s in state.dealt}
