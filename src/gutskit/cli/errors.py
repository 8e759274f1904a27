"""How the ``guts`` command reports mistakes: one line ``error: <message>`` on stderr and
exit status 2, never a traceback.

A user mistake is any :class:`~gutskit.core.errors.GutsError` (every gutskit "bad input"
error subclasses it, so nothing heavy is imported to catch them), an :class:`OSError` (a
file that cannot be read or written) or one of typer's usage errors.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import sys
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, NoReturn

import typer

from gutskit.core.errors import GutsError, quoted

__all__ = ["EXIT_INTERRUPTED", "EXIT_USER_ERROR", "USER_ERRORS", "UsageProblem", "finite",
           "given", "guard_numbers", "guard_paths", "message", "refuse_empty_environment",
           "report_error"]

EXIT_USER_ERROR = 2
"""Exit status of a user mistake."""

EXIT_INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT, as shells report it)."""


class UsageProblem(GutsError):
    """A command-line mistake found by a command (e.g. ``--preset`` with ``--rules``)."""


DB_FROM_ENVIRONMENT: ContextVar[str | None] = ContextVar("DB_FROM_ENVIRONMENT", default=None)
"""The database location when it came from ``GUTSKIT_DB`` rather than ``--db`` (set by
:func:`note_db_source`): a message about it names the variable, not the option."""


def _from_environment(ctx: Any, param: Any) -> bool:
    """Whether the value of ``param`` came from its environment variable."""
    source = ctx.get_parameter_source(param.name)
    return getattr(source, "name", "") == "ENVIRONMENT"


FROM_ENVIRONMENT: ContextVar[frozenset[str]] = ContextVar("FROM_ENVIRONMENT",
                                                          default=frozenset())
"""The options (``--loop``, ``--redis``) whose value came from their ``GUTSKIT_*``
environment variable in this command (set by :func:`refuse_empty_environment`)."""


def given(option: str, value: object) -> str:
    """How a message names the value of ``option``: as the environment variable that set
    it (``GUTSKIT_LOOP='bogus'``, when :func:`refuse_empty_environment` saw it come from
    there) or as the option typed (``--loop 'bogus'``)."""
    if option in FROM_ENVIRONMENT.get():
        return f"{_VARIABLES.get(option, option)}={value!r}"
    return f"{option} {value!r}"


_VARIABLES: dict[str, str] = {}
"""Option -> its environment variable (``--loop`` -> ``GUTSKIT_LOOP``), as the options'
callbacks met them."""

_ENVIRONMENT_WORDS = {
    "GUTSKIT_DB": ("the default database", "a database file or URL"),
    "GUTSKIT_LOOP": ("the default loop (auto)", "auto, uvloop or asyncio"),
    "GUTSKIT_REDIS": ("no Redis (one server, or --workers N with its own redis-server)",
                      "a Redis URL such as redis://10.0.0.5:6379/0"),
}
"""What the default of each ``GUTSKIT_*`` variable is and what it may be set to, in words."""


def refuse_empty_environment(ctx: Any, param: Any, value: Any) -> Any:
    """The callback of every option read from a ``GUTSKIT_*`` environment variable
    (``GUTSKIT_DB``, ``GUTSKIT_LOOP``, ``GUTSKIT_REDIS``): the variable set but empty (or
    blank) is refused, naming it, when the option is not given (click would silently take
    the default: an empty value is more likely a mistake, e.g. ``GUTSKIT_REDIS=$UNSET``);
    returns ``value`` unchanged.

    Raises:
        UsageProblem: the variable is set to nothing but spaces and the option is not given.
    """
    variable = getattr(param, "envvar", None)
    opts = [o for o in getattr(param, "opts", ()) if o.startswith("--")]
    option = max(opts, key=len) if opts else str(param.name)
    if not isinstance(variable, str):
        return value
    _VARIABLES[option] = variable
    if _from_environment(ctx, param):
        FROM_ENVIRONMENT.set(FROM_ENVIRONMENT.get() | {option})
    if ctx.get_parameter_source(param.name).name in ("COMMANDLINE", "PROMPT"):
        return value
    text = os.environ.get(variable)
    if text is not None and not text.strip():
        shown = "empty" if not text else f"blank ({text!r})"
        default, values = _ENVIRONMENT_WORDS.get(variable, ("the default", "a value"))
        raise UsageProblem(f"{variable} is set but {shown}: unset it to use {default}, or "
                           f"set it to {values} (or give {option})")
    return value


