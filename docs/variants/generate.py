"""Write the variant pages of docs/variants/ with real numbers: each page's worked example is
the output of ``guts referee docs/variants/examples/NAME.json --json``, run here.

    python docs/variants/generate.py        # rewrite the pages
    python docs/variants/generate.py --check  # exit 1 if a page is out of date

tests/test_variants.py checks that every page holds the current referee output.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE / "examples"

PAGES: dict[str, dict[str, str]] = {
    "monte-carlo": {
        "title": "Monte Carlo Guts (`community_card`)",
        "rule": "After the declarations one community card is turned face up. The players "
                "who are in make their best hand of `cards_per_hand` cards from their own "
                "cards plus that card (German/French rule book, \"Monte Carlo Guts\"). It is "
                "dealt face down with the hands and shown to nobody before the turn.",
        "example": "Pot 4 after the antes. The community card is the 9h: Ana's Qs Qh 7d "
                   "plays Q-Q-9 (a pair of queens), Ben's Jc Ts 4h becomes the straight "
                   "J-T-9, and Cleo's 9d 9c 8s becomes three nines and wins. Without the "
                   "9h Ana's queens would have won. Ana and Ben each match 4: the next pot "
                   "is 8.",
        "notes": "A lone player in wins uncontested as usual (the card is turned, nobody "
                 "needs it). With `ghost_hand`, the ghost hand uses the community card too; "
                 "with `hi_lo`, the low side plays the lowest hand each player can make. "
                 "The referee needs `community` only when the round is settled by cards "
                 "(a showdown, or everyone out under `all_out = \"best_pays_antes\"`).",
    },
    "pass-the-trash": {
        "title": "Pass the Trash (`pass_the_trash`)",
        "rule": "After looking at their cards, every player chooses one card in secret and "
                "passes it to the player on their left (the next player dealt in, "
                "clockwise), all at once; then the declarations (German/French rule book).",
        "example": "Dealer Dev, so the passes go Ana → Ben → Cleo → Dev → Ana. Ana passes "
                   "3c and receives Dev's 5d: Ks Kd 5d. Dev passes 5d and receives Cleo's "
                   "4s: 8h 8c 4s. Only Ana and Dev go in; kings beat eights: Ana takes the "
                   "4, Dev matches 4.",
        "notes": "The rule books say a player *may* pass; gutskit has everyone pass exactly one "
                 "card, as RULES.md and the issue put it (an optional pass in an "
                 "all-at-once exchange would leave hands of different sizes). A seat sees "
                 "only the card it passed and the card it received (`PassSeen` in its "
                 "history); in the engine, `pass_card` (one seat, sealed) or `pass_all` "
                 "(the joint action). In a referee file `hands` are the hands as dealt and "
                 "`passes` gives every player's passed card. Cannot be combined with "
                 "`no_peek` (nobody can choose a card unseen).",
    },
    "hi-lo": {
        "title": "Hi-Lo Guts (`hi_lo`)",
        "rule": "The pot is played for twice at once: half for the best hand, half for the "
                "lowest. Players declare `high`, `low`, `both` or `out` (German/French "
                "rule book). The rule books give no more, so gutskit follows the usual "
                "declare-game practice, below.",
        "example": "Pot 9: the high half is 5 (the odd chip goes high), the low half 4. Ana "
                   "declares high with aces, Ben low with 7-4-2, Cleo low with 8-5-3, Dev "
                   "both with K-Q-6. Dev neither beats the aces nor goes under 7-4-2, so he "
                   "loses both ways and matches both halves, 5 + 4 = 9. Ana takes the high "
                   "5, Ben the low 4, Cleo matches the low 4: the next pot is 13.",
        "notes": "The choices, and why:\n\n"
                 "- **Pot split in two, odd chip to high**: the common split-pot convention "
                 "(as in hi-lo poker); the high hand is the game's primary hand.\n"
                 "- **Low is the reverse of the high order**: Guts has a single ranking; "
                 "the lowest hand under it wins low (ace always high, so 3-2 is the best "
                 "two-card low and 5-3-2 offsuit the best three-card low; A-2-3 is a "
                 "straight, and with suit tie-breaks the worse suit wins low). No separate "
                 "low ranking is invented.\n"
                 "- **A `both` player must win or tie both ways, or loses both**: the "
                 "standard declare rule that keeps `both` from being a free roll. A `both` "
                 "player who fails is left out of the awards (each half goes to the best "
                 "remaining hand of that side) and matches both halves.\n"
                 "- **Losers of each side match that side's pot**: the Guts match applied "
                 "per side, so a side is never cheaper to lose than it was to win (under "
                 "`pot_cap_mode = \"match\"` each side's match is capped on its own).\n"
                 "- **A side nobody declared** gives its half to the other side; a side "
                 "left without an eligible winner (its only declarers were failed `both` "
                 "players) also goes to the other side's winners; if neither side has one, "
                 "the pot stays.\n"
                 "- **One player in** (any direction) wins the whole pot uncontested, the "
                 "standard rule.\n\n"
                 "Cannot be combined with `losers_pay = \"worst\"` (two pots have no single "
                 "worst hand) or `ghost_hand` (the rule books give no ghost rule for two pots).",
    },
    "no-peek": {
        "title": "No Peek (`no_peek`)",
        "rule": "Players declare without having seen their own cards (German/French "
                "rule book): the cards are dealt, everyone declares blind, and the hands are "
                "revealed at the showdown.",
        "example": "The declarations were made blind; the referee settles them like any "
                   "others: Ben's jacks beat Ana's nine high and Dev's sixes; Ben takes the "
                   "4 and Ana and Dev match 4 each (next pot 8).",
        "notes": "The engine is unchanged; the views do the work: a seat's view shows its "
                 "hand as `()` (dealt, unseen) until the reveal, and its hand history "
                 "hides its own dealt cards. Bots declare with the break-even probability "
                 "of a table playing the same blind strategy "
                 "(`gutskit.strategy.bots.blind_in_probability`). Cannot be combined with "
                 "`pass_the_trash`.",
    },
    "single-loser": {
        "title": "Single loser (`losers_pay = \"worst\"`)",
        "rule": "When several players are in, only the worst hand among them matches the "
                "pot; tied worst hands all match. Everyone antes every hand, except that "
                "the player(s) who matched skip the ante of the next hand (Estonian rule book, "
                "\"Ühtne luuser\").",
        "example": "Round 1: Ana's queens win the 4; of the three players in, Ben's jack "
                   "high is the worst, so only Ben matches 4 (Cleo's nines pay nothing). "
                   "Round 2: everyone but Ben antes, pot 4 + 3 = 7; Dev's jacks win 7 and "
                   "the worst hand in, Cleo's ten high, matches 7.",
        "notes": "Antes are collected every hand under this rule, whatever "
                 "`ante_every_round` says. If everyone in ties, nobody is worst and nobody "
                 "matches. With a ghost hand that beats everyone, nobody takes the pot and "
                 "only the worst hand in matches.",
    },
    "ghost-hand": {
        "title": "Kitty / ghost hand (`ghost_hand`)",
        "rule": "One extra hand is dealt to nobody and shown at the showdown. To take the "
                "pot a player must beat the ghost as well as everyone else in, so a lone "
                "player in must beat it too (no uncontested wins). If the ghost is best, "
                "nobody takes the pot and everyone in matches; a tie with the ghost is a "
                "loss (Estonian rule book, \"Kitty/Ghost\").",
        "example": "Round 1: only Ana is in; her tens beat the ghost's king high, so she "
                   "takes the 4 (a showdown, not an uncontested win). Round 2 (new game, "
                   "antes 4): the ghost holds aces; Ben's queens and Cleo's king high both "
                   "lose to it: nobody takes the pot, Ben and Cleo match 4 each, the next "
                   "pot is 4 + 8 = 12.",
        "notes": "The ghost is dealt after the hands, face down, and appears in no view "
                 "until the showdown (`RoundResolved.ghost`). When everyone is out it is "
                 "never shown. Bots count it as one more opponent who is always in.",
    },
    "all-out-penalty": {
        "title": "All-out penalty (`all_out = \"best_pays_antes\"`)",
        "rule": "When everyone declares out, everyone shows, and the player holding the "
                "best hand pays every player's ante for the re-deal, their own included; "
                "tied best hands share that cost evenly, odd chips one each from the "
                "dealer's left (Estonian rule book). The same dealer deals again.",
        "example": "Round 1: everyone is out; Ana holds the best hand (queens), so the "
                   "re-deal's four antes are all hers: pot 4 + 4 = 8. Round 2: Dev's flush "
                   "beats Ben's kings; Dev takes 8 and Ben matches 8.",
        "notes": "The payment appears as the next round's `antes` (the antes of the deal "
                 "they pay for), and the void round names the payers in `pays_antes`. A "
                 "payer short of chips pays what they have (under `shortfall = \"debt\"`: "
                 "in full). The referee needs every hand of an all-out round.",
    },
    "drop": {
        "title": "1-2-3 drop (`declaration = \"drop\"`)",
        "rule": "On the dealer's count of three, the players who are out drop their cards "
                "(Estonian rule book). Enforced, it is a simultaneous declaration; the rule book "
                "itself notes its weakness (late drops), which an engine cannot have.",
        "example": "The German book's pot-8 example, declared by drop: the same result as "
                   "with chips in the fist. Ana's queens win 8; Ben and Cleo match 8 each; "
                   "the next pot is 16.",
        "notes": "Plays exactly as `simultaneous`: sealed declarations revealed at once.",
    },
    "misdeal": {
        "title": "Misdeal",
        "rule": "A misdeal (a player has the wrong number of cards, or a card is exposed "
                "while dealing) throws the cards in: the antes stay in the pot, no new "
                "ante is asked, and the same dealer deals again (German/French rule book).",
        "example": "Round 1 is a misdeal after the antes: the pot keeps its 4. The re-deal "
                   "(dealer Dev again, no antes): Ana's aces beat Ben's king high; Ana "
                   "takes 4, Ben matches 4.",
        "notes": "Not a house rule but a table event: in the engine `misdeal(state)` (with "
                 "`can_misdeal`) at any time between the deal and the reveal; in a referee "
                 "file a round `{\"misdeal\": true}` (its output has `outcome = "
                 "\"misdeal\"`). Declarations already made are void.",
    },
    "buy-in-limits": {
        "title": "Buy-in and limits",
        "rule": "Before play the table agrees a minimum buy-in and a per-round stake limit "
                "(German/French rule book): `min_buy_in` refuses smaller stacks, `rebuys` (with "
                "`max_rebuys`) lets a player below the minimum buy in again between "
                "rounds, and `pot_cap` with `pot_cap_mode = \"match\"` caps what a loser "
                "matches. A personal loss limit is each player's own choice (rule books: \"set "
                "a personal loss limit before play and stop when it is reached\"): a "
                "player whose net loss reaches it is sat out automatically and told why.",
        "example": "Ana's queens win rounds 1 and 2 (pots 4 and 8); Ben and Cleo match "
                   "each time. Before round 3 Ben, down to 7 chips, rebuys 20. The pot is "
                   "16, above the stake limit of 10: Ben's aces take 16, Cleo matches only "
                   "10, and is now down 23, past her loss limit of 15: she is sat out with "
                   "her 17 chips. The table then stops (`\"end\": true`): the 10 in the pot "
                   "is shared by the players still seated, 4 to Ana (the odd chip, first "
                   "left of the dealer Dev), 3 to Ben and 3 to Dev. The ledger nets are "
                   "+15, +6, -23 and +2, settled by three payments from Cleo.",
        "notes": "Loss limits are per player, given at session start: "
                 "`new_session(..., loss_limits={\"Cleo\": 15})`, or `\"loss_limit\"` on a "
                 "referee file's player. The `SatOut` event carries the reason. A rebuy "
                 "(`rebuy(state, seat, chips)`, or a round's `\"rebuys\"` in a referee "
                 "file, applied before its deal) raises the player's buy-in in the ledger; "
                 "a round's `deltas` leave it out.",
    },
    "session-end": {
        "title": "Session end and settling up",
        "rule": "A session ends when the table agrees, at the first uncontested win after "
                "a matched round under `end_on_uncontested`, or when fewer than two "
                "players have chips. The session winner has the most chips; the ledger "
                "shows each player's buy-ins, final stack and net, and who pays whom "
                "settles the nets in the fewest transfers.",
        "example": "Round 1: Ana's queens beat Ben's jack high; Ben matches 3. Round 2: "
                   "Ben alone is in and takes the 3 uncontested; as the game had a match, "
                   "the session ends. Nets +2, -1, -1: Ben and Cleo each pay Ana 1.",
        "notes": "`gutskit.core.payments.settle_up(nets)` finds the fewest payments exactly: "
                 "the players split into the most groups whose nets add up to zero, and a "
                 "group of k settles in k - 1 payments. In a referee file `\"end\": true` "
                 "ends the session after the last round and adds `ledger` and `payments` "
                 "to the output.",
    },
}


def referee_output(name: str) -> str:
    """``guts referee`` on the example, as pretty JSON."""
    guts = Path(sys.executable).with_name("guts")
    result = subprocess.run(
        [str(guts if guts.exists() else "guts"), "referee", str(EXAMPLES / f"{name}.json"),
         "--json"], capture_output=True, text=True, check=True)
    return json.dumps(json.loads(result.stdout), indent=1)


def page(name: str, output: str) -> str:
    """The markdown page of variant ``name`` with the referee ``output``."""
    info = PAGES[name]
    rules = (EXAMPLES / f"{name}.toml").read_text(encoding="utf-8")
    example = (EXAMPLES / f"{name}.json").read_text(encoding="utf-8")
    return f"""# {info['title']}

{info['rule']}

## Options

```toml
{rules.rstrip()}
```

Use it with `guts play --rules docs/variants/examples/{name}.toml`, `guts sim --rules ...`,
or the preset `{name}` where there is one (`guts rules --list`).

## Worked example

{info['example']}

The table's record, `docs/variants/examples/{name}.json`:

```json
{example.rstrip()}
```

`guts referee docs/variants/examples/{name}.json --json` prints:

```json
{output}
```

## Notes

{info['notes']}
"""


def main() -> int:
    check = "--check" in sys.argv
    stale = []
    for name in PAGES:
        text = page(name, referee_output(name))
        path = HERE / f"{name}.md"
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path.name)
        else:
            path.write_text(text, encoding="utf-8")
    if stale:
        print("out of date:", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
