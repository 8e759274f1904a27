"""Settle rounds played at a real table: the ``guts referee`` file format.

Input (a JSON object; see docs/referee.md for the full format and examples)::

    {"rules": {"cards_per_hand": 2, "ante": 1},          # house rules; "preset" optional
     "players": [{"name": "Ana", "stack": 20}, ...],     # clockwise seat order
     "dealer": "Ana",                                    # dealer of the first round
     "pot": 5,                                           # optional starting pot (0)
     "reserve": 0,                                       # optional starting reserve (0)
     "rounds": [{"hands": {"Ana": "Ah Kd", ...},         # out players' hands may be left out
                 "declarations": {"Ana": "in", ...}}]}

Output::

    {"rounds": [{"dealer", "antes": {name: int}, "pot_before", "in": [names],
                 "winners": [names], "deltas": {name: int}, "pot_after",
                 "eliminated": [names], "outcome", "reserve_after"}],
     "stacks": {name: int}, "pot": int, "reserve": int, "session_over": bool}

``antes`` lists the players who paid an ante for that round's deal (``{}`` when none was
due); ``pot_before`` is the pot after antes; ``deltas`` is each stack's change over the
round, antes included; names are listed in seat order. The referee only applies the
engine (:mod:`gutskit.engine`); every rule lives there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gutskit.cards import CardError, parse_cards
from gutskit.engine import (
    GameState,
    IllegalActionError,
    Phase,
    deal,
    declare_all,
    new_session,
)
from gutskit.events import AntesPosted, Declaration, Hand, RoundResolved
from gutskit.rules import RulesError, rules_from_mapping


class RefereeError(ValueError):
    """Invalid referee input; the message names the problem (and the round, 1-based)."""


_TOP_KEYS = {"rules", "players", "dealer", "pot", "reserve", "rounds"}
_ROUND_KEYS = {"hands", "declarations"}


def _chips(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RefereeError(f"{what} must be a whole number of chips, not {value!r}")
    if value < 0:
        raise RefereeError(f"{what} must not be negative, got {value}")
    return value


def _mapping(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise RefereeError(f"{what} must be an object, not {value!r}")
    return value


def _unknown_keys(data: Mapping[str, Any], allowed: set[str], where: str) -> None:
    extra = sorted(set(data) - allowed)
    if extra:
        raise RefereeError(f"unknown key {extra[0]!r} in {where} "
                           f"(allowed: {', '.join(sorted(allowed))})")


def _rules(data: Mapping[str, Any]) -> Any:
    raw = dict(_mapping(data.get("rules", {}), "rules"))
    if "cards_per_hand" not in raw and "preset" not in raw:
        # Infer two- or three-card Guts from the first recorded hand.
        for rnd in data.get("rounds") or []:
            hands = rnd.get("hands") if isinstance(rnd, Mapping) else None
            if isinstance(hands, Mapping):
                sizes = {len(h.replace(",", " ").split()) for h in hands.values()
                         if isinstance(h, str)}
                if sizes in ({2}, {3}):
                    raw["cards_per_hand"] = sizes.pop()
                    break
    try:
        return rules_from_mapping(raw)
    except RulesError as error:
        raise RefereeError(f"rules: {error}") from None


def _start(data: Mapping[str, Any]) -> GameState:
    rules = _rules(data)
    players = data.get("players")
    if not isinstance(players, list) or not players:
        raise RefereeError("players must be a non-empty list of {\"name\", \"stack\"}")
    names: list[str] = []
    stacks: list[int] = []
    for i, player in enumerate(players, 1):
        player = _mapping(player, f"player {i}")
        _unknown_keys(player, {"name", "stack"}, f"player {i}")
        name = player.get("name")
        if not isinstance(name, str) or not name.strip():
            raise RefereeError(f"player {i} needs a non-empty \"name\", got {name!r}")
        if name in names:
            raise RefereeError(f"duplicate player name {name!r}")
        if "stack" not in player:
            raise RefereeError(f"player {name!r} has no \"stack\"")
        names.append(name)
        stacks.append(_chips(player["stack"], f"stack of {name!r}"))
    dealer = data.get("dealer")
    if dealer not in names:
        raise RefereeError(f"dealer {dealer!r} is not one of the players "
                           f"({', '.join(names)})")
    pot = _chips(data.get("pot", 0), "pot")
    reserve = _chips(data.get("reserve", 0), "reserve")
    try:
        return new_session(names, stacks, dealer=names.index(dealer), rules=rules, pot=pot,
                           reserve=reserve)
    except IllegalActionError as error:
        raise RefereeError(str(error)) from None


def _round_hands(state: GameState, rnd: Mapping[str, Any], where: str,
                 decls: dict[int, Declaration]) -> tuple[Hand | None, ...]:
    raw = _mapping(rnd.get("hands", {}), f"{where}: hands")
    hands: list[Hand | None] = [None] * state.n_seats
    for name, text in raw.items():
        if name not in state.names:
            raise RefereeError(f"{where}: unknown player {name!r} in hands")
        seat = state.seat_of(name)
        try:
            hands[seat] = parse_cards(text, count=state.rules.cards_per_hand)
        except CardError as error:
            raise RefereeError(f"{where}: hand of {name!r}: {error}") from None
    for seat in state.seats_in_play:
        if hands[seat] is None:
            if seat in decls and decls[seat] is Declaration.IN:
                raise RefereeError(f"{where}: {state.names[seat]!r} is in but has no hand")
            hands[seat] = ()
    return tuple(hands)


def _round_declarations(state: GameState, rnd: Mapping[str, Any],
                        where: str) -> dict[int, Declaration]:
    raw = _mapping(rnd.get("declarations"), f"{where}: declarations")
    decls: dict[int, Declaration] = {}
    for name, value in raw.items():
        if name not in state.names:
            raise RefereeError(f"{where}: unknown player {name!r} in declarations")
        if value not in ("in", "out"):
            raise RefereeError(f"{where}: declaration of {name!r} must be \"in\" or \"out\", "
                               f"not {value!r}")
        decls[state.seat_of(name)] = Declaration(value)
    for seat in state.seats_in_play:
        if seat not in decls:
            raise RefereeError(f"{where}: {state.names[seat]!r} was dealt in but has no "
                               "declaration")
    for seat in decls:
        if not state.in_play(seat):
            why = "was eliminated" if state.eliminated[seat] else "has no chips"
            raise RefereeError(f"{where}: {state.names[seat]!r} {why} and was not dealt in")
    return decls


def _names(state: GameState, seats: Any) -> list[str]:
    return [state.names[s] for s in sorted(seats)]


def settle(data: Any) -> dict[str, Any]:
    """Settle a referee file (already parsed from JSON).

    Returns:
        The output object described in the module docstring.

    Raises:
        RefereeError: invalid input; nothing is returned then.
    """
    data = _mapping(data, "the referee file")
    _unknown_keys(data, _TOP_KEYS, "the referee file")
    state = _start(data)
    rounds = data.get("rounds", [])
    if not isinstance(rounds, list):
        raise RefereeError("rounds must be a list")
    out_rounds: list[dict[str, Any]] = []
    for number, rnd in enumerate(rounds, 1):
        where = f"round {number}"
        rnd = _mapping(rnd, where)
        _unknown_keys(rnd, _ROUND_KEYS, where)
        if state.phase is Phase.OVER:
            raise RefereeError(f"{where}: the session is already over ({state.end_reason})")
        if "declarations" not in rnd:
            raise RefereeError(f"{where}: no \"declarations\"")
        decls = _round_declarations(state, rnd, where)
        hands = _round_hands(state, rnd, where, decls)
        before = state
        try:
            state, dealt_events = deal(state, hands)
            pot_before = state.pot
            state, events = declare_all(state, decls)
        except IllegalActionError as error:
            raise RefereeError(f"{where}: {error}") from None
        antes = next((e for e in dealt_events if isinstance(e, AntesPosted)), None)
        result = next(e for e in events if isinstance(e, RoundResolved))
        out_rounds.append({
            "dealer": before.names[before.dealer],
            "antes": {} if antes is None else {
                before.names[s]: a for s, a in enumerate(antes.amounts) if a},
            "pot_before": pot_before,
            "in": _names(state, [s for s, d in decls.items() if d is Declaration.IN]),
            "winners": _names(state, result.winners),
            "deltas": {name: state.stacks[s] - before.stacks[s]
                       for s, name in enumerate(state.names)},
            "pot_after": state.pot,
            "eliminated": _names(state, result.eliminated),
            "outcome": result.outcome.value,
            "reserve_after": state.reserve,
        })
    return {
        "rounds": out_rounds,
        "stacks": dict(zip(state.names, state.stacks, strict=True)),
        "pot": state.pot,
        "reserve": state.reserve,
        "session_over": state.phase is Phase.OVER,
    }
