"""The one way gutskit reads a file a person names (a rules file, a referee file, a hand
history, a fairness.json) or its standard input: at most :data:`MAX_FILE_BYTES`, so a huge
file or an endless stream (``/dev/zero``, ``yes |``) is refused with one line instead of
filling memory. The bound is gutskit's sanity bound, not a rule of the game.

>>> size_words(64 * 2**20), size_words(10)
('64 MiB', '10 bytes')
"""

from __future__ import annotations

import sys
from pathlib import Path

from gutskit.core.errors import GutsError

__all__ = ["MAX_FILE_BYTES", "FileTooLargeError", "read_text", "size_words"]

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