def note_db_source(ctx: Any, param: Any, value: str | None) -> str | None:
    """The ``--db`` option's callback: refuse ``GUTSKIT_DB`` set but empty
    (:func:`refuse_empty_environment`) and remember whether the value came from the
    environment (``GUTSKIT_DB``: a message about it names the variable); returns ``value``
    unchanged.

    Raises:
        UsageProblem: ``GUTSKIT_DB`` is set but empty or blank and ``--db`` is not given, or
            ``--db`` is given but blank.
    """
    refuse_empty_environment(ctx, param, value)
    if value is not None and not value.strip():
        shown = "empty" if not value else "blank"
        raise UsageProblem(f"--db {value!r} is {shown}: give a database file or URL, or "
                           "leave --db out for the default database")
    DB_FROM_ENVIRONMENT.set(value if _from_environment(ctx, param) else None)
    DB_GIVEN.set(value)
    return value


DB_GIVEN: ContextVar[str | None] = ContextVar("DB_GIVEN", default=None)
"""The database location given by ``--db`` or ``GUTSKIT_DB`` (set by :func:`note_db_source`):
an OSError about that file is reported as ``cannot open database '...'``, and a message
quoting a long one quotes it shortened (:func:`message`)."""

USER_ERRORS: tuple[type[BaseException], ...] = (GutsError, OSError)
"""Exceptions that mean "the user gave bad input": reported as ``error: <message>``,
exit 2."""

CLICK_EXCEPTION: type[Exception] = next(
    cls for cls in typer.BadParameter.__mro__ if cls.__name__ == "ClickException")
"""The base of typer's own usage errors (typer vendors click; found without importing it)."""


def message(error: BaseException) -> str:
    """The one-line message for ``error`` (an OSError names its file; a usage error points
    at ``--help``). A value typed or set in the environment is quoted at most
    :data:`ECHOED` characters long (:func:`gutskit.core.errors.quoted`): a 5000-character
    ``--db`` does not fill the terminal."""
    db = DB_GIVEN.get()
    if isinstance(error, OSError) and error.strerror:
        filename = None if error.filename is None else os.fsdecode(error.filename)
        if filename is not None and db is not None and _names_database(filename, db):
            text = f"cannot open database {db!r}: {error.strerror}"
        else:
            where = (f"{_shortened(filename)}: " if filename
                     else "standard output: " if writing_stdout(error) else "")
            text = f"{where}{error.strerror}"
    elif isinstance(error, CLICK_EXCEPTION):
        text = (_bad_value(error) or _negative_number(error)
                or str(error.format_message()))  # type: ignore[attr-defined]
        ctx = getattr(error, "ctx", None)
        if ctx is not None:
            text += _quote_hint(text, ctx) or f" (see '{ctx.command_path} --help')"
        return text or type(error).__name__
    else:
        text = str(error)
    from_env = DB_FROM_ENVIRONMENT.get()
    if from_env is not None and repr(from_env) in text:  # about GUTSKIT_DB, not --db
        text = (f"GUTSKIT_DB={quoted(from_env, ECHOED)}: "
                f"{text.replace('--db takes', 'it takes')}")
    if db is not None and len(db) > ECHOED:
        text = text.replace(repr(db), quoted(db, ECHOED))
    text = _LONG_QUOTED.sub(lambda long: quoted(long.group(1), ECHOED), text)
    return text or type(error).__name__


_EXTRA = re.compile(r"unexpected extra argument(?:\(s\)|s)? \((.*)\)$")


def _quote_hint(text: str, ctx: Any) -> str:
    """``; quote the hand: guts odds "Ah Kh Qh"`` when ``text`` is click's "unexpected extra
    argument(s) (Kh Qh)" and the extra arguments and the HAND arguments given are all cards
    (a hand typed unquoted); ``""`` otherwise. ``guts compare`` with 4 or 6 cards is shown as
    two hands of half each."""
    from gutskit.core.cards import CardError, parse_cards

    extra = _EXTRA.search(text)
    if extra is None:
        return ""
    hands = [v for p, v in ctx.params.items()
             if p in ("hand", "first", "second") and isinstance(v, str)]
    tokens = " ".join([*hands, extra.group(1)]).split()
    try:
        parse_cards(" ".join(tokens))
    except CardError:
        return ""
    if not hands or len(tokens) > 6:
        return ""
    if ctx.info_name == "compare":
        half = len(tokens) // 2
        if len(tokens) not in (4, 6):
            return ""
        typed = f'"{" ".join(tokens[:half])}" "{" ".join(tokens[half:])}"'
        return f"; quote each hand: {ctx.command_path} {typed}"
    return f'; quote the hand: {ctx.command_path} "{" ".join(tokens)}"'


