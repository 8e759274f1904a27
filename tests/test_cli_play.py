"""``guts play`` driven through a pipe, and ``guts history`` of what it saved."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner, Result

from gutskit.cli.app import app
from gutskit.cli.terminal import play_session
from gutskit.core.cards import pretty_cards
from gutskit.core.engine import GameState, Phase, replay
from gutskit.core.events import (
    CardsDealt,
    Declaration,
    DeclarationsRevealed,
    Declared,
    Event,
    RoundResolved,
    SessionEnded,
)
from gutskit.core.history import event_from_dict
from gutskit.core.ledger import ledger
from gutskit.core.rules import Rules, preset
from gutskit.core.settlement import clockwise_from
from gutskit.io.storage import open_store

RUNNER = CliRunner(env={"FORCE_COLOR": None, "TTY_COMPATIBLE": None, "COLUMNS": "120",
                        "GUTSKIT_DB": None})


def guts(*args: str, input: str | None = None) -> Result:
    result = RUNNER.invoke(app, list(args), input=input)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def saved(db: Path, session_id: int = 1) -> tuple[list[Event], GameState]:
    events = open_store(db).events(session_id)
    return events, replay(events)


def assert_ledger_printed(text: str, state: GameState) -> None:
    """The printed ledger has every player's buy-in, final stack and net, as replayed."""
    ledger_text = text[text.index("Ledger"):]
    for line in ledger(state):
        net = f"{line.net:+d}" if line.net else "0"
        pattern = (rf"│ {re.escape(line.name)}[^│]*│\s+{line.buy_in} │\s+{line.stack} │"
                   rf"\s+{re.escape(net)} │")
        assert re.search(pattern, ledger_text), (pattern, ledger_text)


def rounds_of(events: list[Event]) -> Iterator[tuple[CardsDealt, list[Event]]]:
    """Each deal with the events that follow it up to the next deal."""
    current: CardsDealt | None = None
    rest: list[Event] = []
    for event in events:
        if isinstance(event, CardsDealt):
            if current is not None:
                yield current, rest
            current, rest = event, []
        elif current is not None:
            rest.append(event)
    if current is not None:
        yield current, rest


def test_play_through_a_pipe_until_quit(tmp_path: Path) -> None:
    db = tmp_path / "guts.db"
    result = guts("play", "--seed", "3", "--db", str(db),
                  input="i\no\nfoo\n\nin\nquit\n")
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert "Sorry, 'foo' is not an answer. Type in (i), out (o) or quit (q)." in text
    assert "Please type an answer. Type in (i), out (o) or quit (q)." in text
    assert "''" not in text
    assert text.count("In or out? [i/o/q]") == 6  # i, o, foo, (empty), in, quit
    assert "The session ends: You quit." in text
    assert f"Hand history saved as session 1 in {db}" in text

    events, state = saved(db)
    assert state.phase is Phase.OVER
    assert state.end_reason == "You quit"
    assert sum(state.stacks) == 5 * 100  # pot shared out at the end
    assert_ledger_printed(text, state)
    dealt = [e for e in events if isinstance(e, CardsDealt)]
    assert len(dealt) == 4  # three rounds answered, the fourth dealt when quitting
    revealed = [e for e in events if isinstance(e, DeclarationsRevealed)]
    assert [r.declarations[0] for r in revealed] == [Declaration.IN, Declaration.OUT,
                                                     Declaration.IN]
    assert isinstance(events[-1], SessionEnded)
    info = open_store(db).session(1)
    assert (info.status, info.source, info.rounds) == ("finished", "play", 4)
    assert info.players == ["You", "Ava", "Bruno", "Chen", "Dara"]

    # The terminal showed your own cards every round, and a bot's cards only when shown at
    # a showdown.
    for deal_event, rest in rounds_of(events):
        mine = deal_event.hands[0]
        assert mine is not None
        assert f"Your cards: {pretty_cards(mine)}" in text
        shown = next((e.shown for e in rest if isinstance(e, RoundResolved)), None)
        for seat, hand in enumerate(deal_event.hands[1:], 1):
            assert hand is not None
            if shown is None or shown[seat] is None:
                assert pretty_cards(hand) not in text


