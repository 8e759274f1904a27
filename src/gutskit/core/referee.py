"""Settle rounds played at a real table: the ``guts referee`` file format.

Input (a JSON object; see docs/referee.md for the full format and examples)::

    {"rules": {"cards_per_hand": 2, "ante": 1},          # house rules; "preset" optional
     "players": [{"name": "Ana", "stack": 20}, ...],     # clockwise seat order
     "dealer": "Ana",                                    # dealer of the first round
     "pot": 5,                                           # optional starting pot (0)
     "reserve": 0,                                       # optional starting reserve (0)
     "rounds": [{"hands": {"Ana": "Ah Kd", ...},         # only the hands a showdown
                 "declarations": {"Ana": "in", ...}}]}   # compares are needed

Variants add optional keys (docs/variants/)::

    players: {"name", "stack", "loss_limit"}               # personal loss limit (chips)
    rounds:  {"hands", "declarations",                      # declarations may be
              "community": "Qs",                            #   "high"/"low"/"both" (hi_lo)
              "ghost": "Kd 7c 2h",                          # ghost_hand
              "passes": {name: "2c"},                       # pass_the_trash: hands are
              "rebuys": {name: chips}}                      #   as dealt; before the deal
             {"misdeal": true}                              # a misdeal: cards thrown in
                                                            #   (its cards are not read)
    rounds:  {"back": [names], "away": [names],             # before the deal: seats back,
              "left": [names],                              #   away (dealt out), gone
              "left_during": [names],                       # gone during the round
              "shown": {name: cards}}                       # an uncontested winner shows
    top level: "end": true                                  # end the session, settle up
               "left": [names]                              # gone after the last round

Companion mode (a session whose cards were dealt at the table, ``guts companion``; a hand
history of one converts with :func:`referee_file`)::

    top level: "companion": true                            # cards known only at showdown
    rounds:  {"declarations",                               # then, at a showdown, either
              "hands": {name: cards},                       #   the cards of those in
              "ghost", "community"}                         #   (+ ghost / community)
             {"declarations", "winners": [names],           # or the winners named
              "low_winners": [names], "losers": [names]}    #   (hi-lo low side; the
                                                            #   worst hand, single loser)

Output::

    {"rounds": [{"dealer", "antes": {name: int}, "pot_before", "in": [names],
                 "winners": [names], "deltas": {name: int}, "pot_after",
                 "eliminated": [names], "outcome", "reserve_after"}],
     "stacks": {name: int}, "pot": int, "reserve": int, "session_over": bool}

and, only where they apply: per round ``community``, ``ghost``, ``ghost_won``,
``high`` / ``low`` (``{"pot", "winners"}``), ``pays_antes`` (the best hand(s) of a void
round under ``all_out = "best_pays_antes"``), ``rebuys``, ``sat_out`` (``{name: why}``), and
``outcome = "misdeal"``; the top-level ``dealer_passed`` (``{"from", "to"}``) when the
first dealer has no chips (such a player is not dealt in and the deal passes to the next
seat in play: :func:`gutskit.core.engine.seat_to_deal`); with ``"end": true`` the top-level
``ledger``
(``{name: {"buy_in", "stack", "net"}}``) and ``payments`` (who pays whom, fewest
transfers: ``[{"from", "to", "chips"}]``). A round's ``deltas`` leave out its rebuys.

``antes`` lists the players who paid an ante for that round's deal (``{}`` when none was
due); ``pot_before`` is the pot after antes; ``deltas`` is each stack's change over the
round, antes included; names are listed in seat order. The referee only applies the
engine (:mod:`gutskit.core.engine`); every rule lives there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from gutskit.core import table
from gutskit.core.cards import CardError, format_cards, parse_card, parse_cards
from gutskit.core.engine import (
    GameState,
    IllegalActionError,
    Phase,
    deal,
    deal_unseen,
    declare_all,
    end_session,
    evolve,
    misdeal,
    name_winners,
    new_session,
    pass_all,
    rebuy,
    show_cards,
    showdown_needs,
)
from gutskit.core.errors import GutsError
from gutskit.core.events import (
    AntesPosted,
    CardsDealt,
    CardsShown,
    Declaration,
    DeclarationsRevealed,
    Declared,
    Event,
    Hand,
    HandShown,
    Misdealt,
    Rebought,
    RoundResolved,
    RoundUndone,
    SatOut,
    SeatAway,
    SeatBack,
    SeatLeft,
    SeatRemoved,
    SessionEnded,
    SessionStarted,
    WinnersNamed,
)
from gutskit.core.history import DeclarationSealed, Record, found
from gutskit.core.limits import MAX_NAME, MAX_TABLE_CHIPS, name_problem
from gutskit.core.payments import settle_up
from gutskit.core.rules import RulesError, rules_from_mapping


class RefereeError(GutsError):
    """Invalid referee input; the message names the problem (and the round, 1-based)."""


_TOP_KEYS = {"rules", "players", "dealer", "pot", "reserve", "rounds", "end", "companion",
             "left"}
_ROUND_KEYS = {"hands", "declarations", "community", "ghost", "passes", "rebuys", "misdeal",
               "winners", "low_winners", "losers", "back", "away", "left", "left_during",
               "shown"}
_SEAT_KEYS = ("back", "away", "left")
"""Round keys applied before the round's deal, in this order (gutskit's table rules:
:func:`gutskit.core.table.come_back`, :func:`~gutskit.core.table.sit_out`,
:func:`~gutskit.core.table.leave`)."""
_DECLARATIONS = {d.value: d for d in Declaration}


def _chips(value: Any, what: str) -> int:
    """``value`` as a chip amount (0 to :data:`~gutskit.core.limits.MAX_TABLE_CHIPS`: a
    stack that grew by winning pots, or a snowballed pot, may pass the largest buy-in).

    Raises:
        RefereeError: not a whole number, negative or beyond the limit (named).
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise RefereeError(f"{what} must be a whole number of chips, not {found(value)}")
    if value < 0:
        raise RefereeError(f"{what} must not be negative, got {_digits(value)}")
    if value > MAX_TABLE_CHIPS:
        raise RefereeError(f"{what} must be at most {MAX_TABLE_CHIPS} chips (the most a table "
                           f"may hold), got {_digits(value)}")
    return value


