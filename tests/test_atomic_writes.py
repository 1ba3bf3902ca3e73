"""The one atomic writer of the project (replays, new rule files, reports): it replaces only a
regular file, writes through a symbolic link and never leaves a temporary file behind.

Every test writes inside its own tmp_path; /dev/null is only ever looked at, never written.
"""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest

from rulesengine import atomic, replay


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_new_file_and_a_regular_file_are_written(tmp_path):
    target = tmp_path / "out.txt"
    atomic.write_text(target, "one\n")
    target.chmod(0o640)
    atomic.write_text(target, "two\n")
    assert target.read_text() == "two\n" and stat.S_IMODE(target.stat().st_mode) == 0o640
    assert names(tmp_path) == ["out.txt"]


def test_a_pipe_is_refused_and_kept(tmp_path):
    pipe = tmp_path / "pipe.txt"
    os.mkfifo(pipe)
    with pytest.raises(atomic.NotWritable, match=r"it is a pipe \(FIFO\), not a regular file"):
        atomic.write_text(pipe, "text\n")
    assert stat.S_ISFIFO(pipe.lstat().st_mode) and names(tmp_path) == ["pipe.txt"]


def test_a_folder_is_refused(tmp_path):
    (tmp_path / "folder").mkdir()
    with pytest.raises(atomic.NotWritable, match="it is a folder"):
        atomic.write_text(tmp_path / "folder", "text\n")
    assert (tmp_path / "folder").is_dir() and names(tmp_path) == ["folder"]


def test_a_socket_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a socket's path is short: bind it by a relative name
    with socket.socket(socket.AF_UNIX) as server:
        server.bind("s.sock")
        with pytest.raises(atomic.NotWritable, match="it is a socket"):
            atomic.write_text("s.sock", "text\n")
        assert stat.S_ISSOCK(os.lstat("s.sock").st_mode)


def test_a_device_is_refused_when_checked():
    if not stat.S_ISCHR(os.stat(os.devnull).st_mode):
        pytest.skip(f"{os.devnull} is not a device here")
    with pytest.raises(atomic.NotWritable, match="it is a character device"):
        atomic.target(os.devnull)  # only checked: nothing is written


def test_a_symbolic_link_is_written_through_and_kept(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    real = other / "real.txt"
    real.write_text("old\n")
    real.chmod(0o600)
    link = tmp_path / "link.txt"
    link.symlink_to(Path("other") / "real.txt")
    atomic.write_text(link, "new\n")
    assert link.is_symlink() and os.readlink(link) == str(Path("other") / "real.txt")
    assert real.read_text() == "new\n" and stat.S_IMODE(real.stat().st_mode) == 0o600
    assert names(tmp_path) == ["link.txt", "other"] and names(other) == ["real.txt"]  # no temporary file


def test_a_chain_of_links_is_followed_to_its_file(tmp_path):
    (tmp_path / "real.txt").write_text("old\n")
    (tmp_path / "one.txt").symlink_to("real.txt")
    (tmp_path / "two.txt").symlink_to("one.txt")
    assert atomic.target(tmp_path / "two.txt") == (tmp_path / "real.txt").resolve()
    atomic.write_text(tmp_path / "two.txt", "new\n")
    assert (tmp_path / "real.txt").read_text() == "new\n" and (tmp_path / "two.txt").is_symlink()


def test_a_link_that_leads_to_no_file_is_refused(tmp_path):
    link = tmp_path / "dangling.txt"
    link.symlink_to("missing.txt")
    for replace in (True, False):
        with pytest.raises(atomic.NotWritable, match="a symbolic link to missing.txt, which does not exist"):
            atomic.write_text(link, "text\n", replace=replace)
    assert link.is_symlink() and names(tmp_path) == ["dangling.txt"]


def test_a_link_to_a_pipe_or_a_folder_is_refused(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "folder").mkdir()
    (tmp_path / "to-pipe").symlink_to("pipe")
    (tmp_path / "to-folder").symlink_to("folder")
    with pytest.raises(atomic.NotWritable, match=r"a symbolic link to pipe, a pipe \(FIFO\), not a regular file"):
        atomic.write_text(tmp_path / "to-pipe", "text\n")
    with pytest.raises(atomic.NotWritable, match="a symbolic link to folder, a folder"):
        atomic.write_text(tmp_path / "to-folder", "text\n")
    assert stat.S_ISFIFO((tmp_path / "pipe").lstat().st_mode) and (tmp_path / "to-pipe").is_symlink()


def test_a_loop_of_links_is_refused(tmp_path):
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    with pytest.raises(atomic.NotWritable, match="a loop of symbolic links"):
        atomic.write_text(tmp_path / "a", "text\n")
    assert names(tmp_path) == ["a", "b"]


def test_without_replace_nothing_that_exists_is_replaced(tmp_path):
    target = tmp_path / "new.txt"
    atomic.write_text(target, "first\n", replace=False)
    with pytest.raises(FileExistsError):
        atomic.write_text(target, "second\n", replace=False)
    (tmp_path / "link.txt").symlink_to("new.txt")
    with pytest.raises(FileExistsError):
        atomic.write_text(tmp_path / "link.txt", "second\n", replace=False)
    assert target.read_text() == "first\n" and names(tmp_path) == ["link.txt", "new.txt"]


def test_without_replace_a_file_made_meanwhile_is_kept(tmp_path, monkeypatch):
    target = tmp_path / "new.txt"
    checked = atomic.target

    def made_meanwhile(path, **kwargs):
        found = checked(path, **kwargs)
        target.write_text("someone else's\n")
        return found

    monkeypatch.setattr(atomic, "target", made_meanwhile)
    with pytest.raises(FileExistsError):
        atomic.write_text(target, "mine\n", replace=False)
    assert target.read_text() == "someone else's\n" and names(tmp_path) == ["new.txt"]


def test_a_file_where_a_folder_should_be_is_named(tmp_path):
    (tmp_path / "notes.txt").write_text("")
    with pytest.raises(atomic.NotWritable, match=r"notes.txt is not a folder"):
        atomic.write_text(tmp_path / "notes.txt" / "deeper" / "out.txt", "text\n")
    with pytest.raises(atomic.NotWritable, match=r"the folder .*missing does not exist"):
        atomic.write_text(tmp_path / "missing" / "out.txt", "text\n")
    assert names(tmp_path) == ["notes.txt"]


def test_a_name_ending_in_a_slash_names_a_folder(tmp_path):
    with pytest.raises(atomic.NotWritable, match="names a folder, not a file"):
        atomic.write_text(f"{tmp_path}/newdir/", "text\n")
    assert names(tmp_path) == []


def test_a_long_name_leaves_room_for_the_temporary_file(tmp_path):
    target = tmp_path / ("x" * 250 + ".txt")
    atomic.write_text(target, "text\n")
    assert names(tmp_path) == [target.name]


def test_every_writer_is_protected_a_replay_too(tmp_path):
    pipe = tmp_path / "match.json"
    os.mkfifo(pipe)
    with pytest.raises(replay.ReplayError, match=r"cannot write .*match.json: it is a pipe \(FIFO\)"):
        replay.write(pipe, {"actions": []})
    assert stat.S_ISFIFO(pipe.lstat().st_mode)