ECHOED = 200
"""The most characters of a path or database location quoted in a message (a longer one
ends in ``…``): more than any path typed by hand (a temporary folder's file is ~130), far
less than a pasted 5000-character value."""


_LONG_QUOTED = re.compile(r"'([^'\\\n]{" + str(ECHOED + 1) + ",})'")
"""A value quoted in a message (``'...'``, as ``repr`` quotes it) longer than
:data:`ECHOED`: a 5000-character ``--history`` or ``FILE`` named by the reader that could
not open it (``cannot read hand history '...'``)."""


def _shortened(text: str) -> str:
    """``text`` cut to :data:`ECHOED` characters (``xxx…``), unquoted."""
    return text if len(text) <= ECHOED else text[:ECHOED - 1] + "…"


def _names_database(filename: str, db: str) -> bool:
    """Whether an OSError's ``filename`` is the database file ``db`` (as given or with
    ``~`` expanded) or a folder of its path."""
    from pathlib import Path

    for form in {db, str(Path(db).expanduser())}:
        if form == filename or form.startswith(filename.rstrip("/") + "/"):
            return True
    return False


def writing_stdout(error: BaseException) -> bool:
    """Whether ``error`` was raised writing standard output (``guts rules > /dev/full``, a
    full disk behind ``>``): a frame of its traceback was writing a stream that is
    ``sys.stdout``, its buffer, a wrapper of it (rich's console, :class:`TrimmedLines`) or
    another stream on its file descriptor (click's)."""
    stdout = sys.stdout
    targets = {id(stdout), id(getattr(stdout, "buffer", None))}
    try:
        descriptor: int | None = stdout.fileno()
    except (OSError, ValueError, AttributeError):  # a test runner's stream has none
        descriptor = None
    frame = error.__traceback__
    while frame is not None:
        local = frame.tb_frame.f_locals
        for name in ("self", "file", "stream"):
            value = local.get(name)
            for candidate in (value, getattr(value, "file", None),
                              getattr(value, "_stream", None)):
                if candidate is None:
                    continue
                if id(candidate) in targets:
                    return True
                if descriptor is not None and callable(getattr(candidate, "fileno", None)):
                    try:
                        if candidate.fileno() == descriptor:
                            return True
                    except (OSError, ValueError, TypeError):
                        pass
        frame = frame.tb_next
    return False


_LINE_BREAKS = re.compile(r"[ \t]*[\r\n]+\s*")
"""Line breaks (and the indentation after them) inside a message: one space each."""

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Control characters other than tab and line breaks: shown escaped (``\\x1b``), so a
value quoted as typed (``--rule ante=<ESC>[2J``) never reaches the terminal raw."""


def _escaped(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def _drop_stdout() -> None:
    """Point standard output's file descriptor at ``os.devnull``: what it still buffers
    cannot be written, and Python's own flush at exit would fail again (exit status 120,
    instead of the error's 2)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)


def report_error(error: BaseException) -> NoReturn:
    """Print ``error: <message>`` on stderr, on one line (a database driver's message may
    run over several: they are joined), and exit with status 2."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):  # standard output is the problem (a full disk, /dev/full)
        _drop_stdout()
    text = _CONTROL.sub(_escaped, _LINE_BREAKS.sub(" ", message(error).strip()))
    line = f"error: {text}\n"
    # A message may quote text that the terminal cannot encode (a lone surrogate, say).
    encoding = getattr(sys.stderr, "encoding", None) or "utf-8"
    sys.stderr.write(line.encode(encoding, "backslashreplace").decode(encoding))
    sys.stderr.flush()
    raise SystemExit(EXIT_USER_ERROR)


_BOUNDS = {"greater_than_equal": ("ge", "at least"), "less_than_equal": ("le", "at most"),
           "greater_than": ("gt", "more than"), "less_than": ("lt", "less than")}
"""pydantic's range error types (typer checks an option's ``min`` / ``max`` with pydantic)
-> the bound's key in the error's ``ctx`` and its words."""


_SHOWN = 40
"""The most characters of a bad option value quoted in a message."""


def _allowed(param: Any) -> str | None:
    """An option's range in words (``from 0.0 to 1.0``, ``at least 0.0``), or ``None``."""
    low, high = getattr(param, "min", None), getattr(param, "max", None)
    if low is not None and high is not None:
        return f"from {low} to {high}"
    if low is not None:
        return f"at least {low}"
    return None if high is None else f"at most {high}"


