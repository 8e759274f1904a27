"""Run the ``$ command`` examples of README.md and docs/**/*.md, and check or rewrite them.

An *example block* is a fenced code block whose first line starts with ``$ ``: each ``$ ``
line is a shell command (a line ending in ``\\`` goes on to the next line) and the lines
after it, up to the next ``$ `` line, are what it prints (standard output and standard error
together, as a terminal shows them). This tool runs every example and compares, or, with
``--update``, writes the real output into the document.

    .venv/bin/python scripts/examples.py            # check all documents; exit 1 if one is stale
    .venv/bin/python scripts/examples.py --update   # write what the commands print into them
    .venv/bin/python scripts/examples.py README.md  # only these documents

Run it with the project's virtualenv Python: ``guts`` is the one beside ``sys.executable``.

How a document is run (one fresh temporary directory per document, blocks in order, so a
later block may use what an earlier one made, e.g. ``guts history`` reads the database the
``guts play`` example saved):

* the working directory starts with a copy of ``docs/`` (so ``--plot docs/img/x.png`` and
  ``docs/variants/examples/*.json`` work); with ``--update``, files of ``docs/`` that an
  example rewrote (the plots) are copied back into the repository;
* ``guts`` and ``python`` are this interpreter's (``sys.executable``'s directory comes first
  on ``PATH``; ``PYTHONPATH`` is passed on);
* the environment is fixed: ``COLUMNS`` (:data:`WIDTH`), ``NO_COLOR``, ``TERM=dumb``,
  ``TZ=UTC``, ``PYTHONHASHSEED=0``, a temporary data folder and ``GUTSKIT_DB``; standard
  input is empty; commands that deal cards are given ``--seed`` in the document itself;
* input files: ``$ cat FILE`` writes the output shown under it to ``FILE`` first (the
  document defines the file), and an HTML comment ``<!-- file: NAME -->`` just before a
  fenced block writes that block's text to ``NAME``;
* a block that must not run (it starts a server, or prints timings) has an HTML comment
  ``<!-- not run: REASON -->`` just before it; it is then neither run nor changed;
* an output whose last line is ``...`` is a prefix: only the lines above it are compared
  (``--update`` keeps the same number of lines).

What may legitimately differ from run to run is normalised in one place,
:data:`NORMALISE`, each with its reason.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WIDTH = 100
"""Terminal width (``COLUMNS``) the examples are printed at: rich wraps tables to it."""
TIMEOUT = 1800
"""Seconds one command may take before the run fails: only a bound for a command that
hangs, never a speed check. The longest example (docs/bots-and-analysis.md's 40,000-round
tournament with --exploitability) took over 300 s on a 2-core machine at load 30."""
UPDATE_COMMAND = ".venv/bin/python scripts/examples.py --update"

NORMALISE: tuple[tuple[re.Pattern[str], str, str], ...] = (
    # ``guts history`` lists when each session started (wall-clock time): shown as a fixed
    # time of the same width, so the table keeps its layout.
    (re.compile(r"\b\d{4}-\d{2}-\d{2} \d{2}:\d{2}\b"), "2025-01-01 12:00",
     "session start times are wall-clock times"),
)
"""(pattern, replacement, reason): applied to every command's output before it is compared
or written."""

FENCE = re.compile(r"^(`{3,}|~{3,})(.*)$")
NOT_RUN = re.compile(r"^<!--\s*not run:\s*(.*?)\s*-->$")
FILE_MARK = re.compile(r"^<!--\s*file:\s*(\S+)\s*-->$")
CAT = re.compile(r"^cat ([\w.-]+)$")


@dataclass(frozen=True)
class Command:
    """One ``$ `` command of an example block and the output the document shows."""

    lines: tuple[str, ...]
    """The command as written, ``$ `` and continuation lines included."""
    output: tuple[str, ...]
    """The output lines shown under it (trailing blank lines left out)."""
    blank_after: bool
    """Whether a blank line separates it from the next command."""

    @property
    def shell(self) -> str:
        """The command as the shell reads it (``$ `` removed, continuations joined)."""
        return "\n".join(self.lines)[2:]

    @property
    def prefix(self) -> bool:
        """Whether the output is shown only in part (its last line is ``...``)."""
        return bool(self.output) and self.output[-1] == "..."


@dataclass(frozen=True)
class Block:
    """A fenced block: an example (``commands``), an input file (``file``) or neither."""

    start: int
    """Line index of the opening fence."""
    end: int
    """Line index of the closing fence."""
    body: tuple[str, ...]
    commands: tuple[Command, ...] = ()
    file: str | None = None
    not_run: str | None = None


@dataclass(frozen=True)
class Mismatch:
    """An example whose output differs from the document."""

    doc: Path
    line: int
    """1-based line of the command in the document."""
    command: str
    diff: str


def documents() -> list[Path]:
    """README.md and every Markdown file under docs/, in a fixed order."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _marker(lines: Sequence[str], fence: int) -> str:
    """The line just before the fence at ``fence`` (blank lines skipped), or ``""``."""
    i = fence - 1
    while i >= 0 and not lines[i].strip():
        i -= 1
    return lines[i].strip() if i >= 0 else ""


