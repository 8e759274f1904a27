"""The running ledger over sessions (``gutskit.core.ledger.carry``, a rematch with the
ledger carried): nothing is created or destroyed."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gutskit.core.ledger import LedgerLine, carry

NAMES = ["Ana", "Ben", "Cleo", "Dee", "Eve"]


def session(nets: list[int], names: list[str]) -> list[LedgerLine]:
    return [LedgerLine(seat, name, 20, 20 + net, net, False)
            for seat, (name, net) in enumerate(zip(names, nets, strict=True))]


@st.composite
def sessions(draw: st.DrawFn) -> list[list[LedgerLine]]:
    """Sessions of 2-5 players drawn from NAMES, each with nets adding up to zero."""
    played = []
    for _ in range(draw(st.integers(1, 4))):
        names = draw(st.lists(st.sampled_from(NAMES), min_size=2, max_size=5, unique=True))
        nets = draw(st.lists(st.integers(-20, 20), min_size=len(names) - 1,
                             max_size=len(names) - 1))
        played.append(session([*nets, -sum(nets)], names))
    return played


@given(sessions())
def test_the_carried_ledger_adds_up_to_zero_and_sums_each_players_nets(
        played: list[list[LedgerLine]]) -> None:
    carried: tuple[tuple[str, int], ...] = ()
    for lines in played:
        carried = carry(carried, lines)
    assert sum(net for _, net in carried) == 0
    totals = dict(carried)
    for name in {line.name for lines in played for line in lines}:
        assert totals[name] == sum(x.net for lines in played for x in lines if x.name == name)
    assert len(totals) == len(carried)  # one line per player


def test_a_player_who_left_keeps_its_line_and_newcomers_come_last() -> None:
    first = carry((), session([2, -1, -1], ["Ana", "Cleo", "Ben"]))
    assert first == (("Ana", 2), ("Cleo", -1), ("Ben", -1))
    second = carry(first, session([-1, -1, 2], ["Ana", "Dee", "Ben"]))
    assert second == (("Ana", 1), ("Cleo", -1), ("Ben", 1), ("Dee", -1))
