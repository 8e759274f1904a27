"""Session 11, names11: player names the prompts cannot tell from an answer.

``guts companion -n 'Ana Lee,Ben'`` was accepted though "Who is in?" splits at spaces
(``Ana Lee`` could never be declared in), ``-n none,Ben`` / ``-n end,Ben`` too (typing the
name meant nobody / ended the session); ``guts play --name ava`` sat beside the bot Ava and
``--name 'Ava (equilibrium)'`` looked exactly like the bot's label.
"""

from __future__ import annotations

from pathlib import Path

from test_cli import assert_user_error, guts

from gutskit.cli.companion_loop import ANSWER_WORDS, name_clash


def test_the_answer_words_are_every_word_the_prompts_take() -> None:
    words = {"end", "quit", "q", "none", "nobody", "ghost", "deal", "d", "undo", "misdeal",
             "rebuy", "winner", "winners"}
    assert words == ANSWER_WORDS
    # help and ? stay names: ask() reads them as the player (test_cli_polish11 plays Help)
    assert name_clash("Help") is None and name_clash("?") is None
    assert name_clash("Ana") is None and name_clash("Winona") is None
    assert name_clash("Endo") is None and name_clash("Undo2") is None
    assert name_clash("NoNe") == "is a word the prompts take as an answer (none)"
    assert name_clash("Ana\tLee") == ("contains whitespace, and a line of names is split "
                                      "at whitespace")
    assert name_clash("Ana\u00a0Lee") == name_clash("Ana\tLee")  # a no-break space splits
    assert name_clash("Ana=1") == ("contains an =, and the prompts split names and calls at "
                                   "',', '=', ':'")
    assert name_clash("Ana:1") == ("contains a colon, and the prompts split names and calls "
                                   "at ',', '=', ':'")


def test_companion_refuses_a_name_a_prompt_reads_otherwise(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    for players, needle in [
        ("Ana Lee,Ben", "name 'Ana Lee' contains whitespace"),
        ("none,Ben", "name 'none' is a word the prompts take as an answer (none)"),
        ("Ana,END", "name 'END' is a word the prompts take as an answer (end)"),
        ("Ana,Ghost", "name 'Ghost' is a word the prompts take as an answer (ghost)"),
        ("Ana,Undo,Ben", "name 'Undo' is a word the prompts take as an answer (undo)"),
        ("Ana,Misdeal", "name 'Misdeal' is a word the prompts take as an answer (misdeal)"),
        ("Ana,Winner", "name 'Winner' is a word the prompts take as an answer (winner)"),
        ("Ana,D", "name 'D' is a word the prompts take as an answer (d)"),
        ("Ana=x,Ben", "name 'Ana=x' contains an ="),
        ("Ana:x,Ben", "name 'Ana:x' contains a colon"),
    ]:
        result = guts("companion", "-n", players, "--db", str(db), input="\nend\n")
        line = assert_user_error(result, f"error: --players {players!r}: ", needle)
        assert line.endswith("give each player a one-word name that is not an answer")
    assert not db.exists()  # refused before anything is stored


def test_companion_names_that_only_contain_a_word_still_play(tmp_path: Path) -> None:
    # antes 1 each: pot 3; Ana and Endo in, 'winner: Endo' takes 3 and Ana matches 3
    # (Ana 9-3 = 6, Endo 9+3 = 12, Ben 9, pot 3); at the end the pot of 3 is shared
    result = guts("companion", "-n", "Ana,Endo,Ben", "--chips", "10", "--db",
                  str(tmp_path / "c.db"), input="\nAna Endo\nwinner: Endo\nend\n")
    assert result.exit_code == 0, result.output
    words = " ".join(result.output.split())
    assert "Stacks: Ana 6 · Endo 12 · Ben 9" in words, words
    assert "Settle up: Ana pays Endo 3." in words, words


def test_play_refuses_a_name_that_looks_like_a_bot(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    bots = "(the bots are Ava, Bruno, Chen, Dara, named in seat order)"
    assert_user_error(guts("play", "--db", str(db), "--name", "ava", input="quit\n"),
                      f"error: --name 'ava' looks like the bot 'Ava' {bots}")
    assert_user_error(guts("play", "--db", str(db), "--name", "\u0410va", input="quit\n"),
                      "error: --name '\u0410va' looks like the bot 'Ava' (U+0410 CYRILLIC "
                      "CAPITAL LETTER A)")
    assert_user_error(guts("play", "--db", str(db), "--name", "Ava (equilibrium)",
                           input="quit\n"),
                      "error: --name 'Ava (equilibrium)' is the label of the bot 'Ava' at "
                      "this table")
    assert_user_error(guts("play", "--db", str(db), "--name", "Zed (Loose)", "-n", "2",
                           "--bots", "random", input="quit\n"),
                      "error: --name 'Zed (Loose)' reads as a bot's label (a name with the "
                      "bot's kind, 'loose', beside it, as the bots Ava (random))")
    assert_user_error(guts("play", "--db", str(db), "--name", "Bruno", input="quit\n"),
                      "error: --name 'Bruno' is a bot's name at this table")
    assert not db.exists()
    # a name beside no bot of this table plays: Bruno with one bot (Ava) at the table
    result = guts("play", "--db", str(db), "--name", "bruno", "-n", "2", "--seed", "1",
                  input="quit\n")
    assert result.exit_code == 0, result.output
    assert "bruno" in result.output
