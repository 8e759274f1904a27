"""The test set-up's own folders (tests/conftest.py): a test process's folder is removed
by the next run once its process has ended without removing it (``kill -9``), and only
then; the commands the tests start make their temporary files in it."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from conftest import ROOT_PREFIX, make_root, remove_stale_roots


def test_a_dead_process_folder_is_removed_and_a_live_ones_kept(tmp_path: Path) -> None:
    mine = make_root(tmp_path)  # this process: running
    (mine / "tmp").mkdir()
    # a folder made by a test process that was killed: its pid has ended
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
        text=True, check=True)
    dead = tmp_path / f"{ROOT_PREFIX}dead"
    (dead / "tmp" / "gutskit-x").mkdir(parents=True)
    (dead / "tmp" / "gutskit-x" / "redis.sock").write_text("")
    (dead / "owner").write_text(f"{int(child.stdout)} -\n")
    # this process's pid, but another start time: the pid was taken again, the owner ended
    reused = tmp_path / f"{ROOT_PREFIX}reused"
    reused.mkdir()
    (reused / "owner").write_text(f"{os.getpid()} 1\n")
    unowned = tmp_path / f"{ROOT_PREFIX}data-old"  # no owner file: not ours to judge
    unowned.mkdir()
    other = tmp_path / "gutskit-abc"  # another prefix: never looked at
    other.mkdir()
    expected = [dead]
    if Path("/proc/self/stat").exists():  # (start times are read from /proc)
        expected.append(reused)
    assert remove_stale_roots(tmp_path) == sorted(expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        {mine.name, unowned.name, other.name, reused.name} - {p.name for p in expected})
    assert (mine / "owner").read_text() != ""


def test_started_commands_make_their_temporary_files_in_the_test_folder() -> None:
    made = subprocess.run([sys.executable, "-c", "import tempfile; print(tempfile.gettempdir())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    assert made == os.environ["TMPDIR"]
    folder = Path(made).parent
    assert folder.name.startswith(ROOT_PREFIX) and (folder / "owner").is_file()
    assert Path(tempfile.gettempdir()) != Path(made)  # this process keeps the system's
