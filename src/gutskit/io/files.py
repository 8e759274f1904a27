"""Files a person names, read and written by the shell (the core only parses the text it
is given: :func:`gutskit.core.rules.rules_from_toml`,
:func:`gutskit.core.history.parse_lines`).

:func:`read_text` is the one way gutskit reads a file a person names (a rules file, a
referee file, a hand history, a fairness.json) or its standard input: at most
:data:`MAX_FILE_BYTES`, so a huge file or an endless stream (``/dev/zero``, ``yes |``) is
refused with one line instead of filling memory. The bound is gutskit's sanity bound, not a
rule of the game.

>>> size_words(64 * 2**20), size_words(10)
('64 MiB', '10 bytes')
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from gutskit.core.errors import GutsError
from gutskit.core.events import Event
from gutskit.core.history import (
    HistoryError,
    Record,
    event_from_dict,
    event_to_dict,
    parse_lines,
    record_from_dict,
)
from gutskit.core.rules import Rules, RulesError, rules_from_toml

__all__ = ["MAX_FILE_BYTES", "FileTooLargeError", "dump_history", "load_history",
           "load_records", "load_rules", "read_text", "size_words"]

MAX_FILE_BYTES = 64 * 2**20
"""The largest file or standard input gutskit reads (bytes): 64 MiB, far above any hand
history a session writes."""


class FileTooLargeError(GutsError):
    """A file (or standard input) holds more than :data:`MAX_FILE_BYTES` bytes."""


def size_words(size: int) -> str:
    """``size`` bytes in words: ``"64 MiB"`` when a whole number of MiB, else ``"N bytes"``."""
    mib = 2**20
    return f"{size // mib} MiB" if size and size % mib == 0 else f"{size} bytes"


def read_text(path: str | Path | None) -> str:
    """The UTF-8 text of the file ``path`` (``None``: standard input), read up to
    :data:`MAX_FILE_BYTES` + 1 bytes and never more.

    Raises:
        FileTooLargeError: more than :data:`MAX_FILE_BYTES` bytes (the message names the
            file, or ``standard input``, and the limit).
        OSError: the file cannot be opened or read (as :meth:`pathlib.Path.read_text`).
        UnicodeDecodeError: the bytes are not UTF-8.
    """
    limit = MAX_FILE_BYTES
    if path is None:
        data = sys.stdin.buffer.read(limit + 1)
        where = "standard input"
    else:
        with Path(path).open("rb") as file:
            data = file.read(limit + 1)
        where = repr(str(path))
    if len(data) > limit:
        raise FileTooLargeError(f"{where} is larger than {size_words(limit)}: gutskit reads "
                                f"files of at most {size_words(limit)} ({limit} bytes)")
    return data.decode("utf-8")


def load_rules(path: str | Path) -> Rules:
    """Rules from a TOML file of ``key = value`` house rules
    (:func:`gutskit.core.rules.rules_from_toml` of its text).

    Raises:
        RulesError: the file cannot be read or is not UTF-8, or its text is refused by
            :func:`~gutskit.core.rules.rules_from_toml`; the message names the file.
        FileTooLargeError: the file holds more than :data:`MAX_FILE_BYTES` bytes.
    """
    file = Path(path)
    try:
        text = read_text(file)
    except OSError as error:
        raise RulesError(f"cannot read rules file {str(file)!r}: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise RulesError(f"rules file {str(file)!r} is not UTF-8 text (byte "
                         f"{error.start + 1} is {error.object[error.start]:#04x})") from None
    return rules_from_toml(text, str(file))


def dump_history(events: Iterable[Record], path: str | Path) -> None:
    """Write ``events`` as JSON Lines to ``path``."""
    with Path(path).open("w", encoding="utf-8") as handle:
        for event in events:
            handle.write(json.dumps(event_to_dict(event)) + "\n")


def load_history(path: str | Path) -> list[Event]:
    """Read a full JSON Lines hand history (no redactions: :func:`load_records` reads a
    viewer's copy).

    Raises:
        HistoryError: the file cannot be read or a line is not a valid event (the message
            names the line).
    """
    return _load(path, event_from_dict)


def load_records(path: str | Path) -> list[Record]:
    """Read any JSON Lines hand history gutskit writes: a full one, or a seat's or a
    spectator's copy with its redactions (the server's ``history.jsonl``).

    Raises:
        HistoryError: the file cannot be read or a line is not a valid record (the message
            names the line).
    """
    return _load(path, record_from_dict)


def _load(path: str | Path, read: Callable[[Any], Any]) -> list[Any]:
    try:
        text = read_text(path)
    except OSError as error:
        raise HistoryError(f"cannot read hand history {str(path)!r}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise HistoryError(f"hand history {str(path)!r} is not a UTF-8 text file") from None
    return parse_lines(text, str(path), read)
