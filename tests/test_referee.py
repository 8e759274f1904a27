"""The referee (issue 2, part 6 ``guts referee``): the shared worked cases, hand-worked
sessions, and every invalid input refused with a message naming the problem."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from conftest import CASES_DIR, assert_subset, load_case, referee_cases, run_referee

from gutskit.core.referee import RefereeError, settle

QUEENS = "Qs Qh 7d"
NINES = "9d 9c 8s"
JACK_HIGH = "Jc Ts 4h"
SEVEN_HIGH = "7c 5d 2h"

# --- the public worked cases ------------------------------------------------------------------


def test_the_cases_folder_is_found() -> None:
    assert CASES_DIR.is_dir(), CASES_DIR
    names = {p.name for p in referee_cases()}
    assert {"seed-example-pot-5.json", "seed-example-pot-8.json",
            "seed-example-pot-25.json"} <= names


@pytest.mark.parametrize("path", referee_cases(), ids=lambda p: p.stem)
def test_shared_case(path: Path) -> None:
    case = load_case(path)
    assert_subset(run_referee(case["input"]), case["expected"])


def test_seed_examples_in_full() -> None:
    # RULES.md: pot 8 -> 16, pot 5 -> 10, pot 25 -> 75; every key of the output, by hand
    out = run_referee(load_case(CASES_DIR / "seed-example-pot-8.json")["input"])
    assert out == {
        "rounds": [{
            "dealer": "Dev", "antes": {}, "pot_before": 8, "in": ["Ana", "Ben", "Cleo"],
            "winners": ["Ana"], "deltas": {"Ana": 8, "Ben": -8, "Cleo": -8, "Dev": 0},
            "pot_after": 16, "eliminated": [], "outcome": "showdown", "reserve_after": 0,
        }],
        "stacks": {"Ana": 58, "Ben": 42, "Cleo": 42, "Dev": 50},
        "pot": 16, "reserve": 0, "session_over": False,
    }
    out = run_referee(load_case(CASES_DIR / "seed-example-pot-5.json")["input"])
    assert out["rounds"][0]["pot_after"] == out["pot"] == 10
    assert out["stacks"] == {"Ana": 15, "Ben": 25, "Cleo": 15, "Dev": 20, "Eli": 20}
    out = run_referee(load_case(CASES_DIR / "seed-example-pot-25.json")["input"])
    assert out["rounds"][0]["in"] == ["Ana", "Ben", "Cleo", "Dev"]
    assert out["pot"] == 75


# --- hand-worked sessions ----------------------------------------------------------------------


def three_players(rules: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "rules": {"cards_per_hand": 3} if rules is None else rules,
        "players": [{"name": "Ana", "stack": 20}, {"name": "Ben", "stack": 20},
                    {"name": "Cleo", "stack": 20}],
        "dealer": "Ana",
        "rounds": [],
        **extra,
    }


ALL_HANDS = {"Ana": SEVEN_HIGH, "Ben": QUEENS, "Cleo": JACK_HIGH}
ALL_OUT = {"Ana": "out", "Ben": "out", "Cleo": "out"}


def test_a_session_with_antes_uncontested_and_void_rounds() -> None:
    data = three_players()
    data["rounds"] = [
        {"hands": ALL_HANDS, "declarations": {"Ana": "out", "Ben": "in", "Cleo": "in"}},
        {"hands": {"Cleo": JACK_HIGH},
         "declarations": {"Ana": "out", "Ben": "out", "Cleo": "in"}},
        {"declarations": ALL_OUT},
        {"hands": {"Ana": QUEENS, "Ben": NINES},
         "declarations": {"Ana": "in", "Ben": "in", "Cleo": "out"}},
    ]
    out = run_referee(data)
    rounds = out["rounds"]
    # 1: a new game, antes 1 each; Ben's queens beat Cleo's jack high; Cleo matches 3
    assert rounds[0] == {
        "dealer": "Ana", "antes": {"Ana": 1, "Ben": 1, "Cleo": 1}, "pot_before": 3,
        "in": ["Ben", "Cleo"], "winners": ["Ben"],
        "deltas": {"Ana": -1, "Ben": 2, "Cleo": -4}, "pot_after": 3, "eliminated": [],
        "outcome": "showdown", "reserve_after": 0,
    }
    # 2: the deal passes to Ben; no ante; Cleo alone in takes the 3
    assert rounds[1] == {
        "dealer": "Ben", "antes": {}, "pot_before": 3, "in": ["Cleo"], "winners": ["Cleo"],
        "deltas": {"Ana": 0, "Ben": 0, "Cleo": 3}, "pot_after": 0, "eliminated": [],
        "outcome": "uncontested", "reserve_after": 0,
    }
    # 3: a new game dealt by Cleo; everyone out: void
    assert rounds[2] == {
        "dealer": "Cleo", "antes": {"Ana": 1, "Ben": 1, "Cleo": 1}, "pot_before": 3,
        "in": [], "winners": [], "deltas": {"Ana": -1, "Ben": -1, "Cleo": -1},
        "pot_after": 3, "eliminated": [], "outcome": "void", "reserve_after": 0,
    }
    # 4: all_out = reante: Cleo deals again and everyone antes again (pot 6)
    assert rounds[3] == {
        "dealer": "Cleo", "antes": {"Ana": 1, "Ben": 1, "Cleo": 1}, "pot_before": 6,
        "in": ["Ana", "Ben"], "winners": ["Ana"],
        "deltas": {"Ana": 5, "Ben": -7, "Cleo": -1}, "pot_after": 6, "eliminated": [],
        "outcome": "showdown", "reserve_after": 0,
    }
    assert out["stacks"] == {"Ana": 23, "Ben": 14, "Cleo": 17}
    assert (out["pot"], out["reserve"], out["session_over"]) == (6, 0, False)


def test_all_out_carry_under_the_indonesian_preset() -> None:
    data = three_players({"preset": "indonesian"})
    data["rounds"] = [
        {"declarations": ALL_OUT},
        {"declarations": ALL_OUT},
        {"hands": {"Ana": "Ah Kd", "Ben": "As Kc"},
         "declarations": {"Ben": "in", "Cleo": "out", "Ana": "in"}},
    ]
    out = run_referee(data)
    assert [r["dealer"] for r in out["rounds"]] == ["Ana", "Ana", "Ana"]
    assert [r["antes"] for r in out["rounds"]] == [{"Ana": 1, "Ben": 1, "Cleo": 1}, {}, {}]
    assert [r["pot_before"] for r in out["rounds"]] == [3, 3, 3]
    # suit_tiebreak = none: A-K ties A-K, the pot of 3 splits 1 + 1, 1 chip carries
    last = out["rounds"][2]
    assert (last["winners"], last["deltas"], last["pot_after"]) == (
        ["Ana", "Ben"], {"Ana": 1, "Ben": 1, "Cleo": 0}, 1)
    assert out["stacks"] == {"Ana": 20, "Ben": 20, "Cleo": 19}


def test_cards_per_hand_is_inferred_from_the_hands() -> None:
    data = three_players({})
    data["rounds"] = [{"hands": {"Ana": "Ts Tc", "Ben": "9s 9c"},
                       "declarations": {"Ana": "in", "Ben": "in", "Cleo": "out"}}]
    out = run_referee(data)
    assert out["rounds"][0]["winners"] == ["Ana"]
    assert out["stacks"] == {"Ana": 22, "Ben": 16, "Cleo": 19}  # antes 3, Ana wins 3


def test_pot_cap_reserve_and_eliminated_in_the_output() -> None:
    data: dict[str, Any] = {
        "rules": {"cards_per_hand": 2, "pot_cap": 30, "pot_cap_mode": "reserve"},
        "players": [{"name": "Ana", "stack": 100}, {"name": "Ben", "stack": 10},
                    {"name": "Cleo", "stack": 100}, {"name": "Dev", "stack": 100}],
        "dealer": "Dev",
        "pot": 20,
        "rounds": [{"hands": {"Ana": "Kc Ks", "Ben": "Ad Qc", "Cleo": "6h 6d", "Dev": "5c 5d"},
                    "declarations": {"Ana": "in", "Ben": "in", "Cleo": "in", "Dev": "in"}}],
    }
    out = run_referee(data)
    # Ana's kings win 20; Ben cannot match 20 and is eliminated (keeps 10); Cleo and Dev
    # pay 20 each: 40, capped at 30 with 10 to the reserve
    assert out["rounds"][0] == {
        "dealer": "Dev", "antes": {}, "pot_before": 20,
        "in": ["Ana", "Ben", "Cleo", "Dev"], "winners": ["Ana"],
        "deltas": {"Ana": 20, "Ben": 0, "Cleo": -20, "Dev": -20}, "pot_after": 30,
        "eliminated": ["Ben"], "outcome": "showdown", "reserve_after": 10,
    }
    assert (out["pot"], out["reserve"]) == (30, 10)
    # Ben may not play on
    data["rounds"].append({"declarations": {"Ana": "out", "Ben": "out", "Cleo": "out",
                                            "Dev": "out"}})
    with pytest.raises(RefereeError, match="round 2: 'Ben' was eliminated and was not dealt"):
        settle(data)
    data["rounds"][1] = {"declarations": {"Ana": "in", "Cleo": "out", "Dev": "out"},
                         "hands": {"Ana": "2c 3c"}}
    out = run_referee(data)
    # the dealer passed from Dev to Ana, skipping nobody; the pot of 30 is not empty
    assert out["rounds"][1]["dealer"] == "Ana"
    assert out["rounds"][1]["antes"] == {}
    assert out["stacks"] == {"Ana": 150, "Ben": 10, "Cleo": 80, "Dev": 80}
    assert (out["pot"], out["reserve"]) == (0, 10)


def test_end_on_uncontested_and_a_round_after_the_end() -> None:
    data = three_players({"cards_per_hand": 3, "end_on_uncontested": True}, pot=6)
    data["rounds"] = [
        {"hands": {"Ben": QUEENS}, "declarations": {"Ana": "out", "Ben": "in", "Cleo": "out"}},
    ]
    out = run_referee(data)
    # a file starting with a pot is a game in progress with matches: it ends here
    assert out["session_over"] is True
    assert out["stacks"] == {"Ana": 20, "Ben": 26, "Cleo": 20}
    data["rounds"].append({"declarations": ALL_OUT})
    with pytest.raises(RefereeError) as info:
        settle(data)
    assert str(info.value) == ("round 2: the session is already over (uncontested win "
                               "after matched rounds (end_on_uncontested))")


def test_require_cover_is_enforced() -> None:
    data = three_players({"cards_per_hand": 2, "require_cover": True}, pot=25)
    data["rounds"] = [{"hands": {"Ana": "Kc Ks", "Ben": "Ad Qc"},
                       "declarations": {"Ana": "in", "Ben": "in", "Cleo": "out"}}]
    with pytest.raises(RefereeError) as info:
        settle(data)
    assert str(info.value) == ("round 1: 'Ana' cannot declare in: require_cover needs 25 "
                               "chips to match the pot, 'Ana' has 20")


def test_settle_does_not_change_its_input() -> None:
    data = three_players()
    data["rounds"] = [{"hands": ALL_HANDS, "declarations": ALL_OUT}]
    before = copy.deepcopy(data)
    settle(data)
    assert data == before


# --- invalid input -----------------------------------------------------------------------------


def base() -> dict[str, Any]:
    data = three_players()
    data["rounds"] = [{"hands": dict(ALL_HANDS),
                       "declarations": {"Ana": "out", "Ben": "in", "Cleo": "in"}}]
    return data


def with_change(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    """``base()`` with the item at ``path`` set to ``value`` (or deleted for ``DELETE``)."""
    data = base()
    target: Any = data
    for key in path[:-1]:
        target = target[key]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


DELETE = object()

INVALID: list[tuple[str, dict[str, Any] | Any, str]] = [
    ("file not an object", [1, 2], "the referee file must be a JSON object, not [1, 2]"),
    ("unknown top key", with_change(("seats",), 3), "unknown key 'seats' in the referee file"),
    ("no players", with_change(("players",), DELETE), "players must be a non-empty list"),
    ("players not a list", with_change(("players",), {"Ana": 20}),
     "players must be a non-empty list"),
    ("player not an object", with_change(("players", 1), "Ben"),
     'player 2 must be a JSON object, not "Ben"'),
    ("unknown player key", with_change(("players", 0, "chips"), 5),
     "unknown key 'chips' in player 1"),
    ("player without name", with_change(("players", 1, "name"), DELETE),
     "player 2 has no \"name\""),
    ("null name", with_change(("players", 1, "name"), None),
     "player 2 needs a non-empty \"name\", got null"),
    ("empty name", with_change(("players", 1, "name"), " "),
     "player 2 needs a non-empty \"name\", got \" \""),
    ("duplicate name", with_change(("players", 2, "name"), "Ana"),
     "duplicate player name 'Ana'"),
    ("no stack", with_change(("players", 1, "stack"), DELETE), "player 'Ben' has no \"stack\""),
    ("negative stack", with_change(("players", 1, "stack"), -5),
     "stack of 'Ben' must not be negative, got -5"),
    ("fractional stack", with_change(("players", 1, "stack"), 12.5),
     "stack of 'Ben' must be a whole number of chips, not 12.5"),
    ("string stack", with_change(("players", 1, "stack"), "20"),
     "stack of 'Ben' must be a whole number of chips, not \"20\""),
    ("boolean stack", with_change(("players", 1, "stack"), True),
     "stack of 'Ben' must be a whole number of chips, not true"),
    ("unknown dealer", with_change(("dealer",), "Zed"),
     "dealer must be one of the players (Ana, Ben, Cleo), not \"Zed\""),
    ("null dealer", with_change(("dealer",), None),
     "dealer must be one of the players (Ana, Ben, Cleo), not null"),
    ("dealer not a name", with_change(("dealer",), 1),
     "dealer must be one of the players (Ana, Ben, Cleo), not 1"),
    ("no dealer", with_change(("dealer",), DELETE),
     "no \"dealer\": name the first round's dealer, one of the players (Ana, Ben, Cleo)"),
    ("negative pot", with_change(("pot",), -1), "pot must not be negative, got -1"),
    ("fractional pot", with_change(("pot",), 2.5), "pot must be a whole number of chips"),
    ("negative reserve", with_change(("reserve",), -1), "reserve must not be negative"),
    ("unknown rule", with_change(("rules", "antes"), 1), "rules: unknown house rule 'antes'"),
    ("bad rule value", with_change(("rules", "ante"), 0), "rules: ante: must be at least 1"),
    ("rule of the wrong type", with_change(("rules", "ante"), "1"), "rules: ante:"),
    ("unknown preset", with_change(("rules", "preset"), "klondike"),
     "rules: unknown preset 'klondike'"),
    ("rules not an object", with_change(("rules",), "default"),
     'rules must be a JSON object, not "default"'),
    ("one player", with_change(("players",), [{"name": "Ana", "stack": 5}]),
     "Guts needs 2 to 10 players, got 1"),
    # the player count is the first problem of a one-player table, before its dealer
    ("one player, no dealer", {"players": [{"name": "Ana", "stack": 5}], "dealer": None,
                               "rounds": []},
     "Guts needs 2 to 10 players, got 1"),
    ("rounds not a list", with_change(("rounds",), {"hands": {}}), "rounds must be a list"),
    ("round not an object", with_change(("rounds", 0), "deal"),
     'round 1 must be a JSON object, not "deal"'),
    ("unknown round key", with_change(("rounds", 0, "pot"), 3),
     "unknown key 'pot' in round 1"),
    ("no declarations", with_change(("rounds", 0, "declarations"), DELETE),
     "round 1: no \"declarations\""),
    ("declarations not an object", with_change(("rounds", 0, "declarations"), ["in"]),
     'round 1: declarations must be a JSON object, not ["in"]'),
    ("hands not an object", with_change(("rounds", 0, "hands"), ["As Kd Qh"]),
     'round 1: hands must be a JSON object, not ["As Kd Qh"]'),
    ("unknown player in hands", with_change(("rounds", 0, "hands", "Zed"), "2c 3c 4c"),
     "round 1: unknown player 'Zed' in hands"),
    ("unknown player in declarations", with_change(("rounds", 0, "declarations", "Zed"), "in"),
     "round 1: unknown player 'Zed' in declarations"),
    ("bad declaration", with_change(("rounds", 0, "declarations", "Ben"), "maybe"),
     "round 1: declaration of 'Ben' must be \"in\" or \"out\", not \"maybe\""),
    ("declaration not a string", with_change(("rounds", 0, "declarations", "Ben"), True),
     "round 1: declaration of 'Ben' must be \"in\" or \"out\", not true"),
    ("unknown card", with_change(("rounds", 0, "hands", "Ben"), "Qs Xh 7d"),
     "round 1: hand of 'Ben': unknown card 'Xh'"),
    ("hand not a string", with_change(("rounds", 0, "hands", "Ben"), ["Qs", "Qh", "7d"]),
     "round 1: hand of 'Ben': a hand must be a string of cards"),
    ("duplicate card in a hand", with_change(("rounds", 0, "hands", "Ben"), "Qs Qh qs"),
     "round 1: hand of 'Ben': duplicate card 'Qs' in 'Qs Qh qs'"),
    ("duplicate card across players", with_change(("rounds", 0, "hands", "Cleo"), "Jc Qs 4h"),
     "round 1: card Qs is dealt to both 'Ben' and 'Cleo'"),
    ("too few cards", with_change(("rounds", 0, "hands", "Ben"), "Qs Qh"),
     "round 1: hand of 'Ben': hand 'Qs Qh' has 2 cards, expected 3"),
    ("too many cards", with_change(("rounds", 0, "hands", "Ben"), "Qs Qh 7d 2c"),
     "round 1: hand of 'Ben': hand 'Qs Qh 7d 2c' has 4 cards, expected 3"),
    ("dealt player without declaration", with_change(("rounds", 0, "declarations", "Ana"),
                                                     DELETE),
     "round 1: 'Ana' was dealt in but has no declaration"),
    ("in player without a hand", with_change(("rounds", 0, "hands", "Ben"), DELETE),
     "round 1: 'Ben' is in, but their cards were not recorded: the showdown compares the "
     "hands of everyone in"),
]


@pytest.mark.parametrize(("data", "message"), [(d, m) for _, d, m in INVALID],
                         ids=[name for name, _, _ in INVALID])
def test_invalid_input(data: Any, message: str) -> None:
    with pytest.raises(RefereeError) as info:
        settle(data)
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)


def test_a_player_without_chips_is_not_dealt_in() -> None:
    data = base()
    data["players"][0]["stack"] = 0
    with pytest.raises(RefereeError, match="round 1: 'Ana' has no chips and was not dealt in"):
        settle(data)
    del data["rounds"][0]["declarations"]["Ana"]
    del data["rounds"][0]["hands"]["Ana"]
    out = settle(data)
    assert out["rounds"][0]["antes"] == {"Ben": 1, "Cleo": 1}
    assert out["stacks"] == {"Ana": 0, "Ben": 21, "Cleo": 17}


def test_a_hand_for_a_player_not_in_play_is_refused() -> None:
    data = base()
    data["players"][0]["stack"] = 0
    del data["rounds"][0]["declarations"]["Ana"]
    with pytest.raises(RefereeError, match="round 1: 'Ana' cannot be dealt in: out of chips"):
        settle(data)


def test_the_round_number_is_named() -> None:
    data = base()
    data["rounds"].append({"hands": {"Ben": "Qs Qh"},
                           "declarations": {"Ana": "out", "Ben": "in", "Cleo": "out"}})
    with pytest.raises(RefereeError, match=r"^round 2: hand of 'Ben'"):
        settle(data)