def _digits(value: int) -> str:
    """A whole number for a message, cut to 40 characters and its length (``10**100``:
    ``1000000000000000000000000000000000000000… (101 digits)``)."""
    text = str(abs(value))
    sign = "-" if value < 0 else ""
    return sign + (text if len(text) <= 40 else f"{text[:40]}… ({len(text)} digits)")


def _mapping(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise RefereeError(f"{what} must be a JSON object, not {found(value)}")
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
            if isinstance(rnd, Mapping) and rnd.get("misdeal") is True:
                continue  # a misdealt deal may hold the wrong number of cards
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
    limits: list[int | None] = []
    for i, player in enumerate(players, 1):
        player = _mapping(player, f"player {i}")
        _unknown_keys(player, {"name", "stack", "loss_limit"}, f"player {i}")
        if "name" not in player:
            raise RefereeError(f"player {i} has no \"name\"")
        name = player["name"]
        if not isinstance(name, str) or not name.strip():
            raise RefereeError(f"player {i} needs a non-empty \"name\", got {found(name)}")
        if _unencodable(name):
            raise RefereeError(f"player {i}: name {name!r} is not valid Unicode text (it "
                               f"holds a lone surrogate)")
        problem = name_problem(name)
        if problem is not None:  # e.g. an ANSI escape, which would reach the terminal
            raise RefereeError(f"player {i}: name {found(name)} {problem} (a player's name "
                               f"is 1 to {MAX_NAME} printable characters)")
        if name in names:
            raise RefereeError(f"duplicate player name {name!r}")
        if "stack" not in player:
            raise RefereeError(f"player {name!r} has no \"stack\"")
        names.append(name)
        stacks.append(_chips(player["stack"], f"stack of {name!r}"))
        limit = player.get("loss_limit")
        limits.append(None if limit is None else _chips(limit, f"loss_limit of {name!r}"))
    pot = _chips(data.get("pot", 0), "pot")
    reserve = _chips(data.get("reserve", 0), "reserve")
    total = sum(stacks) + pot + reserve
    if total > MAX_TABLE_CHIPS:
        raise RefereeError(f"the stacks, pot and reserve hold {_digits(total)} chips in all; "
                           f"a table holds at most {MAX_TABLE_CHIPS}")
    if reserve and (rules.pot_cap is None or rules.pot_cap_mode != "reserve"):
        raise RefereeError(f"reserve: {reserve} chips given, but these house rules keep no "
                           f"reserve (only a pot_cap with pot_cap_mode = \"reserve\" does)")
    companion = data.get("companion", False)
    if not isinstance(companion, bool):
        raise RefereeError(f"companion must be true or false, not {found(companion)}")
    dealer = data.get("dealer")
    seat = names.index(dealer) if isinstance(dealer, str) and dealer in names else None
    try:  # the table's own problems (e.g. how many players) first, then the dealer
        state = new_session(names, stacks, dealer=seat or 0, rules=rules, pot=pot,
                            reserve=reserve,
                            loss_limits=limits if any(x is not None for x in limits) else None,
                            companion=companion)
    except IllegalActionError as error:
        raise RefereeError(str(error)) from None
    if seat is None:
        if "dealer" not in data:
            raise RefereeError(f"no \"dealer\": name the first round's dealer, one of the "
                               f"players ({', '.join(names)})")
        raise RefereeError(f"dealer must be one of the players ({', '.join(names)}), not "
                           f"{found(dealer)}")
    return state


def _round_hands(state: GameState, rnd: Mapping[str, Any], where: str
                 ) -> tuple[Hand | None, ...]:
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
        if hands[seat] is None:  # dealt, not recorded: the engine refuses a showdown
            hands[seat] = ()     # that needs it (an uncontested winner's hand is not)
    return tuple(hands)


def _extra(state: GameState, rnd: Mapping[str, Any], key: str, wanted: bool, size: int,
           where: str) -> Hand | None:
    """The ghost hand / community card of a round: parsed when given, ``()`` (dealt, not
    recorded) when the rules deal it but the file leaves it out."""
    if key not in rnd:
        return () if wanted else None
    text = rnd[key]
    if not isinstance(text, str):
        raise RefereeError(f"{where}: {key} must be cards like \"Qs\", not {found(text)}")
    try:
        return parse_cards(text, count=size)
    except CardError as error:
        raise RefereeError(f"{where}: {key}: {error}") from None


def _round_passes(state: GameState, rnd: Mapping[str, Any], where: str) -> dict[int, int]:
    raw = _mapping(rnd.get("passes"), f"{where}: passes")
    passes: dict[int, int] = {}
    for name, text in raw.items():
        if name not in state.names:
            raise RefereeError(f"{where}: unknown player {name!r} in passes")
        if not isinstance(text, str):
            raise RefereeError(f"{where}: card passed by {name!r} must be a card like "
                               f"\"2c\", not {found(text)}")
        try:
            passes[state.seat_of(name)] = parse_card(text.strip())
        except CardError as error:
            raise RefereeError(f"{where}: card passed by {name!r}: {error}") from None
    return passes


def _rebuys(state: GameState, rnd: Mapping[str, Any], where: str
            ) -> tuple[GameState, dict[str, int]]:
    raw = _mapping(rnd.get("rebuys"), f"{where}: rebuys")
    done: dict[str, int] = {}
    for name, chips in raw.items():
        if name not in state.names:
            raise RefereeError(f"{where}: unknown player {name!r} in rebuys")
        try:
            state, _ = rebuy(state, state.seat_of(name), chips)
        except IllegalActionError as error:
            raise RefereeError(f"{where}: rebuy: {error}") from None
        done[name] = chips
    return state, done


def _round_declarations(state: GameState, rnd: Mapping[str, Any],
                        where: str) -> dict[int, Declaration]:
    raw = _mapping(rnd.get("declarations"), f"{where}: declarations")
    decls: dict[int, Declaration] = {}
    for name, value in raw.items():
        if name not in state.names:
            raise RefereeError(f"{where}: unknown player {name!r} in declarations")
        choices = ("high", "low", "both", "out") if state.rules.hi_lo else ("in", "out")
        if value not in choices:
            listed = " or ".join(f'"{c}"' for c in choices)
            if state.rules.hi_lo:
                listed = '"high", "low", "both" or "out" (hi_lo)'
            raise RefereeError(f"{where}: declaration of {name!r} must be {listed}, "
                               f"not {found(value)}")
        decls[state.seat_of(name)] = _DECLARATIONS[value]
    for seat in state.seats_in_play:
        if seat not in decls:
            raise RefereeError(f"{where}: {state.names[seat]!r} was dealt in but has no "
                               "declaration")
    for seat in decls:
        if not state.in_play(seat):
            why = "was eliminated" if state.eliminated[seat] else "has no chips"
            raise RefereeError(f"{where}: {state.names[seat]!r} {why} and was not dealt in")
    return decls


def _unencodable(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (valid in JSON escapes, not in UTF-8)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


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
    end = data.get("end", False)
    if not isinstance(end, bool):
        raise RefereeError(f"end must be true or false, not {found(end)}")
    state = _start(data)
    first_dealer = state.names[state.dealer]
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
        rebought: dict[str, int] = {}
        if "rebuys" in rnd:
            state, rebought = _rebuys(state, rnd, where)
        state = _seat_changes(state, rnd, where)
        misdealt = rnd.get("misdeal", False)
        if not isinstance(misdealt, bool):
            raise RefereeError(f"{where}: misdeal must be true or false, not {found(misdealt)}")
        if misdealt:
            state, out = _misdeal_round(state, where)
            state = _left_during(state, rnd, where)
        else:
            state, out = _played_round(state, rnd, where)
        if rebought:
            out["rebuys"] = rebought
        for key in (*_SEAT_KEYS, "left_during"):
            if rnd.get(key):
                out[key] = list(rnd[key])
        if "shown" in rnd:
            state, out["shown"] = _shown(state, rnd, where)
        out_rounds.append(out)
    if "left" in data:
        state = _seat_changes(state, {"left": data["left"]}, "after the last round")
    result: dict[str, Any] = {
        "rounds": out_rounds,
        "stacks": dict(zip(state.names, state.stacks, strict=True)),
        "pot": state.pot,
        "reserve": state.reserve,
        "session_over": state.phase is Phase.OVER,
    }
    asked = data["dealer"]
    if first_dealer != asked:
        result["dealer_passed"] = {"from": asked, "to": first_dealer}
    if end:
        state, _ = end_session(state)
        nets = {name: stack - buy_in for name, stack, buy_in
                in zip(state.names, state.stacks, state.buy_ins, strict=True)}
        result["stacks"] = dict(zip(state.names, state.stacks, strict=True))
        result["pot"] = state.pot
        result["reserve"] = state.reserve
        result["session_over"] = True
        result["ledger"] = {name: {"buy_in": buy_in, "stack": stack, "net": nets[name]}
                            for name, stack, buy_in
                            in zip(state.names, state.stacks, state.buy_ins, strict=True)}
        result["payments"] = [{"from": p.payer, "to": p.payee, "chips": p.chips}
                              for p in settle_up(nets)] if sum(nets.values()) == 0 else []
    return result


def _seat_changes(state: GameState, rnd: Mapping[str, Any], where: str) -> GameState:
    """The seats that come back, go away and leave before a round's deal (``"back"``,
    ``"away"``, ``"left"``), each checked by the table driver
    (:func:`gutskit.core.table.can_come_back`, ``can_sit_out``, ``can_leave``)."""
    for key in _SEAT_KEYS:
        if key not in rnd:
            continue
        for seat in _seat_list(state, rnd, key, where):
            try:
                if key == "back":
                    state, _ = table.come_back(state, seat)
                elif key == "away":
                    state, _ = table.sit_out(state, seat)
                else:  # the session ends by the file's "end", as it was recorded
                    problem = table.can_leave(state, seat)
                    if problem is not None:
                        raise IllegalActionError(problem)
                    state = evolve(state, SeatLeft(seat))
            except IllegalActionError as error:
                raise RefereeError(f"{where}: {key} {state.names[seat]!r}: {error}") from None
    return state


def _left_during(state: GameState, rnd: Mapping[str, Any], where: str) -> GameState:
    """The seats that left while the round was being played (``"left_during"``): gone
    from the deal on, their declaration (out) given with the others."""
    if "left_during" not in rnd:
        return state
    for seat in _seat_list(state, rnd, "left_during", where):
        problem = table.can_leave(state, seat)
        if problem is not None:
            raise RefereeError(f"{where}: left_during {state.names[seat]!r}: {problem}")
        state = evolve(state, SeatLeft(seat))
    return state


def _shown(state: GameState, rnd: Mapping[str, Any], where: str
           ) -> tuple[GameState, dict[str, str]]:
    """``"shown"``: after an uncontested win the winner chose to show its cards
    (:class:`HandShown`; :func:`gutskit.core.engine.can_show_hand` holds the rule)."""
    raw = _mapping(rnd["shown"], f"{where}: shown")
    out: dict[str, str] = {}
    for name, text in raw.items():
        if name not in state.names:
            raise RefereeError(f"{where}: unknown player {name!r} in shown")
        seat = state.names.index(name)
        try:
            cards = parse_cards(text, count=state.rules.cards_per_hand)
            state = evolve(state, HandShown(seat, cards))
        except (CardError, TypeError, AttributeError, IllegalActionError) as error:
            raise RefereeError(f"{where}: shown by {name!r}: {error}") from None
        out[name] = format_cards(cards)
    return state, out


def _misdeal_round(state: GameState, where: str) -> tuple[GameState, dict[str, Any]]:
    """A round ``{"misdeal": true}``: antes due are posted, the cards thrown in; the same
    dealer deals the next round without a new ante. Cards and declarations recorded for
    the misdealt deal are thrown in with it (not read)."""
    rules = state.rules
    hands = tuple(() if state.in_play(s) else None for s in range(state.n_seats))
    before = state
    try:
        state, dealt_events = deal(state, hands, ghost=() if rules.ghost_hand else None,
                                   community=() if rules.community_card else None)
        pot_before = state.pot
        state, _ = misdeal(state)
    except IllegalActionError as error:
        raise RefereeError(f"{where}: {error}") from None
    return state, {
        **_opening(before, dealt_events, pot_before), "in": [], "winners": [],
        "deltas": _deltas(before, state), "pot_after": state.pot, "eliminated": [],
        "outcome": "misdeal", "reserve_after": state.reserve,
    }


def _opening(before: GameState, dealt_events: list[Event], pot_before: int
             ) -> dict[str, Any]:
    """A round's dealer, antes and pot after the antes."""
    antes = next((e for e in dealt_events if isinstance(e, AntesPosted)), None)
    return {
        "dealer": before.names[before.dealer],
        "antes": {} if antes is None else {
            before.names[s]: a for s, a in enumerate(antes.amounts) if a},
        "pot_before": pot_before,
    }


def _deltas(before: GameState, state: GameState) -> dict[str, int]:
    return {name: state.stacks[s] - before.stacks[s] for s, name in enumerate(state.names)}


def _seat_list(state: GameState, rnd: Mapping[str, Any], key: str, where: str) -> list[int]:
    names = rnd.get(key)
    if not isinstance(names, list):
        raise RefereeError(f"{where}: {key} must be a list of player names, not {found(names)}")
    seats = []
    for name in names:
        if name not in state.names:
            raise RefereeError(f"{where}: unknown player {name!r} in {key}")
        seats.append(state.seat_of(name))
    return seats


def _companion_round(state: GameState, rnd: Mapping[str, Any], where: str,
                     decls: dict[int, Declaration]
                     ) -> tuple[GameState, list[Event], int, list[Event]]:
    """A companion round: dealt at the table (unseen), declared, and at a showdown settled
    from the cards of the players in or from the winners named."""
    rules = state.rules
    try:
        state, dealt_events = deal_unseen(state)
        pot_before = state.pot
        state = _left_during(state, rnd, where)
        state, events = declare_all(state, decls)
        needs = showdown_needs(state)
        if needs is not None:
            if "winners" in rnd:
                losers = _seat_list(state, rnd, "losers", where) if "losers" in rnd else None
                low = _seat_list(state, rnd, "low_winners", where) if (
                    "low_winners" in rnd) else []
                state, more = name_winners(state, _seat_list(state, rnd, "winners", where),
                                           low_winners=low, losers=losers)
            else:
                raw = _mapping(rnd.get("hands", {}), f"{where}: hands")
                hands: dict[int, Hand] = {}
                for seat in needs.seats:
                    name = state.names[seat]
                    if name not in raw:
                        raise RefereeError(f"{where}: the cards of {name!r} are needed at the "
                                           "showdown (or name the \"winners\")")
                    try:
                        hands[seat] = parse_cards(raw[name], count=rules.cards_per_hand)
                    except (CardError, TypeError, AttributeError) as error:
                        raise RefereeError(f"{where}: hand of {name!r}: {error}") from None
                ghost = _extra(state, rnd, "ghost", False, rules.cards_per_hand, where)
                community = _extra(state, rnd, "community", False, 1, where)
                state, more = show_cards(state, hands, ghost=ghost, community=community)
            events = [*events, *more]
        elif "winners" in rnd:
            raise RefereeError(f"{where}: winners are named only at a showdown")
    except IllegalActionError as error:
        raise RefereeError(f"{where}: {error}") from None
    return state, dealt_events, pot_before, events


def _played_round(state: GameState, rnd: Mapping[str, Any], where: str
                  ) -> tuple[GameState, dict[str, Any]]:
    """Deal, (pass,) declare and resolve one recorded round."""
    if "declarations" not in rnd:
        raise RefereeError(f"{where}: no \"declarations\"")
    rules = state.rules
    decls = _round_declarations(state, rnd, where)
    before = state
    if state.companion:
        state, dealt_events, pot_before, events = _companion_round(state, rnd, where, decls)
        return state, _round_out(before, state, decls, dealt_events, pot_before, events)
    for key in ("winners", "low_winners", "losers"):
        if key in rnd:
            raise RefereeError(f"{where}: {key} are named only in a companion file "
                               "(\"companion\": true)")
    hands = _round_hands(state, rnd, where)
    ghost = _extra(state, rnd, "ghost", rules.ghost_hand, rules.cards_per_hand, where)
    community = _extra(state, rnd, "community", rules.community_card, 1, where)
    if "passes" in rnd and not rules.pass_the_trash:
        raise RefereeError(f"{where}: passes given, but the rules have no pass_the_trash")
    if rules.pass_the_trash and "passes" not in rnd:
        raise RefereeError(f"{where}: pass_the_trash: \"passes\" must give the card each "
                           "player passed")
    before = state
    try:
        state, dealt_events = deal(state, hands, ghost=ghost, community=community)
        pot_before = state.pot
        state = _left_during(state, rnd, where)
        if state.phase is Phase.PASS:
            state, _ = pass_all(state, _round_passes(state, rnd, where))
        state, events = declare_all(state, decls)
    except IllegalActionError as error:
        raise RefereeError(f"{where}: {error}") from None
    return state, _round_out(before, state, decls, dealt_events, pot_before, events)


def _round_out(before: GameState, state: GameState, decls: dict[int, Declaration],
               dealt_events: list[Event], pot_before: int, events: list[Event]
               ) -> dict[str, Any]:
    """A played round's output object (the module docstring)."""
    rules = state.rules
    result = next(e for e in events if isinstance(e, RoundResolved))
    out: dict[str, Any] = {
        **_opening(before, dealt_events, pot_before),
        "in": _names(state, [s for s, d in decls.items() if d is not Declaration.OUT]),
        "winners": _names(state, result.winners),
        "deltas": _deltas(before, state),
        "pot_after": state.pot,
        "eliminated": _names(state, result.eliminated),
        "outcome": result.outcome.value,
        "reserve_after": state.reserve,
    }
    if result.community:
        out["community"] = format_cards(result.community)
    if rules.ghost_hand and result.outcome.value == "showdown":
        out["ghost"] = format_cards(result.ghost or ())
        out["ghost_won"] = result.ghost_won
    if rules.hi_lo and result.outcome.value == "showdown":
        out["high"] = {"pot": result.high_pot, "winners": _names(state, result.high_winners)}
        out["low"] = {"pot": result.low_pot, "winners": _names(state, result.low_winners)}
    if result.ante_payers:
        out["pays_antes"] = _names(state, result.ante_payers)
    sat = {state.names[e.seat]: e.reason for e in events if isinstance(e, SatOut)}
    if sat:
        out["sat_out"] = sat
    return out


def referee_file(events: Iterable[Record]) -> dict[str, Any]:
    """A referee file (the module docstring's input) that :func:`settle` replays to the same
    stacks as the hand history ``events``: the table from its :class:`SessionStarted`,
    one round per deal with its declarations and, at a showdown, the cards shown
    (:class:`CardsShown`) or the winners named (:class:`WinnersNamed`); a misdeal as
    ``{"misdeal": true}``; rebuys before the deal that follows them; a round the host
    undid (:class:`RoundUndone`) left out (the undo restored the table as it was before
    it); a round left unfinished as a misdeal (its antes stay in the pot); seats that went
    away, came back or left before a deal as that round's ``"away"`` / ``"back"`` /
    ``"left"``, during a round as its ``"left_during"``, after the last round as the
    top-level ``"left"``; a hand shown after an uncontested win (:class:`HandShown`) as
    that round's ``"shown"``; ``"end": true``
    when the session ended. Out players' cards are not in it (a
    companion table never sees them; the referee does not need them).

    A viewer's copy of a companion session (the server's ``history.jsonl`` download, read
    with :func:`gutskit.io.files.load_records`) gives the same file: its
    :class:`~gutskit.core.history.DeclarationSealed` lines say nothing the round's
    :class:`DeclarationsRevealed` does not.

    Raises:
        RefereeError: the history is empty, does not start with :class:`SessionStarted`,
            or holds what a referee file cannot say (passed cards under Pass the Trash in a
            dealt session, a rebuy after the last round).
    """
    rounds: list[dict[str, Any]] = []
    data: dict[str, Any] | None = None
    names: tuple[str, ...] = ()
    current: dict[str, Any] | None = None
    rebuys: dict[str, int] = {}
    seats: dict[str, list[str]] = {}  # back / away / left since the last deal
    for event in events:
        if isinstance(event, DeclarationSealed):
            continue  # a viewer's copy: the reveal that follows gives the declaration
        if isinstance(event, SessionStarted):
            if data is not None:
                raise RefereeError("the history holds more than one session")
            names = event.names
            data = {"rules": event.rules.to_dict(),
                    "players": [{"name": n, "stack": s} for n, s in zip(
                        event.names, event.stacks, strict=True)],
                    "dealer": event.names[event.dealer], "pot": event.pot,
                    "reserve": event.reserve, "rounds": rounds}
            if event.loss_limits is not None:
                for player, limit in zip(data["players"], event.loss_limits, strict=True):
                    if limit is not None:
                        player["loss_limit"] = limit
            if event.companion:
                data["companion"] = True
            continue
        if data is None:
            raise RefereeError("a hand history must start with SessionStarted")
        if isinstance(event, Rebought):
            rebuys[names[event.seat]] = rebuys.get(names[event.seat], 0) + event.chips
        elif isinstance(event, AntesPosted) or (isinstance(event, CardsDealt)
                                                and current is None):
            current = {"declarations": {}}
            if rebuys:
                current["rebuys"], rebuys = rebuys, {}
            for key in _SEAT_KEYS:
                if seats.get(key):
                    current[key] = seats.pop(key)
            if isinstance(event, CardsDealt):
                _dealt_hands(current, event, names, data)
        elif isinstance(event, CardsDealt):
            assert current is not None
            _dealt_hands(current, event, names, data)
        elif isinstance(event, Declared | DeclarationsRevealed):
            assert current is not None
            decls = ({event.seat: event.declaration} if isinstance(event, Declared) else
                     {s: d for s, d in enumerate(event.declarations) if d is not None})
            for seat, decl in decls.items():
                current["declarations"][names[seat]] = decl.value
        elif isinstance(event, CardsShown):
            assert current is not None
            current["hands"] = {names[s]: format_cards(h) for s, h in enumerate(event.hands)
                                if h is not None}
            for key in ("ghost", "community"):
                extra = getattr(event, key)
                if extra:
                    current[key] = format_cards(extra)
        elif isinstance(event, WinnersNamed):
            assert current is not None
            current["winners"] = [names[s] for s in event.winners]
            if event.low_winners:
                current["low_winners"] = [names[s] for s in event.low_winners]
            if event.losers is not None:
                current["losers"] = [names[s] for s in event.losers]
        elif isinstance(event, Misdealt | RoundResolved):
            assert current is not None
            if isinstance(event, RoundResolved) and not data.get("companion"):
                _shown_hands(current, event, names)
            if isinstance(event, Misdealt):
                rounds.append({"misdeal": True, **({"rebuys": current["rebuys"]}
                                                   if "rebuys" in current else {})})
                _seats_to(rounds[-1], current)
            else:
                rounds.append(current)
            current = None
        elif isinstance(event, RoundUndone):
            if current is None:  # a resolved round: take it back
                current = rounds.pop()
            if "rebuys" in current:  # made before the round's deal: they stand
                rebuys = {**current["rebuys"], **rebuys}
            for key in _SEAT_KEYS:  # so do the seats back, away and gone before it
                for name in current.get(key, []):
                    if key == "left":
                        seats.setdefault("left", []).insert(0, name)
                    else:
                        _away_or_back(seats, name, key == "away")
            current = None
        elif isinstance(event, SessionEnded):
            data["end"] = True
        elif isinstance(event, SeatAway | SeatBack):
            _away_or_back(seats, names[event.seat], isinstance(event, SeatAway))
        elif isinstance(event, SeatLeft | SeatRemoved):
            if current is not None:  # during a round: gone from its deal on
                current.setdefault("left_during", []).append(names[event.seat])
            else:
                seats.setdefault("left", []).append(names[event.seat])
        elif isinstance(event, HandShown):
            if not rounds:
                raise RefereeError("a hand is shown before any round was played")
            rounds[-1].setdefault("shown", {})[names[event.seat]] = format_cards(event.hand)
        elif not isinstance(event, SatOut):
            raise RefereeError(f"a referee file cannot say {type(event).__name__} "
                               "(passed cards)")
    if data is None:
        raise RefereeError("an empty hand history has no table")
    if current is not None:  # a round left unfinished: its antes stay in the pot, as after
        rounds.append({"misdeal": True, **({"rebuys": current["rebuys"]}  # a misdeal
                                           if "rebuys" in current else {})})
        _seats_to(rounds[-1], current)
    elif rebuys:  # rebuys after the last round: a round file cannot say them
        raise RefereeError("the history ends with a rebuy after its last round, which a "
                           "referee file cannot say")
    if seats.get("left"):  # seats gone after the last round (away and back move no chip)
        data["left"] = seats["left"]
    return data


def _away_or_back(seats: dict[str, list[str]], name: str, away: bool) -> None:
    """A seat goes away or comes back between two deals: what the next deal sees (a seat
    that went away and came back before it, or the other way round, changes nothing)."""
    undo, do = ("back", "away") if away else ("away", "back")
    if name in seats.get(undo, []):
        seats[undo].remove(name)
    else:
        seats.setdefault(do, []).append(name)


def _seats_to(rnd: dict[str, Any], current: dict[str, Any]) -> None:
    """Carry the seat changes made before a round's deal (kept in ``current``) into the
    round written."""
    for key in (*_SEAT_KEYS, "left_during"):
        if current.get(key):
            rnd[key] = current[key]


def _dealt_hands(current: dict[str, Any], event: CardsDealt, names: tuple[str, ...],
                 data: dict[str, Any]) -> None:
    """The cards of a dealt (not companion) round: every hand, ghost and community card."""
    if data.get("companion"):
        return
    current["hands"] = {names[s]: format_cards(h) for s, h in enumerate(event.hands) if h}
    for key in ("ghost", "community"):
        extra = getattr(event, key)
        if extra:
            current[key] = format_cards(extra)


def _shown_hands(current: dict[str, Any], event: RoundResolved,
                 names: tuple[str, ...]) -> None:
    """A seat's or a spectator's copy of a dealt round holds only the cards its viewer
    saw: the hands the showdown shows (and the ghost hand, the community card turned)
    complete the round's cards where the deal did not show them."""
    hands = current.setdefault("hands", {})
    for seat, hand in enumerate(event.shown):
        if hand and names[seat] not in hands:
            hands[names[seat]] = format_cards(hand)
    if not hands:
        del current["hands"]
    for key in ("ghost", "community"):
        extra = getattr(event, key)
        if extra and key not in current:
            current[key] = format_cards(extra)