def _commands(body: Sequence[str]) -> tuple[Command, ...]:
    commands: list[Command] = []
    i = 0
    while i < len(body):
        cmd = [body[i]]
        while cmd[-1].endswith("\\") and i + 1 < len(body):
            i += 1
            cmd.append(body[i])
        i += 1
        out: list[str] = []
        while i < len(body) and not body[i].startswith("$ "):
            out.append(body[i])
            i += 1
        blank = bool(out) and not out[-1].strip()
        while out and not out[-1].strip():
            out.pop()
        commands.append(Command(tuple(cmd), tuple(out), blank))
    return tuple(commands)


def parse(text: str) -> list[Block]:
    """The fenced blocks of a Markdown text (fences at the start of a line).

    Raises:
        ValueError: a fence is never closed, a ``not run``/``file`` comment is not followed by
            a block it applies to, or a block has ``$ `` lines after a first line that is
            not a command.
    """
    lines = text.split("\n")
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            if NOT_RUN.match(lines[i].strip()) or FILE_MARK.match(lines[i].strip()):
                j = i + 1
                while j < len(lines) and not lines[j].strip():
                    j += 1
                if j == len(lines) or not FENCE.match(lines[j]):
                    raise ValueError(f"line {i + 1}: {lines[i].strip()!r} is not followed "
                                     "by a fenced block")
            i += 1
            continue
        fence = m.group(1)
        end = i + 1
        while end < len(lines) and not (lines[end].startswith(fence[0] * len(fence))
                                        and not lines[end].strip(fence[0]).strip()):
            end += 1
        if end == len(lines):
            raise ValueError(f"line {i + 1}: the fenced block is never closed")
        body = tuple(lines[i + 1:end])
        marker = _marker(lines, i)
        not_run = NOT_RUN.match(marker)
        file = FILE_MARK.match(marker)
        if body and body[0].startswith("$ "):
            blocks.append(Block(i, end, body, _commands(body),
                                not_run=not_run.group(1) if not_run else None))
            if not_run and not not_run.group(1):
                raise ValueError(f"line {i}: 'not run' needs a reason")
        else:
            stray = next((k for k, t in enumerate(body) if t.startswith("$ ")), None)
            if stray is not None:
                raise ValueError(f"line {i + 2 + stray}: a '$ ' command in a block that "
                                 "does not start with one")
            if not_run:
                raise ValueError(f"line {i}: 'not run' before a block with no '$ ' command")
            blocks.append(Block(i, end, body, file=file.group(1) if file else None))
        i = end + 1
    return blocks


def environment(work: Path) -> dict[str, str]:
    """The fixed environment the examples run in, for the working directory ``work``."""
    data = work / ".data"
    env = {key: os.environ[key] for key in ("HOME", "PYTHONPATH", "TMPDIR", "MPLCONFIGDIR",
                                            "VIRTUAL_ENV") if key in os.environ}
    env.update({
        "PATH": os.pathsep.join([str(Path(sys.executable).parent),
                                 os.environ.get("PATH", os.defpath)]),
        "COLUMNS": str(WIDTH), "LINES": "50", "NO_COLOR": "1", "TERM": "dumb",
        "TZ": "UTC", "LC_ALL": "C.UTF-8", "PYTHONHASHSEED": "0", "PYTHONUNBUFFERED": "1",
        "PYTHONIOENCODING": "utf-8", "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg",
        "XDG_DATA_HOME": str(data), "XDG_CACHE_HOME": str(data / "cache"),
        "GUTSKIT_DB": str(data / "gutskit.db"),
    })
    return env


def normalise(text: str) -> str:
    """``text`` with :data:`NORMALISE` applied and trailing spaces and blank lines removed."""
    for pattern, replacement, _reason in NORMALISE:
        text = pattern.sub(replacement, text)
    return "\n".join(line.rstrip() for line in text.rstrip().split("\n")).strip("\n")


