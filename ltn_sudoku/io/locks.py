"""The lock of something a run writes: a lock file created atomically (O_EXCL) holding the owner's pid and host,
and flocked while the run lasts.

A second run on the same thing is refused (LockBusy); a lock whose run is over (its pid no longer runs on this host,
or the file was left empty long ago) is taken over with a note on stderr, never shared. A lock file is only ever
created (O_EXCL) or removed, never rewritten in place: a stale one is removed and created again. It is opened without
following symbolic links (O_NOFOLLOW) and must be a plain file of one link holding a lock record; anything else at its
name (a link to another file, a hard link, a file of other content) is refused, never taken over, so a lock cannot be
turned into a way to overwrite another file. A lock that cannot be written (a full disk) is removed again. classify-board's results files
(ltn_sudoku/cli/common.py: output_lock, OUT.lock) and training run folders (ltn_sudoku/logic/training/runtime.py: RUN/train.lock)
hold such a lock. It lives in io, below both, and raises its own errors: each caller words them for its users.
"""

from __future__ import annotations

import errno
import json
import os
import socket
import stat
import sys
import time
from pathlib import Path

from ltn_sudoku.io import strict_json

try:
    import fcntl
except ImportError:  # Windows has no fcntl: a stale lock is then told by its pid and host alone
    fcntl = None  # type: ignore[assignment]

STALE_EMPTY_SECONDS = 10.0  # a lock file still empty after this long was left by a run killed as it created it
RECORD_BYTES = 4096  # a lock record is one short JSON line; more is no lock record
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # never open the file a symbolic link at the lock's name points to
MAX_PID = 2**22  # above any pid a system hands out (Linux's pid_max is at most 2**22)


class LockError(Exception):
    """The lock cannot be taken: its message names what was being locked (the caller's `label`) and the lock file."""


class LockBusy(LockError):
    """Another live run holds the lock: `path`, and its `owner` as written (pid, host, since), None while the owner is
    still writing it."""

    def __init__(self, path: Path, owner: dict[str, object] | None) -> None:
        self.path, self.owner = path, owner
        super().__init__(f"{path} is held by {owner_text(owner)}")


def owner_text(owner: dict[str, object] | None) -> str:
    """The owner of a lock in words: 'another run (pid P on HOST, since T)'."""
    return ("another run (its lock is being written)" if owner is None else
            f"another run (pid {owner['pid']} on {owner.get('host')}, since {owner.get('since')})")


def remove_hint(path: Path, owner: dict[str, object] | None) -> str:
    """What to do about a lock held by a run that may be gone: a lock of another host cannot be judged from here,
    so the file to remove is named."""
    if owner and owner.get("host") != socket.gethostname():
        return f"if that run on {owner.get('host')} is no longer running (stopped, or its node gone), remove {path}"
    return f"remove {path} if that run is not running"


def _refuse_foreign(path: Path, label: str, why: str) -> LockError:
    return LockError(f"{label}: {path} is not a lock file of this program ({why}): it is left as it is; move it "
                     f"away (or choose another output) and run again")


