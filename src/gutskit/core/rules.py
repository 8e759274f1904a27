"""House rules: one frozen, validated object with every rule of RULES.md and its default.

Load rules from keyword arguments, a mapping (JSON / the referee file), a TOML file or a
named preset. Unknown keys and impossible settings raise :class:`RulesError` naming the key
and the bad value; nothing is half-applied.

>>> Rules().cards_per_hand, Rules().all_out
(3, 'reante')
>>> rules_from_mapping({"preset": "indonesian"}).declaration
'sequential'
>>> rules_from_mapping({"ante": 0})
Traceback (most recent call last):
...
gutskit.core.rules.RulesError: ante: must be at least 1 (got 0)
>>> rules_from_mapping({"antes": 1})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
gutskit.core.rules.RulesError: unknown house rule 'antes' (did you mean 'ante'?); the house ...
"""

from __future__ import annotations

import difflib
import json
import sys
import tomllib
from collections.abc import Mapping
from functools import cached_property
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from gutskit.core.errors import GutsError
from gutskit.core.evaluation import Ranking
from gutskit.core.limits import MAX_CHIPS

MAX_ANTE = MAX_CHIPS
"""Largest ante accepted (chips): :data:`gutskit.core.limits.MAX_CHIPS`, like every whole
number of the house rules (:data:`BOUNDED`), so every front end (``guts play --rule``, a
rules file, the server's ``POST /api/rooms``) refuses the same rules with the same message
(RULES.md sets no upper limit; the bound keeps every pot exact)."""
BOUNDED = ("ante", "pot_cap", "min_buy_in", "max_rebuys")
"""The whole numbers of the house rules, each at most :data:`MAX_CHIPS`."""


class RulesError(GutsError):
    """Invalid house rules: unknown key, wrong type, impossible value or combination."""


