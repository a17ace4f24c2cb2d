"""The lock of something a run writes: a lock file created atomically (O_EXCL) holding the owner's pid and host,
and flocked while the run lasts.

A second run on the same thing is refused (LockBusy); a lock whose run is over (its pid no longer runs on this host,
or the file was left empty long ago) is taken over with a note on stderr, never shared. classify-board's results files
(ltn_sudoku/cli/common.py: output_lock, OUT.lock) and training run folders (ltn_sudoku/logic/training/runtime.py: RUN/train.lock)
hold such a lock. It lives in io, below both, and raises its own errors: each caller words them for its users.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows has no fcntl: a stale lock is then told by its pid and host alone
    fcntl = None  # type: ignore[assignment]

STALE_EMPTY_SECONDS = 10.0  # a lock file still empty after this long was left by a run killed as it created it


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


def _owner_text() -> bytes:
    return (json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                        "since": time.strftime("%Y-%m-%d %H:%M:%S")}) + "\n").encode()


def _owner(fd: int) -> dict[str, object] | None:
    """The lock's owner as written, or None while it is being written (empty or cut)."""
    try:
        owner = json.loads(os.pread(fd, 4096, 0).decode())
    except (OSError, ValueError):
        return None
    return owner if isinstance(owner, dict) and isinstance(owner.get("pid"), int) else None


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
    """The open file is still the one at `path` (not removed, nor replaced by another run's lock)."""
    try:
        return os.path.samestat(os.fstat(fd), os.stat(path))
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
    LockError: it cannot be created or opened (`label` names what is being locked in the message)."""
    for _ in range(100):  # another try only when the lock changed hands in between
        try:
            path.parent.mkdir(parents=True, exist_ok=True)  # as the locked thing's own folder is made
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            pass
        except OSError as e:
            raise LockError(f"{label}: cannot create the lock {path} ({e.strerror or e})") from None
        else:
            flock(fd, wait=True)  # waits only while another run looks at the new, still empty file
            os.write(fd, _owner_text())
            return fd
        try:
            fd = os.open(path, os.O_RDWR)
        except FileNotFoundError:
            continue  # released in between
        except OSError as e:
            raise LockError(f"{label}: cannot open the lock {path} ({e.strerror or e})") from None
        if not flock(fd, wait=False):
            owner = _owner(fd)
            os.close(fd)
            raise LockBusy(path, owner)
        if not still_at(fd, path):  # released (and maybe taken again) before this flock
            os.close(fd)
            continue
        owner = _owner(fd)
        why = _stale(fd, owner)
        if why is None:
            os.close(fd)
            raise LockBusy(path, owner)
        os.ftruncate(fd, 0)
        os.pwrite(fd, _owner_text(), 0)
        print(f"note: took over the stale lock {path}: {why}", file=sys.stderr)
        return fd
    raise LockError(f"{label}: the lock {path} keeps changing hands: is another run starting?")


def release(fd: int, path: Path) -> None:
    """Remove the lock file (when it is still this process's) and close it."""
    if still_at(fd, path):
        path.unlink(missing_ok=True)
    os.close(fd)


def holder(path: Path) -> dict[str, object] | None:
    """The owner of a live lock at `path` (pid, host, since; {} while it is being written), or None when there is none
    or its run is over, judged as `acquire` judges a stale lock. Only looks: never flocks, changes or removes it."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        owner = _owner(fd)
        if owner is None:
            return {} if time.time() - os.fstat(fd).st_mtime <= STALE_EMPTY_SECONDS else None
        return None if _gone(owner) else owner
    finally:
        os.close(fd)