def _check_plain(fd: int, path: Path, label: str) -> None:
    """The open lock file is a plain file of one link (not a hard link to another file): else LockError."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise _refuse_foreign(path, label, "not a plain file")
    if info.st_nlink != 1:
        raise _refuse_foreign(path, label, f"a file with {info.st_nlink} names: a hard link")


def _owner_text() -> bytes:
    return (strict_json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                        "since": time.strftime("%Y-%m-%d %H:%M:%S")}) + "\n").encode()


class NotARecord(Exception):
    """The lock file holds something that is no lock record (hand-made, or another file): never taken over."""


def _valid(owner: object) -> bool:
    """A lock record as _owner_text writes it: a pid a system can hand out, a host and a time as text."""
    return (isinstance(owner, dict) and type(owner.get("pid")) is int and 0 < owner["pid"] <= MAX_PID
            and isinstance(owner.get("host"), str) and isinstance(owner.get("since", ""), str))


def _owner(fd: int) -> dict[str, object] | None:
    """The lock's owner as written, or None while it is being written (empty). NotARecord: content that is no
    lock record (a record being written is one short write of a whole line, so a cut one is no record either)."""
    try:
        data = os.pread(fd, RECORD_BYTES + 1, 0)
    except OSError as e:
        raise NotARecord(f"unreadable: {e.strerror or e}") from None
    if not data:
        return None
    try:
        owner = json.loads(data.decode())
    except (UnicodeDecodeError, ValueError):
        raise NotARecord("its content is not a lock record") from None
    if len(data) > RECORD_BYTES or not _valid(owner):
        raise NotARecord("its content is not a lock record") from None
    return owner


def alive(pid: int) -> bool:
    """Whether process `pid` of this host still runs (signal 0 only asks; another user's process exists too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. PermissionError: it exists, under another user
        return True
    return True


def _gone(owner: dict[str, object]) -> bool:
    """The owner's run is over: its pid no longer runs on this host (another host's pid cannot be asked from here)."""
    return owner.get("host") == socket.gethostname() and not alive(int(owner["pid"]))  # type: ignore[call-overload]


def _open_existing(path: Path, flags: int) -> int:
    """Open the lock file at `path` itself, never what a symbolic link there points to (ELOOP: LockError)."""
    if path.is_symlink():  # also where O_NOFOLLOW does not exist
        raise OSError(errno.ELOOP, "a symbolic link")
    return os.open(path, flags | NOFOLLOW)


def _create(path: Path, label: str) -> int | None:
    """Create the lock file with this process's record, flocked; None when a file is already there. A record that
    cannot be written whole (a full disk) removes the file again: LockError, nothing left."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)  # as the locked thing's own folder is made
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o644)
    except FileExistsError:
        return None
    except OSError as e:
        raise LockError(f"{label}: cannot create the lock {path} ({e.strerror or e})") from None
    flock(fd, wait=True)  # waits only while another run looks at the new, still empty file
    record = _owner_text()
    try:
        if os.write(fd, record) != len(record):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    except OSError as e:
        path.unlink(missing_ok=True)
        os.close(fd)
        raise LockError(f"{label}: cannot write the lock {path} ({e.strerror or e}); nothing was left: free "
                        "space and run again") from None
    return fd


def flock(fd: int, wait: bool) -> bool:
    """An exclusive flock on an open file (released by the system when its process dies, however it dies); False
    when another process holds it and `wait` is off."""
    if fcntl is None:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        return False
    except OSError:  # a file system without flock (some network mounts): the pid and host alone decide
        pass
    return True


def still_at(fd: int, path: Path) -> bool:
    """The open file is still the one at `path` (not removed, nor replaced by another run's lock or by a link)."""
    try:
        return os.path.samestat(os.fstat(fd), os.lstat(path))
    except OSError:
        return False


def _stale(fd: int, owner: dict[str, object] | None) -> str | None:
    """Why the lock whose flock this process just took is stale (its run is over), or None while it may run: the owner
    pid is no longer running on this host, or the file was left empty long ago. A lock of another host is never
    taken over (its pid cannot be asked from here)."""
    if owner is None:
        age = time.time() - os.fstat(fd).st_mtime
        return f"left empty {age:.0f} s ago" if age > STALE_EMPTY_SECONDS else None
    if not _gone(owner):
        return None
    return f"left by pid {owner['pid']} (since {owner.get('since')}), no longer running on this host"


def acquire(path: Path, label: str) -> int:
    """The open, flocked lock file `path`, holding this process's pid and host. LockBusy: a live run holds it;
    LockError: it cannot be created or opened, or something that is no lock is at its name (`label` names what is
    being locked in the message)."""
    for _ in range(100):  # another try only when the lock changed hands in between
        fd = _create(path, label)
        if fd is not None:
            return fd
        try:
            fd = _open_existing(path, os.O_RDONLY)
        except FileNotFoundError:
            continue  # released in between
        except OSError as e:
            if e.errno == errno.ELOOP:
                raise _refuse_foreign(path, label, "a symbolic link") from None
            raise LockError(f"{label}: cannot open the lock {path} ({e.strerror or e})") from None
        try:
            _check_plain(fd, path, label)
            if not flock(fd, wait=False):
                try:
                    owner = _owner(fd)
                except NotARecord:
                    owner = None
                raise LockBusy(path, owner)
            if not still_at(fd, path):  # released (and maybe taken again) before this flock
                continue
            try:
                owner = _owner(fd)
            except NotARecord as e:
                raise _refuse_foreign(path, label, str(e)) from None
            why = _stale(fd, owner)
            if why is None:
                raise LockBusy(path, owner)
            path.unlink()  # under its flock: removed, never rewritten; a new one is created on the next turn
            print(f"note: took over the stale lock {path}: {why}", file=sys.stderr)
        finally:
            os.close(fd)
    raise LockError(f"{label}: the lock {path} keeps changing hands: is another run starting?")


def release(fd: int, path: Path) -> None:
    """Remove the lock file (when it is still this process's) and close it."""
    if still_at(fd, path):
        path.unlink(missing_ok=True)
    os.close(fd)


def foreign(path: Path, label: str) -> LockError | None:
    """The refusal `acquire` would give for what lies at the lock's name when it is no lock of this program (a link,
    not a plain file, content that is no lock record), or None (no file, or a lock record). Only looks."""
    if path.is_symlink():
        return _refuse_foreign(path, label, "a symbolic link")
    try:
        fd = _open_existing(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        _check_plain(fd, path, label)
        _owner(fd)
    except LockError as e:
        return e
    except NotARecord as e:
        return _refuse_foreign(path, label, str(e))
    finally:
        os.close(fd)
    return None


def holder(path: Path) -> dict[str, object] | None:
    """The owner of a live lock at `path` (pid, host, since; {} while it is being written), or None when there is none
    or its run is over, judged as `acquire` judges a stale lock. Only looks: never flocks, changes or removes it."""
    try:
        fd = _open_existing(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        owner = _owner(fd)
        if owner is None:
            return {} if time.time() - os.fstat(fd).st_mtime <= STALE_EMPTY_SECONDS else None
        return None if _gone(owner) else owner
    except NotARecord:
        return None  # no lock of a run: the run that goes on refuses it when it takes the lock (acquire)
    finally:
        os.close(fd)