class Rules(BaseModel):
    """Every house rule of RULES.md with the default gutskit ships.

    All fields are keyword-only, validated strictly (``"1"`` is not an ante, ``1.5`` is not a
    chip count) and frozen. Chips are integers.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    cards_per_hand: Literal[2, 3] = Field(
        3, description="Cards dealt to each player: 2 (two-card Guts) or 3 (three-card Guts).")
    ante: int = Field(
        1, description="Chips each player puts into the pot when a game starts "
        "(1..1,000,000).")
    ante_every_round: bool = Field(
        False, description="Everyone antes every round, not only when a new game starts.")
    declaration: Literal["simultaneous", "sequential", "drop"] = Field(
        "simultaneous",
        description="simultaneous: sealed, revealed at once; sequential: from the dealer's "
        "left, each sees earlier calls (Indonesian rule book); drop: 1-2-3 drop (plays as "
        "simultaneous).")
    all_out: Literal["reante", "carry", "best_pays_antes"] = Field(
        "reante",
        description="When nobody is in: reante = everyone antes again (German/French); "
        "carry = the pot stays, no ante (Indonesian, pagat); best_pays_antes = the best hand "
        "pays every player's ante (Estonian).")
    ace_low_straight: bool = Field(
        True, description="Three cards: A-2-3 is the lowest straight.")
    suit_tiebreak: Literal["none", "high_card", "always"] = Field(
        "high_card",
        description="Rank-equal hands: none = tie; high_card = among high-card hands the "
        "better suit of the top card wins; always = every tie broken by suits "
        "(spades > hearts > diamonds > clubs).")
    odd_chip: Literal["carry", "first_left_of_dealer"] = Field(
        "carry",
        description="A split pot's remainder stays in the pot (carry) or goes to the first "
        "tied winner clockwise from the dealer.")
    pot_cap: int | None = Field(
        None, description="Largest pot (chips), or none. The German rule book suggests 50.")
    pot_cap_mode: Literal["match", "reserve"] = Field(
        "match",
        description="match: each loser pays the pot or the cap, whichever is less; "
        "reserve: losers pay in full, the excess over the cap goes to a reserve that "
        "refills the pot when a new game starts (Estonian).")
    shortfall: Literal["eliminate", "table_stakes", "debt"] = Field(
        "eliminate",
        description="A loser who cannot match: eliminate = out for the session, keeps the "
        "chips; table_stakes = pays all they have and stays; debt = pays in full, the "
        "stack goes negative.")
    require_cover: bool = Field(
        False, description="A player may declare in only with enough chips to match the pot.")
    end_on_uncontested: bool = Field(
        False,
        description="The session stops at the first uncontested win after matched rounds "
        "(otherwise a new game starts).")
    community_card: bool = Field(
        False,
        description="Monte Carlo Guts (German/French rule book): after the declarations one "
        "community card is turned face up; players in make their best hand of "
        "cards_per_hand cards from their own cards plus it.")
    pass_the_trash: bool = Field(
        False,
        description="Pass the Trash (German/French rule book): after looking, every player "
        "passes one card, chosen in secret, to the player on their left, all at once; "
        "then the declarations.")
    hi_lo: bool = Field(
        False,
        description="Hi-Lo Guts (German/French rule book): the pot is split in a high and a low "
        "half (odd chip to high); players declare high, low, both or out; a 'both' "
        "player must win or tie both ways or loses both; the losers of each side match "
        "that side's pot; low is the reverse of the high order (docs/variants/hi-lo.md).")
    no_peek: bool = Field(
        False,
        description="No Peek (German/French rule book): players declare without having seen "
        "their own cards.")
    losers_pay: Literal["all", "worst"] = Field(
        "all",
        description="all: every player in who does not win matches; worst: Single loser "
        "(Estonian rule book): only the worst hand among those in matches (tied worst hands "
        "all match), everyone antes every hand except the previous hand's matchers.")
    ghost_hand: bool = Field(
        False,
        description="Kitty / ghost hand (Estonian rule book): one extra hand is dealt to nobody "
        "and shown at the showdown; to take the pot a player must beat it strictly, so a "
        "lone player in must beat it too; if the ghost is best nobody takes the pot and "
        "everyone in matches.")
    min_buy_in: int | None = Field(
        None,
        description="Smallest stack a player may sit down with, and the smallest rebuy "
        "(German/French rule book: agree a minimum buy-in before play); none = no minimum.")
    rebuys: bool = Field(
        False,
        description="Between rounds a player whose stack is below the minimum buy-in "
        "(below the ante when there is none) may buy chips again.")
    max_rebuys: int | None = Field(
        None, description="Most rebuys per player in a session (none = no limit).")

    @field_validator("cards_per_hand", mode="before")
    @classmethod
    def _whole_number(cls, value: Any) -> Any:
        # A Literal[2, 3] accepts 3.0 (3.0 == 3); a count of cards is an integer, like a
        # chip count (strict mode refuses "ante": 1.0 the same way).
        if not isinstance(value, int) or isinstance(value, bool):
            raise PydanticCustomError("int_type", "Input should be a valid integer")
        return value

    @field_validator("pot_cap", "min_buy_in", "max_rebuys", mode="before")
    @classmethod
    def _no_cap(cls, value: Any) -> Any:
        return None if isinstance(value, str) and value.lower() in ("none", "off") else value

    @model_validator(mode="after")
    def _check(self) -> Rules:
        if self.ante < 1:
            raise ValueError(f"ante: must be at least 1 (got {self.ante})")
        for name in BOUNDED:
            value = getattr(self, name)
            if value is not None and value > MAX_CHIPS:
                raise ValueError(f"{name}: must be at most {MAX_CHIPS} (got {_digits(value)})")
        if self.pot_cap is not None and self.pot_cap < self.ante:
            raise ValueError(
                f"pot_cap: a cap of {self.pot_cap} is below the ante of {self.ante}")
        if self.min_buy_in is not None and self.min_buy_in < 1:
            raise ValueError(f"min_buy_in: must be at least 1 (got {self.min_buy_in})")
        if self.max_rebuys is not None:
            if self.max_rebuys < 1:
                raise ValueError(f"max_rebuys: must be at least 1 (got {self.max_rebuys})")
            if not self.rebuys:
                raise ValueError(
                    f"max_rebuys = {self.max_rebuys} needs rebuys = true")
        if self.no_peek and self.pass_the_trash:
            raise ValueError(
                "no_peek and pass_the_trash cannot be combined: a player must look at "
                "their cards to choose the one to pass")
        if self.hi_lo and self.losers_pay == "worst":
            raise ValueError(
                "hi_lo and losers_pay = \"worst\" cannot be combined: with two pots there "
                "is no single worst hand")
        if self.hi_lo and self.ghost_hand:
            raise ValueError(
                "hi_lo and ghost_hand cannot be combined: the rule books give no rule for a ghost "
                "hand in a hi-lo game")
        return self

    @cached_property
    def ranking(self) -> Ranking:
        """The hand-ranking part of these rules."""
        return Ranking(
            cards_per_hand=self.cards_per_hand,
            ace_low_straight=self.ace_low_straight,
            suit_tiebreak=self.suit_tiebreak,
        )

    def replace(self, **changes: Any) -> Rules:
        """A copy with ``changes`` applied and validated.

        Raises:
            RulesError: a change is unknown or invalid.
        """
        return rules_from_mapping({**self.model_dump(), **changes})

    def to_dict(self) -> dict[str, Any]:
        """Every rule and its value, JSON-ready."""
        return self.model_dump()


DEFAULT_RULES = Rules()

PRESETS: dict[str, tuple[str, dict[str, Any]]] = {
    "default": ("gutskit defaults: the German/French rule book, three cards", {}),
    "german-3card": ("German rule book, three-card Guts", {"cards_per_hand": 3}),
    "german-2card": ("German rule book, two-card Guts", {"cards_per_hand": 2}),
    "french-3card": ("French rule book (same text as the German), three cards",
                     {"cards_per_hand": 3}),
    "french-2card": ("French rule book (same text as the German), two cards",
                     {"cards_per_hand": 2}),
    "indonesian": (
        "Indonesian rule book / pagat: two cards, sequential declaration, the pot carries "
        "when nobody is in, rank-equal hands tie",
        {"cards_per_hand": 2, "declaration": "sequential", "all_out": "carry",
         "suit_tiebreak": "none"},
    ),
    "pagat": (
        "pagat.com's Guts (as the Indonesian rule book)",
        {"cards_per_hand": 2, "declaration": "sequential", "all_out": "carry",
         "suit_tiebreak": "none"},
    ),
    "estonian": (
        "Estonian rule book: chips in the fist, pot capped at an agreed value with the "
        "excess to a reserve",
        {"cards_per_hand": 2, "pot_cap": 50, "pot_cap_mode": "reserve"},
    ),
    "social": (
        "German rule book's advice for social play: pot capped at 50, each loser matches at "
        "most the cap",
        {"pot_cap": 50, "pot_cap_mode": "match"},
    ),
    # The named variants (RULES.md "Variants"), each on top of the defaults.
    "two-card": ("Two-card Guts: pairs and high cards only", {"cards_per_hand": 2}),
    "three-card": ("Three-card Guts: full three-card poker rankings", {"cards_per_hand": 3}),
    "monte-carlo": ("Monte Carlo Guts: one community card turned after the declarations "
                    "(German/French rule book)", {"community_card": True}),
    "pass-the-trash": ("Pass the Trash: everyone passes one card to the left before "
                       "declaring (German/French rule book)", {"pass_the_trash": True}),
    "hi-lo": ("Hi-Lo Guts: a high and a low pot; declare high, low, both or out "
              "(German/French rule book)", {"hi_lo": True}),
    "no-peek": ("No Peek: declare without seeing your cards (German/French rule book)",
                {"no_peek": True}),
    "pot-cap": ("Pot cap: each loser matches at most 50 chips, the rule books' per-round stake "
                "limit (German/French rule book)", {"pot_cap": 50, "pot_cap_mode": "match"}),
    "wimp-out": ("Wimp-Out: a lone player in wins at once without showing (the standard "
                 "rule, stated explicitly; German/French rule book)", {}),
    "table-stakes": ("Table-Stake Guts: a loser's match is capped at what they have left "
                     "(German/French rule book)", {"shortfall": "table_stakes"}),
    "single-loser": ("Single loser: only the worst hand among those in matches; everyone "
                     "antes every hand except the last matchers (Estonian rule book)",
                     {"losers_pay": "worst"}),
    "ghost-hand": ("Kitty / ghost hand: an extra hand dealt to nobody must be beaten too "
                   "(Estonian rule book)", {"ghost_hand": True}),
    "all-out-penalty": ("All-out penalty: when everyone is out, the best hand pays "
                        "everyone's ante for the re-deal (Estonian rule book)",
                        {"all_out": "best_pays_antes"}),
    "drop": ("1-2-3 drop: out players drop their cards on the count; played as "
             "simultaneous (Estonian rule book)", {"declaration": "drop"}),
    "buy-in-limits": ("Table limits (German/French rule book): minimum buy-in 20, up to 2 "
                      "rebuys, per-round stake limit 50",
                      {"min_buy_in": 20, "rebuys": True, "max_rebuys": 2, "pot_cap": 50,
                       "pot_cap_mode": "match"}),
    "estonian-full": ("Estonian rule book with all its variants: 1-2-3 drop, single loser, "
                      "ghost hand, all-out penalty, pot capped at 50 with a reserve",
                      {"cards_per_hand": 2, "pot_cap": 50, "pot_cap_mode": "reserve",
                       "declaration": "drop", "losers_pay": "worst", "ghost_hand": True,
                       "all_out": "best_pays_antes"}),
}
"""Named presets: name -> (description, house rules that differ from the defaults)."""


def _format_validation_error(error: ValidationError) -> str:
    """One message for every problem found, the unknown rules together with the whole list
    of known rules (once) and the nearest known name for each (``antes``: ``ante``)."""
    messages = []
    unknown = [".".join(str(part) for part in item["loc"]) for item in error.errors()
               if item["type"] == "extra_forbidden"]
    if unknown:
        known = sorted(Rules.model_fields)
        hints = [f"{name!r}" + "".join(f" (did you mean {near!r}?)" for near in
                                       difflib.get_close_matches(name, known, n=1))
                 for name in unknown]
        messages.append(f"unknown house rule{'s' if len(unknown) > 1 else ''} "
                        f"{', '.join(hints)}{rule_listing()}")
    for item in error.errors():
        loc = ".".join(str(part) for part in item["loc"])
        value = item.get("input")
        if item["type"] == "extra_forbidden":
            continue
        elif item["type"] == "value_error":
            messages.append(str(item["msg"]).removeprefix("Value error, "))
        else:
            messages.append(f"{loc}: {item['msg'].lower()} (got {_cut(json.dumps(value))})"
                            + _hint(loc, item["type"]))
    return "; ".join(messages)


def rule_listing() -> str:
    """What a message on an unknown house rule adds after the name(s): every house rule,
    ``"; the house rules are ace_low_straight, all_out, ..."``. A front end that keeps
    its lines short replaces exactly this text by a pointer to its own list."""
    return f"; the house rules are {', '.join(sorted(Rules.model_fields))}"


def preset_listing() -> str:
    """What a message on an unknown preset adds after the name: every preset,
    ``" (known: default, german-3card, ...)"`` (see :func:`rule_listing`)."""
    return f" (known: {', '.join(PRESETS)})"


def _hint(name: str, kind: str) -> str:
    """What the rule ``name`` takes, when pydantic's words (error ``kind``) do not say it:
    a yes/no rule is true or false; a rule whose default is none takes none too."""
    field = Rules.model_fields.get(name)
    if kind == "bool_type":
        return ": write true or false"
    if kind == "int_type" and field is not None and field.default is None:
        return ": write a whole number, or none"
    return ""


def preset(name: str) -> Rules:
    """The rules of the named preset (see :data:`PRESETS`).

    Raises:
        RulesError: no preset has that name.
    """
    try:
        overrides = PRESETS[name][1]
    except KeyError:
        raise RulesError(f"unknown preset {name!r}{preset_listing()}") from None
    return Rules(**overrides)


def rules_from_mapping(mapping: Mapping[str, Any], *, base: Rules | None = None) -> Rules:
    """Rules from house-rule names and values, e.g. parsed JSON or TOML.

    Args:
        mapping: house rules; the optional key ``"preset"`` names a preset to start from
            (its rules are then overridden by the other keys).
        base: rules to start from when there is no ``"preset"`` key (default: the
            defaults).

    Raises:
        RulesError: an unknown key, a value of the wrong type, or an impossible setting.
    """
    if not isinstance(mapping, Mapping):
        raise RulesError(f"rules must be a table of house rules, not {mapping!r}")
    values = dict(mapping)
    start = base
    if "preset" in values:
        name = values.pop("preset")
        if not isinstance(name, str):
            raise RulesError(f"preset must be a name, not {name!r}")
        start = preset(name)
    merged = {**(start.model_dump() if start is not None else {}), **values}
    try:
        return Rules(**merged)
    except ValidationError as error:
        raise RulesError(_format_validation_error(error)) from None


def rules_from_toml(text: str, where: str) -> Rules:
    """Rules from the text of a TOML file of ``key = value`` house rules (``preset = "..."``
    allowed; or all of them under one ``[rules]`` table); ``where`` names the file in the
    messages. Reading the file is the shell's (:func:`gutskit.io.files.load_rules`).

    >>> rules_from_toml('ante = 2', 'house.toml').ante
    2

    Raises:
        RulesError: the text is not TOML, is empty (nothing but whitespace: a file
            written by mistake), holds another TOML table (``[section]``), or holds invalid
            rules; the message names the file. A file of comments only is written on
            purpose (docs/variants/examples/misdeal.toml: a misdeal needs no house rule)
            and means the defaults.
    """
    text = text.removeprefix("\ufeff")  # a BOM: Windows editors write one
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RulesError(f"rules file {where!r} is not valid TOML: {error}") from None
    except ValueError:  # tomllib's int() of a number longer than 4300 digits
        raise RulesError(f"rules file {where!r} holds a number with more than "
                         f"{sys.get_int_max_str_digits()} digits") from None
    if "rules" in data and isinstance(data["rules"], dict) and len(data) == 1:
        data = data["rules"]
    if not text.strip():
        raise RulesError(f"rules file {where!r} is empty: it holds no house rules (write "
                         "key = value lines, e.g. ante = 2; without --rules the defaults "
                         "apply)")
    table_name = next((key for key, value in data.items() if isinstance(value, dict)), None)
    if table_name is not None:
        shown = "[" + _cut(table_name) + "]"
        raise RulesError(f"rules file {where!r}: {shown!r} is a TOML table, not a house "
                         "rule: write the house rules as key = value lines at the "
                         "top of the file (or all of them under one [rules] table)")
    try:
        return rules_from_mapping(data)
    except RulesError as error:
        raise RulesError(f"rules file {where!r}: {error}") from None


def check_buy_in(rules: Rules, buy_in: int) -> None:
    """Refuse a table where everyone buys in for ``buy_in`` chips that ``rules`` cannot
    start: an ante above the buy-in (everyone would be all-in on the first ante) or a
    buy-in below ``min_buy_in``. The one place of this rule: the server's room creation
    and every CLI command taking ``--chips`` and ``--rule`` call it, with one message.

    >>> check_buy_in(Rules(ante=200), 100)
    Traceback (most recent call last):
    ...
    gutskit.core.rules.RulesError: ante: an ante of 200 is more than the buy-in of 100

    Args:
        rules: the house rules.
        buy_in: everyone's buy-in, in chips.

    Raises:
        RulesError: the ante is more than the buy-in, or the buy-in is below
            ``min_buy_in``.
    """
    if rules.ante > buy_in:
        raise RulesError(f"ante: an ante of {rules.ante} is more than the buy-in of {buy_in}")
    if rules.min_buy_in is not None and buy_in < rules.min_buy_in:
        raise RulesError(f"min_buy_in: the buy-in of {buy_in} is below the minimum buy-in "
                         f"of {rules.min_buy_in}")


def parse_rule_assignment(text: str) -> tuple[str, Any]:
    """Parse ``KEY=VALUE`` from the command line; VALUE is a TOML/JSON literal or a bare word.

    >>> parse_rule_assignment("pot_cap=50")
    ('pot_cap', 50)
    >>> parse_rule_assignment("suit_tiebreak=none")
    ('suit_tiebreak', 'none')

    Raises:
        RulesError: there is no ``=``.
    """
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise RulesError(f"expected KEY=VALUE (e.g. pot_cap=50), got {_cut(text)!r}")
    raw = raw.strip()
    value: Any
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    except ValueError:  # a number longer than int() reads (4300 digits)
        raise RulesError(f"{key.strip()}: {_cut(raw)} is not a number a rule can hold "
                         f"({len(raw)} characters)") from None
    return key.strip(), value


def _digits(value: int) -> str:
    """A whole number for a message, cut to about 40 characters (Python refuses to write
    one of more than 4300 digits).

    >>> _digits(5_000_000), _digits(10**30), _digits(10**5000)
    ('5000000', '1000000000000000000000000000000', 'a number of about 5001 digits')
    """
    if value.bit_length() > 14_000:  # about 4200 digits
        return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
    return _cut(str(value))


def _cut(text: str, limit: int = 40) -> str:
    """``text`` cut to about ``limit`` characters (``"99999…"``) for a message."""
    return text if len(text) <= limit else text[:limit - 1] + "…"