def test_play_end_of_input_without_quit(tmp_path: Path) -> None:
    db = tmp_path / "guts.db"
    result = guts("play", "-n", "3", "--chips", "20", "--preset", "german-2card", "--seed", "8",
                  "--db", str(db), input="o\nI\n")
    assert result.exit_code == 0, result.stderr
    assert "The session ends: end of input." in result.stdout
    events, state = saved(db)
    assert state.end_reason == "end of input"
    assert state.rules.cards_per_hand == 2
    assert state.buy_ins == (20, 20, 20)
    assert sum(state.stacks) == 60
    assert_ledger_printed(result.stdout, state)
    assert len([e for e in events if isinstance(e, CardsDealt)]) == 3
    assert open_store(db).session(1).status == "finished"


def test_play_is_reproducible_under_a_seed(tmp_path: Path) -> None:
    answers = "in\nout\nin\nin\nout\n"
    first = guts("play", "--seed", "21", "--db", str(tmp_path / "a.db"), input=answers)
    second = guts("play", "--seed", "21", "--db", str(tmp_path / "b.db"), input=answers)
    assert first.stdout.replace("a.db", "X") == second.stdout.replace("b.db", "X")
    assert [e for e in saved(tmp_path / "a.db")[0]] == [e for e in saved(tmp_path / "b.db")[0]]


def test_play_sequential_shows_earlier_calls_before_asking(tmp_path: Path) -> None:
    db = tmp_path / "guts.db"
    result = guts("play", "--preset", "indonesian", "-n", "4", "--seed", "4", "--db", str(db),
                  input="out\nout\nout\nout\n")
    assert result.exit_code == 0, result.stderr
    events, state = saved(db)
    assert state.rules.declaration == "sequential"
    # Split the transcript at the round headers; in each round the players left of the
    # dealer up to you declare (visibly) before you are asked.
    chunks = re.split(r"─+ Round \d+ · ", result.stdout)[1:]
    dealers = [line.split("dealer ")[1].split(" ")[0] for line in chunks]
    deals = list(rounds_of(events))
    assert len(chunks) == len(deals) == 5
    for chunk, dealer_name, (deal_event, rest) in zip(chunks, dealers, deals, strict=True):
        order = [s for s in clockwise_from(state.names.index(dealer_name), 4)
                 if deal_event.hands[s] is not None]
        before_me = order[:order.index(0)]
        calls = [e.seat for e in rest if isinstance(e, Declared)]
        assert calls == order[:len(calls)]
        if "In or out?" not in chunk:
            continue
        asked = chunk.index("In or out?")
        for seat in before_me:
            assert chunk.index(f"{state.names[seat]} declares") < asked
        for seat in order[order.index(0) + 1:]:
            if seat in calls:
                assert chunk.index(f"{state.names[seat]} declares") > asked


def test_play_ctrl_c_prints_the_ledger_and_saves(tmp_path: Path) -> None:
    store = open_store(tmp_path / "guts.db")
    answers = iter(["in", "out"])

    def read(prompt: str) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise KeyboardInterrupt from None

    console = Console(record=True, width=120, file=open(os.devnull, "w"))  # noqa: SIM115
    result = play_session(console=console, read=read, store=store, rules=Rules(),
                          players=3, chips=30, rng=__import__("random").Random(2))
    console.file.close()
    assert result.interrupted
    assert result.reason == "interrupted (Ctrl-C)"
    text = console.export_text()
    assert "Ledger" in text
    events = store.events(result.session_id)
    assert replay(events) == result.state
    assert sum(result.state.stacks) == 90
    assert store.session(result.session_id).status == "finished"


def test_play_ends_when_you_are_out_of_chips(tmp_path: Path) -> None:
    # One chip each: the first ante empties every stack, so after the first round nobody
    # but the winner has chips and the session is over.
    db = tmp_path / "guts.db"
    result = guts("play", "-n", "2", "--chips", "1", "--seed", "1", "--db", str(db),
                  input="in\nin\nin\n")
    assert result.exit_code == 0, result.stderr
    _, state = saved(db)
    assert state.phase is Phase.OVER
    assert sorted(state.stacks) == [0, 2]
    assert "Ledger" in result.stdout


