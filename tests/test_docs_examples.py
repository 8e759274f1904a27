"""Docs that cannot drift (issue 8, item 4): every ``$ command`` example in README.md and
docs/ is run by scripts/examples.py and must print what the document shows.

When a change to gutskit changes what a command prints, regenerate the examples with
``python scripts/examples.py --update`` and review the diff.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import examples  # noqa: E402  (scripts/ is not a package: put on the path just above)

RUN = [doc for doc in examples.documents()
       if any(block.not_run is None for block in examples.examples(doc))]


def _name(doc: Path) -> str:
    return doc.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("doc", RUN, ids=_name)
def test_examples_print_what_the_document_shows(doc: Path, tmp_path: Path) -> None:
    _, mismatches = examples.run_document(doc, tmp_path)
    report = "\n".join(f"{_name(m.doc)}:{m.line}: $ {m.command}\n{m.diff}" for m in mismatches)
    assert not mismatches, (f"{report}\n{_name(doc)} is out of date: run "
                            f"`{examples.UPDATE_COMMAND}` to regenerate")


def test_the_documents_with_examples_are_all_run() -> None:
    assert {_name(doc) for doc in RUN} >= {"README.md", "docs/bots-and-analysis.md",
                                          "docs/referee.md", "docs/strategy.md"}


def test_every_block_not_run_is_marked_with_its_reason() -> None:
    # A `$ ` block runs unless an HTML comment `<!-- not run: REASON -->` comes just before
    # it; these are the only ones, each with why.
    skipped = {(_name(doc), block.commands[0].shell): block.not_run
               for doc in examples.documents() for block in examples.examples(doc)
               if block.not_run is not None}
    assert skipped == {
        ("README.md", "guts serve --host 0.0.0.0 --port 8000"):
            "starts a server, which runs until stopped",
        ("docs/bots-and-analysis.md", "python benchmarks/run_all.py"):
            "timings differ from run to run; the figures are one measured run",
        ("docs/bots-and-analysis.md", "python benchmarks/collusion_error_rate.py "
                                      "--batches 400 --power-batches 100 --rounds 60"):
            "a 45-minute simulation; the figures are one measured run",
        ("docs/strategy.md", "python examples/openspiel_cfr_heads_up.py --iterations 160000"):
            "a 4-minute (CPU) training run; the figures are one measured run",
    }


@pytest.mark.parametrize("doc", examples.documents(), ids=_name)
def test_no_command_line_escapes_the_tool(doc: Path) -> None:
    # Every line that looks like a `$ command` sits in an example block the tool parses
    # (not in an indented block, a block that starts with prose, or running text).
    text = doc.read_text(encoding="utf-8")
    lines = text.split("\n")
    seen = {block.start + 1 + i for block in examples.parse(text) if block.commands
            for i, line in enumerate(block.body) if line.startswith("$ ")}
    loose = [n + 1 for n, line in enumerate(lines) if re.match(r"\s*\$ \w", line)
             and n not in seen]
    assert loose == [], f"{_name(doc)}: '$ ' lines outside an example block: {loose}"


# --- the tool itself, on small documents whose commands are shell built-ins ---------------

def _doc(tmp_path: Path, text: str) -> Path:
    doc = tmp_path / "doc.md"
    doc.write_text(text, encoding="utf-8")
    (tmp_path / "work").mkdir()
    return doc


def test_update_writes_the_real_output_and_keeps_the_rest(tmp_path: Path) -> None:
    doc = _doc(tmp_path, "Intro\n\n```console\n$ echo one; echo two\nstale\n\n"
                         "$ printf 'a  \\n\\nb\\n'\n```\n\nEnd\n")
    text, mismatches = examples.run_document(doc, tmp_path / "work")
    assert [(m.line, m.command) for m in mismatches] == [(4, "echo one; echo two"),
                                                         (7, "printf 'a  \\n\\nb\\n'")]
    # trailing spaces dropped, inner blank line kept, the blank line between commands kept
    assert text == ("Intro\n\n```console\n$ echo one; echo two\none\ntwo\n\n"
                    "$ printf 'a  \\n\\nb\\n'\na\n\nb\n```\n\nEnd\n")
    doc.write_text(text, encoding="utf-8")
    (tmp_path / "again").mkdir()
    assert examples.run_document(doc, tmp_path / "again") == (text, [])


def test_files_shown_by_cat_or_marked_are_written_before_the_commands(tmp_path: Path) -> None:
    doc = _doc(tmp_path, "<!-- file: a.txt -->\n```\nfrom the doc\n```\n\n```\n$ cat b.txt\n"
                         "x = 1\n$ cat a.txt b.txt | wc -l\n2\n$ false; echo \"exit $?\"\n"
                         "exit 1\n$ echo err >&2\nerr\n```\n")
    assert examples.run_document(doc, tmp_path / "work")[1] == []
    assert (tmp_path / "work" / "b.txt").read_text(encoding="utf-8") == "x = 1\n"


def test_an_output_ending_in_dots_is_a_prefix(tmp_path: Path) -> None:
    doc = _doc(tmp_path, "```\n$ seq 5\n1\n9\n...\n```\n")
    text, mismatches = examples.run_document(doc, tmp_path / "work")
    assert len(mismatches) == 1 and text == "```\n$ seq 5\n1\n2\n...\n```\n"


def test_not_run_blocks_are_left_alone_and_need_a_block(tmp_path: Path) -> None:
    doc = _doc(tmp_path, "<!-- not run: blocks -->\n```\n$ sleep 600\nanything\n```\n")
    assert examples.run_document(doc, tmp_path / "work") == (doc.read_text("utf-8"), [])
    with pytest.raises(ValueError, match="not followed by a fenced block"):
        examples.parse("<!-- not run: why -->\ntext\n")
    with pytest.raises(ValueError, match="does not start with one"):
        examples.parse("```\nprose\n$ echo x\n```\n")


def test_the_environment_is_fixed(tmp_path: Path) -> None:
    doc = _doc(tmp_path, "```\n$ echo $COLUMNS $NO_COLOR $TERM $TZ; test -t 0 || echo no-tty\n"
                         "```\n")
    text, _ = examples.run_document(doc, tmp_path / "work")
    assert f"\n{examples.WIDTH} 1 dumb UTC\nno-tty\n" in text


def test_start_times_are_normalised() -> None:
    assert examples.normalise("│  1 │ 2031-07-04 23:59 │ play  \n\n") == (
        "│  1 │ 2025-01-01 12:00 │ play")
