"""``guts verify`` on version-2 deals (per-card commitments, only shown cards opened) and the
replay of every round through the engine. The session is built with the engine and
:mod:`gutskit.server.fairness` as the server builds it (no server): Ana, Ben, Cleo, buy-in
20, dealer Ana, secret seeds ``bytes([n]) * 32`` for round n, client seeds ``a1...`` (Ana)
and ``c3...`` (Cleo), none from Ben. The deals (worked out once from the documented
algorithm, see tests/test_server_units.py for the algorithm itself):

* round 1: Ana Kd 2s 8h, Ben Ah 2h 9s, Cleo 7d 7h Th; antes 1 each (pot 3); Ana and Ben in:
  Ben's ace high wins 3, Ana matches 3: stacks 16, 22, 19, pot 3;
* round 2: all out (void): nothing moves, the same dealer deals again;
* round 3: antes again (``all_out = "reante"``): pot 6; Cleo alone in wins 6: 15, 21, 24;
* round 4: a new game, antes 1 each (pot 3); the session ends before anyone declares:
  the 3 chips are shared, 15, 21, 24.

Round 5 is committed (the server commits one round ahead) but never dealt. Only round 1
shows cards (Ana's and Ben's hands): 6 openings in the whole session.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gutskit.cli.app import app as cli_app
from gutskit.core import engine
from gutskit.core.cards import parse_cards
from gutskit.core.events import Declaration, Event, RoundResolved
from gutskit.core.history import event_to_dict
from gutskit.core.rules import Rules
from gutskit.core.views import visible_events
from gutskit.server.exports import history_jsonl
from gutskit.server.fairness import (
    ALGORITHM_V2,
    deal_order,
    dealt_deck,
    deck_commitment,
    leaves,
    open_cards,
    secret_from_seed,
    session_hash,
    shown_cards,
)

DECLS = {1: {0: "in", 1: "in", 2: "out"}, 2: {0: "out", 1: "out", 2: "out"},
         3: {0: "out", 1: "out", 2: "in"}, 4: {}}
CLIENT_SEEDS = ["a1" * 16, None, "c3" * 16]


def build_session(seat: int = 0) -> tuple[dict[str, Any], list[dict[str, Any]],
                                          list[Event]]:
    """The fairness file (session over; with ``seat``'s own openings) and ``seat``'s
    history as JSON objects, and the full history."""
    start = engine.start_event(["Ana", "Ben", "Cleo"], 20, dealer=0, rules=Rules())
    events: list[Event] = [start]
    state = engine.evolve(None, start)
    rounds = []
    for number in (*DECLS, 5):
        secret = secret_from_seed(bytes([number]) * 32)
        commitment = deck_commitment(leaves(secret))
        if number == 5:
            rounds.append({"round": 5, "commitment": commitment, "client_seeds": None,
                           "leaves": None, "opened": []})
            break
        deck = dealt_deck(secret, deal_order(commitment, CLIENT_SEEDS))
        hands, ghost, community = engine.deal_from_deck(state, deck)
        state, more = engine.deal(state, hands, ghost=ghost, community=community)
        events += more
        for who, decl in DECLS[number].items():
            state, more = engine.declare(state, who, Declaration(decl))
            events += more
        result = state.last_result if state.round_number == number and DECLS[number] \
            else None
        shown = shown_cards(result) if isinstance(result, RoundResolved) else set()
        rounds.append({"round": number, "commitment": commitment,
                       "client_seeds": CLIENT_SEEDS, "leaves": leaves(secret),
                       "opened": [o.to_json() for o in open_cards(secret, shown)],
                       "own": [o.to_json() for o in open_cards(secret, hands[seat] or ())]})
    state, more = engine.end_session(state)
    events += more
    assert state.stacks == (15, 21, 24)
    header = event_to_dict(start)  # the server's commitment to the session header
    fairness = {"room_id": "r", "algorithm": ALGORITHM_V2, "session_over": True,
                "seat": seat, "session": {"hash": session_hash(header), "started": header},
                "rounds": rounds}
    mine = [event_to_dict(e) for e in visible_events(events, seat)]
    return fairness, mine, events


def run(tmp_path: Path, fairness: Any, history: list[dict[str, Any]] | None = None
        ) -> tuple[int, str, str]:
    args = ["verify"]
    if fairness is not None:
        (tmp_path / "fairness.json").write_text(json.dumps(fairness))
        args.append(str(tmp_path / "fairness.json"))
    if history is not None:
        (tmp_path / "h.jsonl").write_text(history_jsonl(history))
        args += ["--history", str(tmp_path / "h.jsonl")] if fairness is not None \
            else [str(tmp_path / "h.jsonl")]
    result = CliRunner().invoke(cli_app, args)
    return result.exit_code, result.stdout, result.stderr


def of_type(history: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in history if e["type"] == kind]


def test_the_worked_deals() -> None:
    _, history, _ = build_session()
    assert [e["hands"][0] for e in of_type(history, "CardsDealt")] == [
        "Kd 2s 8h", "3h 2s Kh", "8h 5d 8d", "6s Kc Ah"]
    resolved = of_type(history, "RoundResolved")
    assert resolved[0]["shown"] == ["Kd 2s 8h", "Ah 2h 9s", None]
    assert resolved[0]["winners"] == [1] and resolved[0]["matched"] == [3, 0, 0]
    assert resolved[2]["winners"] == [2] and resolved[2]["won"] == [0, 0, 6]


def test_a_clean_session_verifies(tmp_path: Path) -> None:
    fairness, history, _ = build_session()
    code, out, err = run(tmp_path, fairness, history)
    assert (code, err) == (0, "")
    # Round 1: Ana's 3 cards + Ben's 3 shown; then Ana's own 3 (from her openings).
    lines = out.splitlines()  # the header is wrapped to the console's width (80 piped)
    first = next(i for i, line in enumerate(lines) if line.startswith("round 1:"))
    assert [" ".join(lines[:first]), *lines[first:]] == [
        "session header: the hand history's names, seats, stacks, first dealer and rules are the "
        "ones committed before the first deal",
        "round 1: ok (6 cards opened, 2 client seeds, 6 cards of the history match)",
        "round 2: ok (0 cards opened, 2 client seeds, 3 cards of the history match)",
        "round 3: ok (0 cards opened, 2 client seeds, 3 cards of the history match)",
        "round 4: ok (0 cards opened, 2 client seeds, 3 cards of the history match)",
        "round 5: committed, not dealt",
        "the hand history replays through the engine",
        "4 of 4 rounds verified"]


def test_a_spectator_history_verifies(tmp_path: Path) -> None:
    fairness, _, events = build_session()
    for record in fairness["rounds"]:
        record.pop("own", None)
    spectator = [event_to_dict(e) for e in visible_events(events, -1)]
    code, out, err = run(tmp_path, fairness, spectator)
    assert (code, err) == (0, "")
    assert ("round 1: ok (6 cards opened, 2 client seeds, 6 cards of the history match)"
            in out.splitlines())  # after the session header (wrapped to the console's width)


def swap_winner(history: list[dict[str, Any]]) -> None:
    """Round 1: the weaker hand (Ana's) takes the pot, Ben matches."""
    resolved = of_type(history, "RoundResolved")[0]
    resolved["winners"] = [0]
    resolved["won"], resolved["matched"] = [3, 0, 0], [0, 3, 0]
    # Later rounds follow, so that only the settlement of round 1 is wrong.


def flip_declarations(history: list[dict[str, Any]]) -> None:
    flip = {"in": "out", "out": "in"}
    for event in history:
        if event["type"] == "Declared":
            event["declaration"] = flip[event["declaration"]]
        elif event["type"] == "DeclarationsRevealed":
            event["declarations"] = [flip.get(d) if d else d for d in event["declarations"]]


def change_ante(history: list[dict[str, Any]]) -> None:
    of_type(history, "AntesPosted")[1]["amounts"] = [1, 2, 0]  # round 3's antes


def change_match(history: list[dict[str, Any]]) -> None:
    resolved = of_type(history, "RoundResolved")[0]
    resolved["matched"], resolved["pot_after"] = [2, 0, 0], 2


def change_payout(history: list[dict[str, Any]]) -> None:
    of_type(history, "SessionEnded")[0]["payouts"] = [3, 0, 0]


def change_shown_card(history: list[dict[str, Any]]) -> None:
    of_type(history, "RoundResolved")[0]["shown"][1] = "Ah 2h 9d"


def drop_round(history: list[dict[str, Any]]) -> None:
    """Round 2 (a void round) disappears from the history."""
    dealt = [i for i, e in enumerate(history) if e["type"] == "CardsDealt"]
    del history[dealt[1]:dealt[2] - 1]  # round 2's deal and declarations (not round 3's antes)


def reorder_rounds(history: list[dict[str, Any]]) -> None:
    """Rounds 2 and 3 swap places (antes with their deal)."""
    starts = [i - (history[i - 1]["type"] == "AntesPosted")
              for i, e in enumerate(history) if e["type"] == "CardsDealt"]
    two, three, four = history[starts[1]:starts[2]], history[starts[2]:starts[3]], \
        history[starts[3]:]
    history[starts[1]:] = three + two + four


@pytest.mark.parametrize(("tamper", "message", "alone"), [
    (swap_winner, "round 1: the recorded RoundResolved differs from the engine's: winners "
                  "[0] (the engine: [1]); won [3, 0, 0] (the engine: [0, 3, 0]); matched "
                  "[0, 3, 0] (the engine: [3, 0, 0])", True),
    (flip_declarations, "round 1: the recorded RoundResolved differs from the engine's: "
                        "outcome showdown (the engine: uncontested)", True),
    (change_ante, "round 3: the recorded antes differ from the engine's: amounts [1, 2, 0] "
                  "(the engine: [1, 1, 1])", True),
    (change_match, "round 1: the recorded RoundResolved differs from the engine's: matched "
                   "[2, 0, 0] (the engine: [3, 0, 0]); pot_after 2 (the engine: 3)", True),
    (change_payout, "round 4: the recorded SessionEnded differs from the engine's: payouts "
                    "[3, 0, 0] (the engine: [1, 1, 1])", True),
    # Ben's shown hand: only the openings know his cards (the replay alone cannot).
    (change_shown_card, "round 1: the server opened 9s, never shown", False),
    (drop_round, "round 2:", True),
    (reorder_rounds, "round 2:", True),
])
def test_a_tampered_history_fails_naming_the_round(tmp_path: Path, tamper: Any,
                                                   message: str, alone: bool) -> None:
    """Each tamper fails with the commitments, and (``alone``) with the replay alone."""
    fairness, history, _ = build_session()
    tamper(history)
    for checked in (fairness, None) if alone else (fairness,):
        code, out, err = run(tmp_path, checked, history)
        assert code == 1 and out == "", (tamper, err)
        assert err.startswith(f"FAILED: {message}"), err
        assert len(err.splitlines()) == 1


def test_a_changed_own_hand_fails_against_the_own_openings(tmp_path: Path) -> None:
    """Ana's round-2 hand (never shown) against the openings of her own cards."""
    fairness, history, _ = build_session()
    of_type(history, "CardsDealt")[1]["hands"][0] = "3h 2s Kc"
    code, _, err = run(tmp_path, fairness, history)
    assert (code, err) == (1, "FAILED: round 2: seat 0 ('Ana') holds 3h 2s Kc, but the deal "
                              "gave it 3h 2s Kh\n")


def test_a_changed_client_seed_in_an_unshown_round_fails(tmp_path: Path) -> None:
    """Round 2 (all out, nothing opened): Ana's own openings are 3h at committed position
    5, Kh at 12, 2s at 42, dealt at indices 1, 4, 7 (Ana is seat 0 of 3, dealer Ana:
    Ben gets 0, 3, 6, Cleo 2, 5, 8). Replacing Cleo's published seed by ``00`` * 16 moves
    these positions to deal indices 36, 48 and 20: dealt to nobody. The verifier re-derives
    the deal and fails naming the round, the seat and the cards (audit3 finding 1)."""
    fairness, history, _ = build_session()
    own = fairness["rounds"][1]["own"]
    assert [(o["position"], o["card"]) for o in own] == [(5, "3h"), (12, "Kh"), (42, "2s")]
    order = deal_order(fairness["rounds"][1]["commitment"], CLIENT_SEEDS)
    assert [order.index(o["position"]) for o in own] == [1, 7, 4]
    fairness["rounds"][1]["client_seeds"] = ["a1" * 16, None, "00" * 16]
    code, _, err = run(tmp_path, fairness, history)
    assert (code, err) == (1, "FAILED: round 2: seat 0 ('Ana')'s own cards are not at its "
                              "dealt positions [1, 4, 7] under the published client seeds "
                              "and the committed order: 3h (committed position 5) is dealt "
                              "at index 36, to nobody, Kh (committed position 12) is dealt "
                              "at index 48, to nobody, 2s (committed position 42) is dealt "
                              "at index 20, to nobody\n")
    # A partial move (two cards elsewhere, 3h on another of Ana's positions) fails too.
    fairness["rounds"][1]["client_seeds"] = ["a1" * 16, None, "ff" * 16]
    code, _, err = run(tmp_path, fairness, history)
    assert (code, err) == (1, "FAILED: round 2: seat 0 ('Ana')'s own cards are not at its "
                              "dealt positions [1, 4, 7] under the published client seeds "
                              "and the committed order: Kh (committed position 12) is dealt "
                              "at index 41, to nobody, 2s (committed position 42) is dealt "
                              "at index 36, to nobody\n")


def test_a_removed_own_opening_fails(tmp_path: Path) -> None:
    """Round 3: Ana holds 8h 5d 8d at deal indices 1, 4, 7 = committed positions 50, 40,
    38; removing the opening of 8d (position 38) leaves index 7 unchecked: it fails."""
    fairness, history, _ = build_session()
    removed = fairness["rounds"][2]["own"].pop(0)
    assert (removed["position"], removed["card"]) == (38, "8d")
    code, _, err = run(tmp_path, fairness, history)
    assert (code, err) == (1, "FAILED: round 3: seat 0 ('Ana') holds 8h 5d 8d, but its dealt "
                              "position [7] has no opening of its own cards in the "
                              "fairness file\n")


def test_a_sealed_call_that_disagrees_with_the_reveal_fails(tmp_path: Path) -> None:
    fairness, history, _ = build_session()
    next(e for e in history if e["type"] == "Declared")["declaration"] = "out"
    code, _, err = run(tmp_path, fairness, history)
    assert (code, err) == (1, "FAILED: round 1: seat 0 ('Ana') declared out, but the reveal "
                              "says in\n")


def test_a_dropped_round_fails_against_the_commitments(tmp_path: Path) -> None:
    """Cut the history after round 2 (and end it there): the fairness file says rounds 3
    and 4 were dealt."""
    fairness, history, _ = build_session()
    dealt = [i for i, e in enumerate(history) if e["type"] == "CardsDealt"]
    del history[dealt[2] - 1:]
    code, _, err = run(tmp_path, fairness, history)
    assert (code, err) == (1, "FAILED: round 3 was dealt (the fairness file) but is not in "
                              "the hand history\n")


@pytest.mark.parametrize(("spoil", "message"), [
    (lambda f: f["rounds"][1]["opened"].append(f["rounds"][1]["own"][0]),
     "round 2: the server opened 3h, never shown: a card nobody may see"),
    (lambda f: f["rounds"][0]["opened"].pop(),
     "round 1: the shown cards"),
    (lambda f: f["rounds"][0]["leaves"].reverse(),
     "round 1: the leaves hash to"),
    (lambda f: f["rounds"][0]["opened"][0].update(salt="00" * 16),
     "round 1: the opening of position"),
    (lambda f: f["rounds"][0].update(client_seeds=["a1" * 16, None, None]),
     "round 1: seat 0 ('Ana') showed Kd 2s 8h, but the deal gave"),
    (lambda f: f["rounds"][2].update(leaves=None),
     "round 3: the session is over but its leaves were not published"),
    (lambda f: f["rounds"][3].update(client_seeds=None),
     "round 4: the hand history deals it, but the fairness file says it was never dealt"),
])
def test_a_tampered_fairness_file_fails(tmp_path: Path, spoil: Any, message: str) -> None:
    fairness, history, _ = build_session()
    spoil(fairness)
    code, _, err = run(tmp_path, fairness, history)
    assert code == 1 and err.startswith(f"FAILED: {message}"), err


def test_a_history_without_commitments_is_replayed_and_called_unprovable(
        tmp_path: Path) -> None:
    _, _, events = build_session()
    full = [event_to_dict(e) for e in events]
    code, out, err = run(tmp_path, None, full)
    assert (code, err) == (0, "")
    assert " ".join(out.splitlines()[-2:]) == (
        "4 rounds replay through the engine; fairness is not provable for this history: it "
        "has no commitments (a server room's fairness.json has them)")


def test_several_sessions_and_pass_the_trash_replay(tmp_path: Path) -> None:
    """A tournament-style file: two sessions back to back, the second under Pass the
    Trash with a showdown (shown hands after the exchange)."""
    _, _, first = build_session()
    rules = Rules(pass_the_trash=True)
    start = engine.start_event(["Ana", "Ben"], 10, dealer=1, rules=rules)
    state = engine.evolve(None, start)
    second: list[Event] = [start]
    state, more = engine.deal(state, (parse_cards("As Ks 2d"), parse_cards("Qh Qd 3c")))
    second += more
    state, more = engine.pass_card(state, 0, parse_cards("2d")[0])
    second += more
    state, more = engine.pass_card(state, 1, parse_cards("3c")[0])
    second += more
    for seat in (0, 1):
        state, more = engine.declare(state, seat, Declaration.IN)
        second += more
    result = state.last_result
    assert result is not None and result.shown == (parse_cards("As Ks 3c"),
                                                   parse_cards("Qh Qd 2d"))
    state, more = engine.end_session(state)
    second += more
    everything = [event_to_dict(e) for e in [*first, *second]]
    code, out, err = run(tmp_path, None, everything)
    assert (code, err) == (0, ""), err
    assert "session 2, round 1: replays through the engine" in out
    # Ben's copy (passes redacted) replays too.
    bens = [event_to_dict(e) for e in visible_events(second, 1)]
    code, out, err = run(tmp_path, None, bens)
    assert (code, err) == (0, ""), err
    # A changed winner in the second session is named with its session.
    assert of_type(everything, "RoundResolved")[-1]["winners"] == [1]  # queens
    of_type(everything, "RoundResolved")[-1]["winners"] = [0]
    code, _, err = run(tmp_path, None, everything)
    assert code == 1 and err.startswith("FAILED: session 2, round 1: the recorded "
                                        "RoundResolved differs"), err


def test_a_companion_history_replays(tmp_path: Path) -> None:
    """Fresh user, session 5: `guts verify` on a companion history (cards entered at the
    showdown, winners named, a round undone) replays every operation through the engine
    (it said FAILED: "a CardsShown that no recorded action causes"); a changed payout in a
    named-winner round still fails, naming the round."""
    start = engine.start_event(["Ana", "Ben", "Cleo"], 20, dealer=2, rules=Rules(),
                               companion=True)
    state = engine.evolve(None, start)
    events: list[Event] = [start]

    def play(calls: dict[int, Declaration]) -> None:
        nonlocal state
        state, more = engine.deal_unseen(state)
        events.extend(more)
        for seat, call in calls.items():
            state, more = engine.declare(state, seat, call)
            events.extend(more)

    both_in = {0: Declaration.IN, 1: Declaration.IN, 2: Declaration.OUT}
    play(both_in)  # antes 1 each: pot 3; Ana's aces beat Ben's kings
    state, more = engine.show_cards(state, {0: parse_cards("Ah Ad Ac"),
                                            1: parse_cards("Kh Kd Kc")})
    events.extend(more)
    assert state.stacks == (22, 16, 19) and state.pot == 3  # Ben matched the pot of 3
    play(both_in)  # no new ante: the pot is Ben's match, 3
    state, more = engine.name_winners(state, (1,))
    events.extend(more)
    assert state.stacks == (19, 19, 19) and state.pot == 3  # Ana matched 3
    play(both_in)
    state, more = engine.undo_round(state, "wrong entry")
    events.extend(more)
    assert state.stacks == (19, 19, 19) and state.pot == 3
    state, more = engine.end_session(state)
    events.extend(more)
    everything = [event_to_dict(e) for e in events]
    code, out, err = run(tmp_path, None, everything)
    assert (code, err) == (0, ""), err
    assert "round 2: replays through the engine" in out
    resolved = of_type(everything, "RoundResolved")
    assert resolved[1]["won"] == [0, 3, 0]
    resolved[1]["won"] = [0, 4, 0]
    code, _, err = run(tmp_path, None, everything)
    assert code == 1 and err.startswith("FAILED: round 2: the recorded RoundResolved "
                                        "differs"), err