def finite(ctx: Any, param: Any, value: float | None) -> float | None:
    """The callback of every float option: an infinite value (``inf``, ``1e999``, which
    passes a lower bound; ``nan`` is refused by the bound itself, :func:`_bad_value`) is
    refused in the same words as ``nan``: ``--bot-delay inf is not a finite number: it must
    be at least 0.0 (see 'guts serve --help')``.

    Raises:
        UsageProblem: ``value`` is infinite.
    """
    if value is None or math.isfinite(value):
        return value
    opts = [o for o in getattr(param, "opts", ()) if o.startswith("--")]
    name = max(opts, key=len) if opts else str(getattr(param, "name", "value"))
    allowed = _allowed(param)
    must = f": it must be {allowed}" if allowed else ""
    raise UsageProblem(f"{name} {value} is not a finite number{must} "
                       f"(see '{ctx.command_path} --help')")


_NUMBER_TYPES = (int, float, int | None, float | None, list[int], list[int] | None)
"""The annotations of number options (``--players``, ``--rounds``, ``--alpha``...)."""


def guard_numbers(command: Any) -> None:
    """Make every number option and argument of the click ``command`` refuse digits with
    underscores: Python's ``int()`` (and pydantic) read ``1_0`` as 10, a typo read as a
    number (fresh8: ``--players 1_0``). Idempotent.

    The check runs before typer converts the value: a value with ``_`` raises
    :class:`UsageProblem` (``--players '1_0' is not a number: write digits only, without
    '_' (e.g. 10)``).
    """
    _guard(command, _is_number, _no_underscore, "_gutskit_guarded")


def guard_paths(command: Any) -> None:
    """Make every file-path option and argument of the click ``command`` (and its
    subcommands) refuse an empty or blank value: ``Path("")`` is the folder ``.``, so
    ``--history ''`` was reported as "cannot read '.': Is a directory", never naming the
    option. Idempotent; the one check of every path (fresh user, session 11).

    The check runs before typer converts the value: an empty or blank one raises
    :class:`UsageProblem` (``--plot '': the path is empty: give a file name, or leave
    --plot out (see 'guts analyze --help')``; an argument: ``FILE '': the path is empty:
    give a file name (see 'guts referee --help')``).
    """
    _guard(command, _is_path, _not_empty, "_gutskit_path_guarded")


def _guard(command: Any, wanted: Callable[[Any], bool],
           check: Callable[[Any, Any, str], None], flag: str) -> None:
    """Run ``check(param, ctx, item)`` on each string given to every parameter of the click
    ``command`` and its subcommands for which ``wanted(param)``, before the parameter's
    own processing (``flag``: the attribute marking a parameter done, so it is idempotent)."""
    for param in getattr(command, "params", ()):
        if not wanted(param) or getattr(param, flag, False):
            continue
        param.process_value = _checked(param, param.process_value, check)
        setattr(param, flag, True)
    for sub in getattr(command, "commands", {}).values():
        _guard(sub, wanted, check, flag)


def _checked(param: Any, original: Any, check: Callable[[Any, Any, str], None]) -> Any:
    """``param.process_value`` with ``check`` of every string item first."""

    def process_value(ctx: Any, value: Any) -> Any:
        for item in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(item, str):
                check(param, ctx, item)
        return original(ctx, value)

    return process_value


def _is_number(param: Any) -> bool:
    """Whether ``param`` takes a number (its annotation is one of :data:`_NUMBER_TYPES`)."""
    descriptor = getattr(param, "type_descriptor", None)
    return getattr(descriptor, "annotation", None) in _NUMBER_TYPES


def _no_underscore(param: Any, ctx: Any, item: str) -> None:
    """The check of :func:`guard_numbers`."""
    if "_" in item:
        opts = [o for o in getattr(param, "opts", ()) if o.startswith("--")]
        name = max(opts, key=len) if opts else str(param.name).upper()
        raise UsageProblem(f"{name} {quoted(item, 40)} is not a number: write digits "
                           "only, without '_' (e.g. 1000, not 1_000)")