def run_command(command: Command, work: Path) -> tuple[str, ...]:
    """Run one command in ``work``; its output lines (normalised).

    Raises:
        subprocess.TimeoutExpired: the command ran longer than :data:`TIMEOUT` seconds.
    """
    cat = CAT.match(command.shell)
    if cat and not (work / cat.group(1)).exists():
        (work / cat.group(1)).write_text("\n".join(command.output) + "\n", encoding="utf-8")
    result = subprocess.run(["bash", "-c", command.shell], cwd=work, env=environment(work),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, timeout=TIMEOUT, check=False)
    text = normalise(result.stdout.decode("utf-8", errors="replace"))
    return tuple(text.split("\n")) if text else ()


def expected(command: Command, actual: tuple[str, ...]) -> tuple[str, ...]:
    """What the document should show for ``command`` given its real output ``actual``.

    A prefix output (last line ``...``) keeps its length: the first lines of ``actual``, then
    ``...`` if anything was left out.
    """
    if not command.prefix:
        return actual
    shown = len(command.output) - 1
    return actual[:shown] + (("...",) if len(actual) > shown else ())


def _shown(command: Command) -> tuple[str, ...]:
    return tuple(line.rstrip() for line in command.output)


def run_document(doc: Path, work: Path) -> tuple[str, list[Mismatch]]:
    """Run every example of ``doc`` in the empty directory ``work``.

    Returns the document's text with every example's output replaced by the real one, and
    the examples whose output differs from the document.
    """
    text = doc.read_text(encoding="utf-8")
    lines = text.split("\n")
    shutil.copytree(ROOT / "docs", work / "docs")
    mismatches: list[Mismatch] = []
    new_lines = list(lines)
    replacements: list[tuple[Block, list[str]]] = []
    for block in parse(text):
        if block.file is not None:
            (work / block.file).write_text("\n".join(block.body) + "\n", encoding="utf-8")
            continue
        if not block.commands or block.not_run is not None:
            continue
        body: list[str] = []
        line = block.start + 2
        for command in block.commands:
            want = expected(command, run_command(command, work))
            if want != _shown(command):
                diff = "\n".join(difflib.unified_diff(
                    _shown(command), want, "document", "real output", lineterm=""))
                mismatches.append(Mismatch(doc, line, command.shell, diff))
            body += [*command.lines, *want] + ([""] if command.blank_after else [])
            line += len(command.lines) + len(command.output) + int(command.blank_after)
        while body and not body[-1]:
            body.pop()
        replacements.append((block, body))
    for block, body in reversed(replacements):
        new_lines[block.start + 1:block.end] = body
    return "\n".join(new_lines), mismatches


def copy_back(work: Path) -> list[Path]:
    """Copy the files of ``work/docs`` that an example wrote (their bytes now differ from the
    repository's ``docs/``, from which they were copied) back into the repository, except
    the documents themselves; the paths copied."""
    copied = []
    for made in sorted((work / "docs").rglob("*")):
        target = ROOT / made.relative_to(work)
        if (made.is_file() and made.suffix != ".md" and target.is_file()
                and made.read_bytes() != target.read_bytes()):
            shutil.copyfile(made, target)
            copied.append(target)
    return copied


def examples(doc: Path) -> Iterator[Block]:
    """The example blocks of ``doc`` (run or not)."""
    return (b for b in parse(doc.read_text(encoding="utf-8")) if b.commands)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("docs", nargs="*", type=Path, help="documents (default: all)")
    parser.add_argument("--update", action="store_true",
                        help="write the real outputs into the documents")
    args = parser.parse_args(argv)
    if not (Path(sys.executable).parent / "guts").exists():
        print(f"error: no guts beside {sys.executable}: run this with the project's "
              "virtualenv, .venv/bin/python", file=sys.stderr)
        return 2
    docs = [d.resolve() for d in args.docs] or documents()
    stale = 0
    for doc in docs:
        if not any(b.not_run is None for b in examples(doc)):
            continue
        with tempfile.TemporaryDirectory(prefix="gutskit-examples-") as tmp:
            new_text, mismatches = run_document(doc, Path(tmp))
            name = doc.relative_to(ROOT) if doc.is_relative_to(ROOT) else doc
            if args.update:
                if mismatches:
                    doc.write_text(new_text, encoding="utf-8")
                for path in copy_back(Path(tmp)):
                    print(f"{path.relative_to(ROOT)}: rewritten by an example")
            for m in mismatches:
                print(f"{name}:{m.line}: $ {m.command}")
                if not args.update:
                    print(m.diff)
            print(f"{name}: {len(mismatches)} example(s) "
                  f"{'updated' if args.update else 'out of date'}" if mismatches
                  else f"{name}: up to date")
            stale += len(mismatches)
    if stale and not args.update:
        print(f"run `{UPDATE_COMMAND}` to regenerate")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
