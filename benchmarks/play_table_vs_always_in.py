"""How the opponents of ``guts play`` treat a player who always goes in (issue 12 item 6).

Seeded ``guts play`` sessions (default rules: 3-card, 5 players, 100 chips) in which seat 0
answers "in" to every round, against the table before issue 12 (``bot_table``: cautious,
standard, loose, loose) and the default table now (``PLAY_TABLE``). Prints, per table, the
rounds played, how often the always-in player took the pot uncontested, its showdowns won
and lost, and its net chips per round (mean ± standard error over sessions).

    PYTHONPATH=src python benchmarks/play_table_vs_always_in.py [SESSIONS] [ROUNDS]
"""

from __future__ import annotations

import io
import random
import statistics
from collections.abc import Iterator, Sequence

from common import arguments, header
from rich.console import Console

from gutskit.cli.terminal import play_session
from gutskit.core.events import Event, Outcome, RoundResolved, SessionStarted
from gutskit.core.rules import Rules
from gutskit.strategy.strategies import PLAY_TABLE

TABLES = {"before (bot_table)": ("cautious", "rule-of-thumb", "loose", "loose"),
          "now (PLAY_TABLE)": PLAY_TABLE[:4]}


class _Sink:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def create_session(self, source: str, start: SessionStarted) -> int:
        return 1

    def append(self, session_id: int, events: Sequence[Event], *,
               end_reason: str | None = None) -> None:
        self.events.extend(events)


def run(kinds: tuple[str, ...], sessions: int, rounds_each: int) -> str:
    rounds = uncontested = won = lost = 0
    per_round: list[float] = []
    for seed in range(sessions):
        answers = iter(["in"] * rounds_each)

        def read(prompt: str, answers: Iterator[str] = answers) -> str:
            try:
                return next(answers)
            except StopIteration:
                raise EOFError from None

        sink = _Sink()
        result = play_session(console=Console(file=io.StringIO()), read=read, store=sink,
                              rules=Rules(), players=5, chips=100, rng=random.Random(seed),
                              bots=kinds)
        played = 0
        for event in sink.events:
            if isinstance(event, RoundResolved):
                played += 1
                if event.outcome is Outcome.UNCONTESTED and 0 in event.winners:
                    uncontested += 1
                elif event.outcome is Outcome.SHOWDOWN:
                    won += 0 in event.winners
                    lost += 0 not in event.winners
        rounds += played
        per_round.append((result.state.stacks[0] - 100) / max(1, played))
    se = statistics.stdev(per_round) / len(per_round) ** 0.5
    return (f"{', '.join(kinds)}: {rounds} rounds in {sessions} sessions; always-in "
            f"player took {uncontested} uncontested ({uncontested / rounds:.1%}), won "
            f"{won} and lost {lost} showdowns; net {statistics.mean(per_round):+.2f} "
            f"± {se:.2f} chips per round")


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("sessions", nargs="?", type=int, default=40,
                        help="seeded sessions per table (default 40)")
    parser.add_argument("rounds", nargs="?", type=int, default=10,
                        help="rounds per session at most (default 10)")
    args = parser.parse_args()
    sessions, rounds_each = args.sessions, args.rounds
    header(f"guts play tables against an always-in player ({sessions} seeded sessions, "
           f"up to {rounds_each} rounds each)")
    for label, kinds in TABLES.items():
        print(f"{label}: {run(kinds, sessions, rounds_each)}")


if __name__ == "__main__":
    main()