def test_play_user_errors(tmp_path: Path) -> None:
    for args, needle in [
        (["--players", "1"], "--players"),
        (["--players", "11"], "--players"),
        (["--chips", "0"], "--chips"),
        (["--preset", "social", "--rules", "x.toml"], "--preset and --rules"),
        (["--rule", "declaration=shouted"], "declaration"),
        (["--name", "Ava"], "--name 'Ava' is a bot's name at this table"),
    ]:
        result = guts("play", "--db", str(tmp_path / "x.db"), *args, input="quit\n")
        assert result.exit_code == 2, (args, result.stdout)
        assert result.stderr.startswith("error: ") and needle in result.stderr, result.stderr
        assert "Traceback" not in result.stderr
    not_a_db = tmp_path / "notes.db"
    not_a_db.write_text("these are my notes, not a database\n" * 50, encoding="utf-8")
    result = guts("play", "--db", str(not_a_db), input="quit\n")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("error: cannot open database") and "notes.db" in result.stderr


def test_history_lists_and_prints_sessions(tmp_path: Path) -> None:
    db = tmp_path / "guts.db"
    guts("play", "--seed", "5", "--db", str(db), input="in\nout\nq\n")
    guts("play", "--seed", "6", "--preset", "indonesian", "--db", str(db), input="o\n")
    listing = guts("history", "--db", str(db))
    assert listing.exit_code == 0, listing.stderr
    assert re.search(r"│\s+1 │ .* │ play\s+│ You, Ava, Bruno, Chen, Dara\s+│\s+3 │ finished: "
                     r"You quit", listing.stdout)
    assert re.search(r"│\s+2 │ .* │ play\s+│ You, Ava, Bruno, Chen, Dara\s+│\s+2 │ finished: "
                     r"end of input", listing.stdout)
    rows = [json.loads(line) for line in
            guts("history", "--db", str(db), "--json").stdout.splitlines()]
    assert [(r["id"], r["rounds"], r["status"]) for r in rows] == [
        (1, 3, "finished"), (2, 2, "finished")]
    assert rows[1]["rules"]["declaration"] == "sequential"

    lines = guts("history", "2", "--db", str(db), "--json").stdout.splitlines()
    events = [event_from_dict(json.loads(line)) for line in lines]
    assert events == open_store(db).events(2)
    assert replay(events).rules == preset("indonesian")

    story = guts("history", "1", "--db", str(db))
    assert story.exit_code == 0, story.stderr
    assert "Session 1 (play" in story.stdout
    assert "Round 3 · game" in story.stdout
    assert "Ledger" in story.stdout
    first_deal = next(e for e in events if isinstance(e, CardsDealt))
    story2 = guts("history", "2", "--db", str(db)).stdout
    for name, hand in zip(replay(events).names, first_deal.hands, strict=True):
        assert hand is not None
        assert f"{name}: {pretty_cards(hand)}" in story2  # the full record shows every hand


def test_history_errors(tmp_path: Path) -> None:
    db = tmp_path / "guts.db"
    guts("play", "--seed", "5", "--db", str(db), input="q\n")
    result = guts("history", "9", "--db", str(db))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.strip() == f"error: no session 9 in '{db}'"
    # A database that does not exist: exit 2 naming it (as 'guts analyze'), none created.
    missing = str(tmp_path / "missing.db")
    for args in ((), ("--json",), ("2",)):
        result = guts("history", *args, "--db", missing)
        assert (result.exit_code, result.stdout) == (2, "")
        assert result.stderr == f"error: database {missing!r} does not exist\n"
        assert guts("analyze", "--db", missing).stderr == result.stderr
    assert not (tmp_path / "missing.db").exists()