def _is_path(param: Any) -> bool:
    """Whether ``param`` takes a file path: its annotation is :class:`~pathlib.Path` (or
    ``Path | None``), or its metavar is ``FILE`` (``guts referee FILE``, read as text for
    ``-``)."""
    from pathlib import Path

    descriptor = getattr(param, "type_descriptor", None)
    if getattr(descriptor, "annotation", None) in (Path, Path | None):
        return True
    return str(getattr(param, "metavar", None) or "").strip("[]") == "FILE"


def _not_empty(param: Any, ctx: Any, item: str) -> None:
    """The check of :func:`guard_paths`."""
    if item.strip():
        return
    opts = [o for o in getattr(param, "opts", ()) if o.startswith("--")]
    if opts:
        name = max(opts, key=len)
        hint = f"give a file name, or leave {name} out"
    else:
        metavar = str(getattr(param, "metavar", None) or param.name)
        name, hint = metavar.strip("[]. ").upper(), "give a file name"
    raise UsageProblem(f"{name} {item!r}: the path is empty: {hint} "
                       f"(see '{ctx.command_path} --help')")


_NEGATIVE = re.compile(r"-[0-9][0-9_.]*")
"""A negative number, which typer's parser reads as an option (``guts history -1``)."""


def _negative_number(error: BaseException) -> str | None:
    """typer's "No such option: -1" in gutskit's words, when the "option" is a negative
    number given as a value (``-1 is not an option of 'guts history': a value that starts
    with '-' is read as an option; to give it anyway, put '--' before it: guts history --
    -1``), or ``None``."""
    name = getattr(error, "option_name", None)
    ctx = getattr(error, "ctx", None)
    if not isinstance(name, str) or ctx is None or not _NEGATIVE.fullmatch(name):
        return None
    return (f"{name} is not an option of '{ctx.command_path}': a value that starts with '-' "
            f"is read as an option; to give it anyway, put '--' before it: "
            f"{ctx.command_path} -- {name}")


def _bad_value(error: BaseException) -> str | None:
    """A bad option value in gutskit's words, naming the option and the value typed
    (``--players 99 is out of range: it must be from 2 to 10``, ``--alpha nan is not a
    number: it must be from 0.0 to 1.0``, ``--rounds 'x' is not a whole number``; an
    option with one bound: ``it must be at least 1``), or ``None`` when ``error`` is not
    one (typer raises its ``BadParameter`` from pydantic's ``ValidationError``, which holds
    the value and the bound)."""
    cause = error.__cause__
    param = getattr(error, "param", None)
    errors = getattr(cause, "errors", None)
    if param is None or not callable(errors):
        return None
    try:
        first = errors()[0]
        value, kind, bounds = first["input"], first["type"], first.get("ctx") or {}
    except (IndexError, KeyError, TypeError):
        return None
    opts = [o for o in getattr(param, "opts", ()) if o.startswith("--")]
    metavar = str(getattr(param, "metavar", None) or getattr(param, "name", None) or "value")
    name = max(opts, key=len) if opts else metavar.strip("[]. ").upper()  # an argument
    text = str(value)
    if len(text) > _SHOWN:  # a 5000-digit number is quoted by its start and its length
        value = text = f"{text[:_SHOWN]}… ({len(text)} characters)"
    if kind in _BOUNDS and _BOUNDS[kind][0] in bounds:
        key, words = _BOUNDS[kind]
        allowed = _allowed(param) or f"{words} {bounds[key]}"
        if text.strip().lower() in ("nan", "+nan", "-nan"):  # compares false with any bound
            return f"{name} {text} is not a number: it must be {allowed}"
        return f"{name} {text} is out of range: it must be {allowed}"
    if kind == "int_parsing_size":  # more digits than int() reads (4300)
        return f"{name} {text} is out of range: it has too many digits"
    if kind == "int_parsing":
        return f"{name} {value!r} is not a whole number"
    if kind == "float_parsing":
        return f"{name} {value!r} is not a number"
    if kind == "value_error":  # a parser's ValueError (--rules ''): its message as it is
        return f"{name} {value!r}: {str(first.get('msg', '')).removeprefix('Value error, ')}"
    text = str(first.get("msg", "")).replace("Input should be", "must be")
    return f"{name} {value!r}: {text[:1].lower()}{text[1:]}"

