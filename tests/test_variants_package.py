"""gutskit.variants: which variants a rule set turns on, how they compose, and the pieces
of each module that the engine and the views ask (values worked out by hand)."""

from __future__ import annotations

import pytest

from gutskit.core.cards import parse_cards
from gutskit.core.engine import new_session
from gutskit.core.evaluation import strength_table
from gutskit.core.events import Declaration
from gutskit.core.rules import Rules, preset
from gutskit.variants import FAMILIES, Variant, variants_for
from gutskit.variants.community_card import best_key
from gutskit.variants.pass_the_trash import exchange, givers


def names(rules: Rules) -> list[str]:
    return [v.name for v in variants_for(rules).active]


def test_every_family_is_turned_on_by_its_rule_and_only_by_it() -> None:
    assert names(Rules()) == []
    assert names(preset("estonian-full")) == ["ghost hand", "single loser", "all-out penalty"]
    assert names(preset("indonesian")) == ["sequential declaration"]
    assert names(preset("drop")) == []  # 1-2-3 drop plays as simultaneous
    for family in FAMILIES:
        assert issubclass(family, Variant) and family.name


@pytest.mark.parametrize(("rules", "plain"), [
    (Rules(), True), (preset("pot-cap"), True), (preset("no-peek"), True),
    (preset("pass-the-trash"), True), (preset("indonesian"), True),
    (preset("monte-carlo"), False), (preset("ghost-hand"), False), (preset("hi-lo"), False),
    (preset("single-loser"), False), (preset("all-out-penalty"), False),
])
def test_plain_means_no_variant_changes_deal_antes_or_resolution(rules: Rules,
                                                                  plain: bool) -> None:
    assert variants_for(rules).plain is plain


def test_composition_of_the_flags() -> None:
    estonian = variants_for(preset("estonian-full"))
    assert (estonian.uncontested_win, estonian.antes_every_hand, estonian.sealed) == (
        False, True, True)
    indonesian = variants_for(preset("indonesian"))
    assert (indonesian.in_turn, indonesian.sealed) == (True, False)
    assert variants_for(preset("no-peek")).view_hand((1, 2, 3)) == ()
    assert variants_for(Rules()).view_hand((1, 2, 3)) == (1, 2, 3)
    assert variants_for(preset("hi-lo")).declarations == (
        Declaration.HIGH, Declaration.LOW, Declaration.BOTH, Declaration.OUT)
    assert variants_for(Rules()).declarations == (Declaration.IN, Declaration.OUT)


def test_the_extra_cards_follow_the_hands_ghost_first() -> None:
    both = variants_for(Rules(ghost_hand=True, community_card=True, cards_per_hand=2))
    assert both.extra_cards == (("ghost", 2), ("community", 1))
    # 3 players x 2 cards = cards 0..5; the ghost 6, 7; the community card 8.
    extras, used = both.deal_extras(list(range(52)), 6)
    assert extras == {"ghost": (6, 7), "community": (8,)} and used == 9
    assert both.cards_needed(3) == 9
    assert variants_for(Rules()).cards_needed(10) == 30


def test_the_variants_are_cached_by_identity() -> None:
    rules = Rules(hi_lo=True)
    assert variants_for(rules) is variants_for(rules)
    assert new_session(["A", "B"], 10, rules=rules).variants is variants_for(rules)


def test_pass_the_trash_givers_and_exchange() -> None:
    # Seats 0, 2, 3 dealt in (1 is out of play): 0 passes to 2, 2 to 3, 3 to 0.
    hands = ((1, 2, 3), None, (10, 11, 12), (20, 21, 22))
    assert givers(hands) == {0: 3, 2: 0, 3: 2}
    passes = (1, None, 12, 22)
    assert exchange(hands, passes) == ((2, 3, 22), None, (10, 11, 1), (20, 21, 12))
    assert givers(((1, 2), None)) == {}


def test_community_card_best_key_picks_the_best_three_of_four() -> None:
    table = strength_table(Rules().ranking)
    hand, community = parse_cards("Ts Td Qc"), parse_cards("Qd")
    # The best three of Ts Td Qc Qd: T T Q (two pair does not exist in three cards).
    best = best_key(table, tuple(hand), tuple(community), 3, False)
    tens = table[(hand[0] * 52 + hand[1]) * 52 + hand[2]]
    queens = table[(parse_cards("Qc")[0] * 52 + parse_cards("Qd")[0]) * 52 + hand[0]]
    assert best == max(tens, queens) == queens


def test_the_hooks_every_subclass_must_give_are_abstract() -> None:
    """``Variant.applies`` and ``OpponentStrategy.in_weights`` are abc abstract methods (not
    interface stubs that raise when called): the bases cannot be made, every subclass can."""
    import numpy as np

    from gutskit.strategy.coach import _PerHand
    from gutskit.strategy.odds import (
        KeyStrategy,
        OpponentStrategy,
        RuleOfThumbStrategy,
        ThresholdStrategy,
    )
    from gutskit.strategy.tables import hand_table

    with pytest.raises(TypeError, match="abstract method applies"):
        Variant(Rules())  # type: ignore[abstract]
    with pytest.raises(TypeError, match="abstract method in_weights"):
        OpponentStrategy()  # type: ignore[abstract]
    assert len(FAMILIES) == 8
    for family in FAMILIES:
        assert isinstance(family(Rules()), Variant) and family.applies(Rules()) is False
    table = hand_table(Rules(cards_per_hand=2).ranking)
    strategies = [ThresholdStrategy(key=-1), KeyStrategy(lambda key: 0.5),
                  RuleOfThumbStrategy(), _PerHand(np.full(1326, 0.25))]
    # always in; one half; the pairs of tens or better (5 pairs x 6 = 30 hands); a quarter
    assert [float(s.in_weights(table).sum()) for s in strategies] == [1326.0, 663.0, 30.0,
                                                                      331.5]
