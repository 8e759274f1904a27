"""Viewers (issue 9, "Viewers in the core"): no view and no redacted history carries a card
or a sealed declaration its viewer may not know, for every preset and random variant rule
sets, random sessions and every viewer (each seat and a spectator); the allow-lists are
complete; redacted histories are read back by ``guts analyze`` and ``guts verify``.

The oracle (:mod:`viewer_checks`) works out what each viewer may know from the full history,
independently of :mod:`gutskit.core.views`.
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner
from viewer_checks import Oracle

from gutskit.cli.app import app
from gutskit.core import table
from gutskit.core.cards import DECK, parse_cards
from gutskit.core.engine import (
    GameState,
    IllegalActionError,
    Phase,
    can_deal,
    can_declare,
    deal,
    deal_from_deck,
    declare,
    end_session,
    evolve,
    misdeal,
    pass_card,
    start_event,
)
from gutskit.core.events import (
    CardsDealt,
    CardsPassed,
    Declaration,
    Declared,
    Event,
    HandShown,
    Outcome,
    PassChosen,
    RoundResolved,
)
from gutskit.core.history import (
    DeclarationSealed,
    HistoryError,
    PassSealed,
    PassSeen,
    Record,
    event_to_dict,
    record_from_dict,
)
from gutskit.core.rules import PRESETS, Rules, preset
from gutskit.core.views import (
    RECORD_FIELDS,
    SPECTATOR,
    VIEW_FIELDS,
    Audience,
    SeatView,
    Viewer,
    joint_views,
    known_events,
    redacted_history,
    view,
    view_for,
    visible_events,
)
from gutskit.io.files import load_history, load_records
from gutskit.strategy.analysis import analyze, rounds_of, split_sessions

NAMES = ("Ana", "Ben", "Cleo", "Dan", "Eve", "Finn")
CHOICES = (Declaration.IN, Declaration.HIGH, Declaration.LOW, Declaration.BOTH,
           Declaration.OUT)

VARIANT_RULES = [
    Rules(pass_the_trash=True, declaration="sequential"),
    Rules(pass_the_trash=True, hi_lo=True, cards_per_hand=2),
    Rules(no_peek=True, ghost_hand=True, community_card=True),
    Rules(no_peek=True, declaration="sequential", all_out="best_pays_antes"),
    Rules(ghost_hand=True, community_card=True, pass_the_trash=True, losers_pay="worst"),
    Rules(hi_lo=True, community_card=True, all_out="best_pays_antes", declaration="drop"),
]
"""Variant rule sets beyond the presets: the variants that hide cards, combined."""

RULE_SETS = [preset(name) for name in PRESETS] + VARIANT_RULES


def play(rules: Rules, n: int, seed: int, rounds: int = 6) -> list[Event]:
    """A random session: random deals, passes, legal declarations (mostly in, so that
    there are showdowns), the odd misdeal; ended at the end."""
    rng = random.Random(seed)
    low = max(8, rules.min_buy_in or 0)
    start = start_event(NAMES[:n], [rng.randint(low, low + 50) for _ in range(n)],
                        dealer=rng.randrange(n), rules=rules)
    state: GameState = evolve(None, start)
    events: list[Event] = [start]
    for _ in range(rounds):
        if can_deal(state) is not None:
            break
        hands, ghost, community = deal_from_deck(state, rng.sample(DECK, 52))
        state, new = deal(state, hands, ghost=ghost, community=community)
        events += new
        if rng.random() < 0.05:
            state, new = misdeal(state)
            events += new
            continue
        if state.phase is Phase.PASS:
            for seat in rng.sample(state.dealt, len(state.dealt)):
                hand = state.hands[seat]
                assert hand
                state, new = pass_card(state, seat, rng.choice(hand))
                events += new
        order = list(state.declaration_order())
        if rules.declaration != "sequential":
            rng.shuffle(order)
        for seat in order:
            legal = [d for d in CHOICES if can_declare(state, seat, d) is None]
            pick = legal[0] if rng.random() < 0.6 else rng.choice(legal)
            state, new = declare(state, seat, pick)
            events += new
            if state.phase is not Phase.DECLARE:
                break
        result = state.last_result
        if result is not None and result.outcome is Outcome.UNCONTESTED and rng.random() < 0.5:
            # the uncontested winner chooses to show its cards (public from then on)
            seat = result.winners[0]
            if table.can_show_hand(state, seat) is None:
                state, new = table.show_hand(state, seat)
                events += new
                assert table.can_show_hand(state, seat) == (
                    f"{state.names[seat]!r} has already shown their cards")
        if state.phase is Phase.OVER:
            break
    if state.phase is not Phase.OVER:
        state, new = end_session(state)
        events += new
    return events


def viewers(n: int) -> list[int | None]:
    return [*range(n), None]


def as_viewer(seat: int | None) -> Viewer:
    return SPECTATOR if seat is None else Viewer(seat)


def check_session(events: list[Event]) -> None:
    """Every view after every event and every redacted history, for every viewer."""
    oracle = Oracle(events)
    oracle.check_public_results()
    n = oracle.n
    state: GameState | None = None
    for index, event in enumerate(events):
        state = evolve(state, event)
        for seat in viewers(n):
            seen = view(state, as_viewer(seat))
            oracle.check_view(index, seen, seat, f"view after event {index}")
            if seat is not None:
                assert seen == view_for(state, seat)
        if state.phase is Phase.DECLARE:
            for seat, joint in joint_views(state).items():
                assert joint == view_for(state, seat)
    for seat in viewers(n):
        copy = redacted_history(events, as_viewer(seat))
        oracle.check_history(copy, seat, f"history of {seat}")
        text = [json.loads(json.dumps(event_to_dict(r))) for r in copy]
        assert [record_from_dict(d) for d in text] == copy  # JSON round trip
        oracle.check_history(text, seat, f"JSON history of {seat}")


@pytest.mark.parametrize("rules", RULE_SETS, ids=[*PRESETS, *(
    f"variants-{i}" for i in range(len(VARIANT_RULES)))])
def test_no_viewer_sees_what_it_may_not_know(rules: Rules) -> None:
    for seed in range(3):
        check_session(play(rules, 2 + seed * 2, seed))


@settings(max_examples=25, deadline=None)
@given(index=st.integers(0, len(RULE_SETS) - 1), n=st.integers(2, 6),
       seed=st.integers(0, 2**32))
def test_random_sessions_leak_nothing_to_any_viewer(index: int, n: int, seed: int) -> None:
    check_session(play(RULE_SETS[index], n, seed))


def test_the_oracle_catches_a_leak() -> None:
    """The checks are not vacuous: an unredacted history fails for every seat but the
    one whose cards are all shown."""
    events = play(preset("pass-the-trash"), 4, 1)
    oracle = Oracle(events)
    for seat in viewers(4):
        with pytest.raises(AssertionError):
            oracle.check_history(events, seat, "full history")


# -- the allow-lists ------------------------------------------------------------------------


def test_every_view_field_and_event_field_states_its_audience() -> None:
    assert set(VIEW_FIELDS) == set(SeatView._fields)
    for cls, fields in RECORD_FIELDS.items():
        assert set(fields) == {f.name for f in dataclasses.fields(cls)}, cls.__name__
    assert {cls.__name__ for cls in RECORD_FIELDS} == {
        "SessionStarted", "AntesPosted", "CardsDealt", "PassChosen", "CardsPassed",
        "Declared", "DeclarationsRevealed", "RoundResolved", "Misdealt", "Rebought",
        "SatOut", "SessionEnded", "SeatAway", "SeatBack", "SeatLeft", "SeatRemoved",
        "CardsShown", "WinnersNamed", "RoundUndone",  # companion mode: made in front of all
        "HandShown"}  # the uncontested winner's choice
    private = {(cls.__name__, name) for cls, fields in RECORD_FIELDS.items()
               for name, audience in fields.items() if audience is not Audience.EVERYONE}
    assert private == {("CardsDealt", "hands"), ("CardsDealt", "ghost"),
                       ("CardsDealt", "community"), ("PassChosen", "card"),
                       ("CardsPassed", "passes"), ("Declared", "declaration")}
    assert {k for k, a in VIEW_FIELDS.items() if a is not Audience.EVERYONE} == {
        "hand", "declarations", "passed", "received"}


def test_a_field_missing_from_the_allow_list_is_hidden() -> None:
    """A new field is hidden until allowed: leave a field out of the allow-list and it is
    gone from every copy (a field with a default takes it; an event without one is
    withheld; a view's field is ``None``)."""
    events = play(preset("default"), 3, 4)
    resolved = next(e for e in events if isinstance(e, RoundResolved))
    allow = dict(RECORD_FIELDS)
    allow[RoundResolved] = {k: v for k, v in RECORD_FIELDS[RoundResolved].items()
                            if k != "pot_after"}  # no default: the event is withheld
    copy = redacted_history(events, Viewer(0), allow=allow)
    assert resolved not in copy
    assert len(copy) == len(events) - sum(isinstance(e, RoundResolved) for e in events)
    allow[RoundResolved] = {k: v for k, v in RECORD_FIELDS[RoundResolved].items()
                            if k != "community"}  # a default: None
    holed = dataclasses.replace(resolved, community=parse_cards("5c"))
    assert redacted_history([events[0], holed], SPECTATOR, allow=allow)[1] == \
        dataclasses.replace(resolved, community=None)
    del allow[RoundResolved]  # an event type not on the list is withheld
    assert redacted_history([events[0], holed], SPECTATOR, allow=allow) == [events[0]]
    state: GameState | None = None
    for event in events[:3]:
        state = evolve(state, event)
    assert state is not None and state.phase is Phase.DECLARE
    fields = {k: v for k, v in VIEW_FIELDS.items() if k not in ("stacks", "hand")}
    hidden = view(state, Viewer(0), allow=fields)
    assert hidden.stacks is None and hidden.hand is None
    assert view(state, Viewer(0)).stacks == state.stacks
    assert view(state, Viewer(0)).hand == state.hands[0]


# -- the spectator and the redactions --------------------------------------------------------


def test_the_spectator_is_a_viewer_of_the_same_function() -> None:
    rules = preset("pass-the-trash")
    start = start_event(NAMES[:3], 20, rules=rules)
    state = evolve(None, start)
    hands = tuple(parse_cards(h) for h in ("As Ks Qs", "2c 3d 4h", "9h 9d 9c"))
    state, dealt = deal(state, hands)
    state, _ = pass_card(state, 0, parse_cards("Qs")[0])
    watched = view(state, SPECTATOR)
    assert watched.seat == -1 and watched.hand is None and watched.passed is None
    assert watched.passes_chosen == (True, False, False)
    ana = view(state, Viewer(0))
    assert ana.passed == parse_cards("Qs")[0] and ana.hand == hands[0]
    state, _ = pass_card(state, 1, parse_cards("2c")[0])
    state, events = pass_card(state, 2, parse_cards("9h")[0])
    ben = view(state, Viewer(1))
    assert ben.received == parse_cards("Qs")[0] and ben.passed == parse_cards("2c")[0]
    assert view(state, SPECTATOR).received is None
    exchange = next(e for e in events if isinstance(e, CardsPassed))
    assert redacted_history([start, *dealt, exchange], Viewer(1))[-1] == PassSeen(
        1, parse_cards("2c")[0], parse_cards("Qs")[0])
    assert redacted_history([start, *dealt, exchange], SPECTATOR)[-1] == PassSeen(
        -1, None, None)
    chosen = PassChosen(0, parse_cards("Qs")[0])
    assert redacted_history([start, chosen], Viewer(1))[1] == PassSealed(0)
    assert redacted_history([start, chosen], Viewer(0))[1] == chosen


def test_sealed_and_open_declarations() -> None:
    start = start_event(NAMES[:3], 20)
    call = Declared(2, Declaration.IN)
    assert redacted_history([start, call], Viewer(0))[1] == DeclarationSealed(2)
    assert redacted_history([start, call], SPECTATOR)[1] == DeclarationSealed(2)
    assert redacted_history([start, call], Viewer(2))[1] == call
    open_start = start_event(NAMES[:3], 20, rules=preset("indonesian"))
    assert redacted_history([open_start, call], SPECTATOR)[1] == call
    # a slice of a session: the rules are given
    assert redacted_history([call], SPECTATOR, rules=open_start.rules) == [call]
    assert visible_events([call], 0, rules=start.rules) == [DeclarationSealed(2)]


def test_no_peek_hides_the_own_cards_until_the_reveal() -> None:
    start = start_event(NAMES[:2], 20, rules=preset("no-peek"))
    state = evolve(None, start)
    hands = tuple(parse_cards(h) for h in ("As Ks Qs", "2c 3d 4h"))
    state, events = deal(state, hands)
    assert view(state, Viewer(0)).hand == ()
    dealt = next(e for e in events if isinstance(e, CardsDealt))
    assert redacted_history([start, dealt], Viewer(0))[1] == CardsDealt(((), ()))


# -- histories round-trip: guts analyze and guts verify read every copy ---------------------


def write(path: Path, records: list[Record]) -> Path:
    path.write_text("".join(json.dumps(event_to_dict(r)) + "\n" for r in records))
    return path


@pytest.mark.parametrize("name", ["pass-the-trash", "default", "no-peek", "indonesian",
                                  "monte-carlo", "ghost-hand"])
def test_analyze_and_verify_read_every_viewers_copy(name: str, tmp_path: Path) -> None:
    events = play(preset(name), 4, 11, rounds=8)
    full_rounds = rounds_of([events])
    runner = CliRunner()
    for seat in viewers(4):
        copy = redacted_history(events, as_viewer(seat))
        path = write(tmp_path / f"copy-{seat}.jsonl", copy)
        records = load_records(path)
        assert records == copy
        if any(isinstance(r, DeclarationSealed | PassSealed | PassSeen) for r in copy):
            with pytest.raises(HistoryError, match="redaction"):
                load_history(path)
        # hidden information is unknown, the public record is the same
        mine = rounds_of(split_sessions(known_events(records)))
        assert [(r.ins, r.result, r.pot, r.dealt) for r in mine] == [
            (r.ins, r.result, r.pot, r.dealt) for r in full_rounds]
        for record, full in zip(mine, full_rounds, strict=True):
            for s, hand in enumerate(record.hands):
                assert hand == (full.hands[s] if s == seat and not preset(name).no_peek
                                else (None if full.hands[s] is None else ()))
        assert analyze(split_sessions(known_events(records))).to_dict()["players"]
        result = runner.invoke(app, ["analyze", "--history", str(path)])
        assert result.exit_code == 0, result.output
        result = runner.invoke(app, ["verify", str(path)])
        assert result.exit_code == 0, result.output


def test_analyze_reads_a_browser_download(tmp_path: Path) -> None:
    """A seat's ``history.jsonl`` as the browser downloads it (the server's own writer),
    with DeclarationSealed, PassSealed and PassSeen lines."""
    from gutskit.server.exports import history_jsonl

    events = play(preset("pass-the-trash"), 3, 5, rounds=5)
    text = history_jsonl([event_to_dict(r) for r in redacted_history(events, Viewer(1))])
    kinds = {json.loads(line)["type"] for line in text.splitlines()}
    assert {"DeclarationSealed", "PassSealed", "PassSeen"} <= kinds
    path = tmp_path / "gutskit-room-history.jsonl"
    path.write_text(text)
    result = CliRunner().invoke(app, ["analyze", "--history", str(path), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert set(report["players"]) == set(NAMES[:3])


def test_an_uncontested_winner_may_show_the_cards_and_nobody_else() -> None:
    # Three-card Guts, dealer seat 0; seat 1 in alone takes the pot without showing
    # (RULES.md "Resolve"); it may then show, once; nobody else may, and not after the
    # next deal.
    rules = Rules()
    state = evolve(None, start_event(NAMES[:3], [20, 20, 20], dealer=0, rules=rules))
    events: list[Event] = []
    state, new = deal(state, [parse_cards("As Ah Kd"), parse_cards("2c 7d 9h"),
                              parse_cards("Qs Jc 3h")])
    events += new
    assert table.can_show_hand(state, 1) == (
        "cards can be shown only after a round, before the next deal")
    for seat, choice in ((1, Declaration.IN), (2, Declaration.OUT), (0, Declaration.OUT)):
        state, new = declare(state, seat, choice)
        events += new
    assert state.last_result is not None and state.last_result.winners == (1,)
    assert state.last_result.shown == (None, None, None)  # taken without showing
    assert table.can_show_hand(state, 0) == (
        "'Ana' did not win the last round uncontested (a showdown shows the hands by "
        "itself; the others keep theirs hidden)")
    stacks = state.stacks
    state, new = table.show_hand(state, 1)
    assert new == [HandShown(1, parse_cards("2c 7d 9h"))] and state.stacks == stacks
    events += new
    for viewer in (None, 0, 2):  # everyone sees the shown hand, and only that one
        copy = redacted_history(events, as_viewer(viewer))
        assert copy[-1] == HandShown(1, parse_cards("2c 7d 9h"))
        shown = {c for r in copy for c in getattr(r, "hand", ()) or ()}
        assert shown == set(parse_cards("2c 7d 9h"))
    assert table.can_show_hand(state, 1) == "'Ben' has already shown their cards"
    with pytest.raises(IllegalActionError):
        evolve(state, HandShown(0, parse_cards("As Ah Kd")))  # a replayed lie is refused