def test_guts_play_in_a_real_pipe(tmp_path: Path) -> None:
    """The installed console script, a real pipe (no TTY), end of input without quit."""
    script = Path(sys.executable).parent / "guts"
    db = tmp_path / "guts.db"
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    done = subprocess.run([str(script), "play", "--seed", "9", "--db", str(db)],
                          input="o\ni\n", capture_output=True, text=True, timeout=120, env=env,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "Ledger" in done.stdout
    assert "The session ends: end of input." in done.stdout
    _, state = saved(db)
    assert state.end_reason == "end of input"
    bad = subprocess.run([str(script), "compare", "As Ks", "Xx Qd"], capture_output=True,
                         text=True, timeout=60, env=env, check=False)
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert bad.stderr.startswith("error: unknown card 'Xx'")


def _narrate(state: GameState, events: list[Event], me: int | None = 0) -> str:
    from gutskit.cli.terminal import Narrator
    from gutskit.core.engine import evolve

    console = Console(record=True, width=120, file=open(os.devnull, "w"))  # noqa: SIM115
    narrator = Narrator(console, me=me)
    for event in events:
        after = evolve(state, event)
        narrator.event(state, event, after)
        state = after
    console.file.close()
    return console.export_text()


def test_narration_of_a_showdown_with_an_elimination_and_a_tie() -> None:
    from conftest import play_round, table

    # Ana (you, seat 0) and Cleo (2 chips after the ante) are in; Ana's aces win the pot of
    # 3; Cleo cannot match 3 and is eliminated keeping her 2 chips.
    state = table(3, [10, 10, 3], dealer=2, cards_per_hand=2)
    _, events = play_round(state, {0: "As Ad", 1: "2c 3d", 2: "4h 6s"}, ins=[0, 2])
    text = _narrate(state, events)
    assert "Round 1 · game 1 · dealer Cleo" in text
    assert "A new game starts: everyone in play antes 1. Pot: 3." in text
    assert "Your cards: A♠ A♦  (Pair of aces)" in text
    assert "2♣ 3♦" not in text  # Ben was out: his cards are never shown
    assert "Reveal: Ana IN · Ben out · Cleo IN" in text
    assert re.search(r"│ Ana\s+│ A♠ A♦\s+│ Pair of aces\s+│ wins 3", text)
    assert re.search(r"│ Cleo\s+│ 4♥ 6♠\s+│ Six-four high\s+│ cannot match: eliminated", text)
    assert "Cleo is eliminated for the rest of the session (keeping 2 chips)." in text
    assert "Stacks: Ana 12 · Ben 9 · Cleo 2 (out)" in text

    # A tie under suit_tiebreak = "none": Ana and Ben split 3 (1 each, 1 carried); Cleo
    # matches 3; the next pot is 1 + 3 = 4.
    state = table(3, [10, 10, 10], dealer=2, cards_per_hand=2, suit_tiebreak="none")
    _, events = play_round(state, {0: "Ah Kd", 1: "As Kc", 2: "Qs Jd"}, ins=[0, 1, 2])
    text = _narrate(state, events, me=1)
    assert "Your cards: A♠ K♣  (Ace-king high)" in text
    assert "Tie: Ana and Ben split the pot." in text
    assert "Next pot: 4." in text
    assert "Stacks: Ana 10 · Ben 10 · Cleo 6" in text


def test_narration_of_void_and_uncontested_rounds() -> None:
    from conftest import play_round, table

    state = table(3, 10, dealer=0, cards_per_hand=2)
    state1, void = play_round(state, {0: "2c 3d", 1: "4h 6s", 2: "7c 9d"}, ins=[])
    _, alone = play_round(state1, {0: "Kc Kd", 1: "4c 6d", 2: "7h 9s"}, ins=[0])
    text = _narrate(state, void + alone)
    assert ("Nobody is in: the round is void; everyone antes again and the pot grows. "
            "You deal again.") in text
    assert "Re-ante after the void round: everyone in play antes 1. Pot: 6." in text
    assert "You are the only one in and take the pot of 6 uncontested." in text
    assert "The pot is empty: the next round starts a new game." in text
    assert "K♣ K♦" in text  # your own cards
    assert "7♥ 9♠" not in text  # never another player's cards outside a showdown
    record = _narrate(state, void + alone, me=None)  # the full record shows every hand
    assert "Cleo: 7♥ 9♠  (Nine-seven high)" in record


def test_play_hi_lo_asks_high_low_both_or_out(tmp_path: Path) -> None:
    db = tmp_path / "guts.db"
    result = guts("play", "--preset", "hi-lo", "-n", "3", "--seed", "1", "--db", str(db),
                  input="in\nh\nb\nq\n")
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert "Type high (h), low (l), both (b), out (o) or quit (q)." in text
    assert "High, low, both or out? [h/l/b/o/q] in" in text
    assert "Sorry, 'in' is not an answer." in text
    events, _ = saved(db)
    mine = [e.declarations[0] for e in events if isinstance(e, DeclarationsRevealed)]
    assert mine == [Declaration.HIGH, Declaration.BOTH]
    assert "Reveal: You HIGH" in text and "Reveal: You BOTH" in text


def test_play_pass_the_trash(tmp_path: Path) -> None:
    from gutskit.core.events import CardsPassed

    db = tmp_path / "guts.db"
    result = guts("play", "--preset", "pass-the-trash", "-n", "3", "--seed", "1", "--db",
                  str(db), input="2\no\n9z\nKs\n1\nq\n")
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    events, _ = saved(db)
    deals = [e for e in events if isinstance(e, CardsDealt)]
    exchanges = [e for e in events if isinstance(e, CardsPassed)]
    assert len(exchanges) == 2
    first_hand, second_hand = deals[0].hands[0], deals[1].hands[0]
    assert first_hand is not None and second_hand is not None
    # "2" passes the second card; "9z" and a card not in the hand are refused; "1" the first.
    assert exchanges[0].passes[0] == first_hand[1]
    assert exchanges[1].passes[0] == second_hand[0]
    assert "'9z' is not one of your cards." in text
    for exchange in exchanges:
        # You receive from the player on your right (the last seat of three).
        passed, received = exchange.passes[0], exchange.passes[2]
        assert passed is not None and received is not None
        assert (f"You pass {pretty_cards((passed,))} to the left and receive "
                f"{pretty_cards((received,))}.") in text


def test_play_no_peek_hides_your_cards_until_the_reveal(tmp_path: Path) -> None:
    db = tmp_path / "guts.db"
    result = guts("play", "--preset", "no-peek", "-n", "3", "--seed", "2", "--db", str(db),
                  input="o\no\no\n")
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert text.count("Your cards are dealt face down: No Peek, you declare blind.") == 4
    assert "Your cards:" not in text
    events, _ = saved(db)
    for deal_event, _rest in rounds_of(events):
        mine = deal_event.hands[0]
        assert mine is not None
        assert pretty_cards(mine) not in text  # you were out every time: never shown


def test_away_and_back_in_the_terminal_game(tmp_path: Path) -> None:
    """``away`` at a declaration: the seat and chips are kept, the round in progress still
    needs the declaration, and you are dealt out from the next deal; ``back`` between rounds
    brings you back for the next game (the table driver's sit_out / come_back decide)."""
    db = tmp_path / "away.db"
    result = guts("play", "--players", "3", "--seed", "7", "--chips", "20", "--db", str(db),
                  input="away\nin\n\n\nback\nin\nquit\n")
    assert result.exit_code == 0, result.output
    text = result.output
    # Round 1 (seed 7): pot 3 after antes of 1 (19 each); all in: Ava's straight Q-J-T wins
    # 3 (22); You (8-7-3 high) and Bruno (4-3-2 straight, lower) match 3 each (16).
    assert "You are away: dealt out until you come back." in text
    assert "This round still needs your declaration." in text
    assert "Stacks: You 16 · Ava 22 · Bruno 16" in text
    # Rounds 2-3 void without you (a re-ante of 1 from Ava and Bruno only: 21, 15, pot 8);
    # "back" in the middle of that game waits for the next one.
    assert "Stacks: You 16 · Ava 21 · Bruno 15" in text
    assert "You come back when the next game starts (the pot of 8 is played out" in text
    assert text.count("You are not dealt in.") >= 3
    events, state = saved(db)
    kinds = [type(e).__name__ for e in events]
    assert kinds.count("SeatAway") == 1 and kinds.count("SeatBack") == 1
    back = kinds.index("SeatBack")
    # back only once the pot was empty (a new game), and dealt in at the very next deal
    resolved = [e for e in events[:back] if isinstance(e, RoundResolved)]
    assert resolved[-1].pot_after == 0
    dealt = next(e for e in events[back:] if isinstance(e, CardsDealt))
    assert dealt.hands[0] is not None
    assert sum(state.stacks) + state.pot + state.reserve == 60  # no chip made or lost
    assert_ledger_printed(text, state)


def test_away_is_refused_when_the_table_driver_says_no(tmp_path: Path) -> None:
    """Typing away twice: the second time the driver's reason is said back to you."""
    result = guts("play", "--players", "2", "--seed", "3", "--chips", "10", "--db",
                  str(tmp_path / "a.db"), input="away\naway\nout\nquit\n")
    assert result.exit_code == 0, result.output
    assert "You are already away" in result.output
