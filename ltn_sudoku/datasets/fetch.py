"""Download the registry's sets into the data home, checked, atomically and resumably, with pooch.

pooch (fatiando/pooch: small, well kept, made for exactly this) does the bookkeeping: it downloads to a temporary file
beside the target, checks it against the known hash (``sha256:``/``md5:``) and only then moves it into place, so a
stopped or corrupt download never looks complete; a file already there with the right hash is not downloaded again.
Two pieces are added here:

- ``ResumableDownloader``, a pooch downloader that streams into ``<target>.part`` beside the target and, when a
  ``.part`` is already there (an earlier transfer was cut), asks only for the rest with an HTTP ``Range`` request. When
  the transfer ends the ``.part`` becomes pooch's temporary file, so a ``.part`` whose hash fails is deleted with it.
  A progress bar (tqdm) is drawn on stderr when stderr is a terminal, never into a log.
- ``MakeFile``, a pooch processor for the sets whose download is not yet the data-home file (line ends, gzip, a zip):
  it writes the result to a temporary file, checks its SHA-256 and moves it into place.

Limits (issue 49): a transfer stops at the file's ``transfer_cap`` (its registered size, or a stated multiple for a
transformed download: ltn_sudoku/datasets/registry.py), and an announced ``Content-Length`` above it is refused before
any byte is read; a zip's CSV is unpacked up to ``UNZIP_RATIO`` times the zip and at most the registered size; an
answer that is a web page (``Content-Type: text/html``, a login page instead of a zip) is refused and nothing of it
kept, nor is a download that a transform cannot read; a ``Content-Encoding`` the server chose is decoded (its
``Content-Length`` counts the encoded bytes), and such a transfer is not resumed; a transfer stopped by a limit or a
full disk leaves no ``.part``.

pooch, requests and tqdm are imported inside the functions, so that importing this module (and ``ltn_sudoku``) stays
cheap. Every failure a user can meet (no network, an HTTP error, a cut transfer, a bad hash, no public address) is a
``FetchError`` with a one-line message that says what to do next.
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import gzip
import json
import logging
import os
import sys
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from ltn_sudoku.datasets.registry import (
    CHECKSUMS_FILE,
    GZIP_LINES,
    LF,
    LINES,
    UNZIP_CSV,
    UNZIP_RATIO,
    DataFile,
    DataSet,
)
from ltn_sudoku.io import strict_json
from ltn_sudoku.io.digest import file_sha256, stream_sha256
from ltn_sudoku.io.locks import flock
from ltn_sudoku.io.writers import AtomicFile, atomic_write_text
from ltn_sudoku.paths import DATA_DIR, data_home

CHUNK = 1 << 16  # bytes per read and write: downloads and hashing stream, whatever the file's size
TIMEOUT_S = 30.0  # to connect, and between two reads


class FetchError(Exception):
    """A download that cannot be done or does not check out; the message is one line."""


class TooLarge(FetchError):
    """More bytes came (or were announced) than the file's limit; the .part is removed."""


class TransferCut(Exception):
    """The connection ended before the whole file came; the ``.part`` stays for the next fetch to resume."""

    def __init__(self, received: int, total: int | None) -> None:
        self.received, self.total = received, total
        super().__init__(f"transfer cut after {received:,} of {total:,} bytes" if total is not None
                         else f"transfer cut after {received:,} bytes")


# ----------------------------------------------------------------------------------------------------------------------
# Hashes and the trust-on-first-use records


def content_sha256_of(path: Path) -> str | None:
    """SHA-256 of a gzip file's uncompressed content (None when it is not gzip)."""
    try:
        with gzip.open(path, "rb") as fh:
            return stream_sha256(fh)  # type: ignore[arg-type]  # GzipFile reads bytes as a BinaryIO does
    except (OSError, EOFError):
        return None


def _records_shape(data: object) -> str | None:
    """Why a checksum-records file's content is not {relative path: {"sha256": 64 hex digits, ...}}, or None."""
    if not isinstance(data, dict):
        return f"a JSON {type(data).__name__}, not an object of records"
    for key, record in data.items():
        sha = record.get("sha256") if isinstance(record, dict) else None
        if not (isinstance(sha, str) and len(sha) == 64 and all(c in "0123456789abcdef" for c in sha)):
            return f"the record of {key!r} holds no SHA-256"
    return None


def load_records(home: Path) -> dict[str, dict[str, Any]]:
    """The SHA-256 recorded at each trust-on-first-use file's first download, by relative path; FetchError (one
    line) when the file cannot be read or has another shape (hand-edited, or another program's)."""
    path = home / CHECKSUMS_FILE
    again = "move it away and fetch again to record them anew (trust on first use)"
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise FetchError(f"{path}: unreadable checksum records ({_one_line(e)}); {again}") from None
    wrong = _records_shape(data)
    if wrong is not None:
        raise FetchError(f"{path}: checksum records of the wrong shape ({wrong}); {again}")
    return data


def save_record(home: Path, f: DataFile, sha256: str, url: str) -> None:
    records = load_records(home)
    records[f.path] = {"sha256": sha256, "size": (home / f.path).stat().st_size, "url": url,
                       "recorded": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    home.mkdir(parents=True, exist_ok=True)
    atomic_write_text(home / CHECKSUMS_FILE, strict_json.dumps(records, indent=1, sort_keys=True) + "\n")


def expected_sha256(f: DataFile, records: dict[str, dict[str, Any]]) -> str | None:
    """The SHA-256 a data-home file must have: the registry's, else the one recorded at first download."""
    if f.sha256:
        return f.sha256
    record = records.get(f.path)
    return str(record["sha256"]) if record else None


def check_file(f: DataFile, path: Path, records: dict[str, dict[str, Any]]) -> str:
    """``verified`` (the registry's hash, or for gzip its content's), ``recorded`` (matches the first download's),
    ``unrecorded`` (trust on first use, nothing recorded yet) or ``MISMATCH``."""
    expected = expected_sha256(f, records)
    if expected is None:
        return "unrecorded"
    if file_sha256(path) == expected:
        return "verified" if f.sha256 else "recorded"
    if f.content_sha256 and content_sha256_of(path) == f.content_sha256:
        return "verified"  # the same rows, gzipped by another zlib
    return "MISMATCH"


# ----------------------------------------------------------------------------------------------------------------------
# What the data home holds


@dataclass(frozen=True)
class FileState:
    file: DataFile
    path: Path | None  # where it is: the data home, or the copy shipped under data/; None when missing
    shipped: bool  # found under data/ (shipped with the package), not in the data home
    status: str  # missing, present, shipped, size differs, or with verify: verified, recorded, unrecorded, MISMATCH
    partial: int | None  # bytes of a cut download waiting to be resumed (.part), if any


def file_state(f: DataFile, home: Path, verify: bool = False,
               records: dict[str, dict[str, Any]] | None = None) -> FileState:
    part = home / (f.path + ".part") if f.transform is None else home / (f.download_path + ".part")
    partial = part.stat().st_size if part.exists() else None
    for path, shipped in ((home / f.path, False), (DATA_DIR / f.path, True)):
        if path.is_file():
            break
    else:
        return FileState(f, None, False, "missing", partial)
    if verify:
        status = check_file(f, path, load_records(home) if records is None else records)
    elif f.size is not None and not f.size_approx and path.stat().st_size != f.size:
        status = "size differs"
    else:
        status = "shipped" if shipped else "present"
    return FileState(f, path, shipped, status, partial)


def set_states(ds: DataSet, home: Path, verify: bool = False) -> list[FileState]:
    records = load_records(home)
    return [file_state(f, home, verify, records) for f in ds.files]


GOOD = frozenset({"present", "shipped", "verified", "recorded", "unrecorded"})


def summary(states: list[FileState]) -> str:
    """One word for a set: present, missing, partial (some files), or the worst file status."""
    bad = [s.status for s in states if s.status not in GOOD and s.status != "missing"]
    if bad:
        return bad[0]
    missing = sum(s.status == "missing" for s in states)
    if missing == len(states):
        return "missing"
    if missing:
        return f"partial {len(states) - missing}/{len(states)}"
    statuses = {s.status for s in states}
    for word in ("unrecorded", "recorded", "verified", "shipped"):
        if statuses == {word} or (word == "verified" and statuses <= {"verified", "recorded"}):
            return word
    return "present"


# ----------------------------------------------------------------------------------------------------------------------
# pooch's two plug-ins: the downloader and the processor


WEB_PAGE_TYPES = ("text/html", "application/xhtml+xml")  # what no data file of the registry is served as


def _encoded(headers: Any) -> bool:
    """Whether the server encoded the body (gzip, deflate, ...) although identity was asked for."""
    return headers.get("Content-Encoding", "identity").strip().lower() not in ("", "identity")


def _lock(fh: IO[bytes], path: Path) -> None:
    """Refuse a second fetch of the same file while one runs (two writers would mix their bytes in the .part)."""
    if not flock(fh.fileno(), wait=False):
        raise FetchError(f"{path}: another fetch of this file is running")


class ResumableDownloader:
    """A pooch downloader (``downloader(url, output_file, pooch)``) that resumes a cut transfer.

    Bytes stream into ``part`` (``<target>.part``, beside the target); a ``part`` already there is continued with
    ``Range: bytes=<size>-`` (a server that answers 200 instead of 206 sends the whole file, which then replaces it).
    When every byte has come, ``part`` is renamed to pooch's temporary file, which pooch checks and moves into place.
    """

    def __init__(self, part: Path, progress: bool, desc: str = "", chunk_size: int = CHUNK,
                 timeout: float = TIMEOUT_S, cap: int | None = None) -> None:
        self.part, self.progress, self.desc = part, progress, desc
        self.chunk_size, self.timeout, self.cap = chunk_size, timeout, cap
        self.resumed_from = 0  # bytes kept from an earlier transfer
        self.received = 0  # bytes received by this call

    def __call__(self, url: str, output_file: str, pooch: object = None, check_only: bool = False) -> bool | None:
        import requests

        headers = {"Accept-Encoding": "identity", "User-Agent": "ltn-sudoku-data-fetch"}
        if check_only:
            with requests.head(url, headers=headers, allow_redirects=True, timeout=self.timeout) as r:
                return r.status_code == 200
        offset = self.part.stat().st_size if self.part.exists() else 0
        if offset:
            headers["Range"] = f"bytes={offset}-"
        with requests.get(url, headers=headers, stream=True, timeout=self.timeout) as r:  # nothing written before
            if offset and r.status_code == 416:  # nothing left to send: the .part is whole (the hash decides)
                self.resumed_from = offset
            else:
                r.raise_for_status()
                encoded = _encoded(r.headers)
                self._check_answer(r.headers, offset, encoded, r.status_code)
                self.part.parent.mkdir(parents=True, exist_ok=True)
                with open(self.part, "ab") as fh:
                    _lock(fh, self.part)
                    if fh.seek(0, os.SEEK_END) != offset:
                        raise FetchError(f"{self.part}: changed while this fetch started; fetch again")
                    if offset and r.status_code != 206:  # Range ignored: the whole file comes again
                        fh.truncate(0)
                        offset = 0
                    self.resumed_from = offset
                    length = r.headers.get("Content-Length")
                    # an encoded body's Content-Length counts the encoded bytes, not the file's
                    total = offset + int(length) if length is not None and length.isdigit() and not encoded else None
                    try:
                        self._stream(r, fh, offset, total)
                    except requests.exceptions.RequestException as e:  # (an OSError too: caught first)
                        fh.flush()
                        if encoded:  # decoded bytes cannot be resumed with a Range of encoded ones
                            self._drop(fh)
                        raise TransferCut(fh.tell(), total) from e
                    except (TooLarge, OSError):
                        self._drop(fh)  # a .part past the limit, or on a full disk, is never kept to grow again
                        raise
                    fh.flush()
                    if total is not None and fh.tell() != total:
                        raise TransferCut(fh.tell(), total)
        os.replace(self.part, output_file)
        return None

    def _check_answer(self, headers: Any, offset: int, encoded: bool, status: int) -> None:
        """Refuse, before a byte is written, an answer that cannot be the file: a web page, a length above the
        limit, an encoded rest of a resumed transfer."""
        kind = headers.get("Content-Type", "").split(";")[0].strip().lower()
        if kind in WEB_PAGE_TYPES:
            raise FetchError(f"{self.desc}: the address answered with a web page ({kind}), not the file (a login "
                             "or error page?); nothing kept: see `ltn-sudoku data list --files` for where it comes "
                             "from, or place a copy downloaded by hand")
        if encoded and offset and status == 206:
            self.part.unlink(missing_ok=True)
            raise FetchError(f"{self.desc}: the server sent the rest of a cut transfer encoded "
                             f"({headers.get('Content-Encoding')}); the .part is removed: fetch again")
        length = headers.get("Content-Length")
        if self.cap is not None and length is not None and length.isdigit() and not encoded \
                and offset + int(length) > self.cap:
            raise TooLarge(f"{self.desc}: the address announces {offset + int(length):,} bytes, more than the "
                           f"{self.cap:,} registered for this file; nothing read: the address may serve another "
                           "file now (report it)")

    def _stream(self, r: Any, fh: IO[bytes], offset: int, total: int | None) -> None:
        """The body into the .part, stopping at the limit (TooLarge)."""
        from tqdm import tqdm

        bar = tqdm(total=total, initial=offset, unit="B", unit_scale=True, unit_divisor=1024, desc=self.desc,
                   file=sys.stderr, disable=not self.progress, leave=False)
        try:
            for chunk in r.iter_content(self.chunk_size):  # decoded when the server chose a Content-Encoding
                if self.cap is not None and fh.tell() + len(chunk) > self.cap:
                    raise TooLarge(f"{self.desc}: the address sent more than the {self.cap:,} bytes registered for "
                                   "this file; stopped there and nothing kept: the address may serve another file "
                                   "now (report it)")
                fh.write(chunk)
                self.received += len(chunk)
                bar.update(len(chunk))
        finally:
            bar.close()

    def _drop(self, fh: IO[bytes]) -> None:
        fh.truncate(0)
        self.part.unlink(missing_ok=True)


def _lines(src: IO[bytes], header: str | None, drop_blank: bool = True) -> Iterator[bytes]:
    """LF line ends (CRLF made LF), blank lines dropped unless asked not to, a header first if asked; other bytes as
    they are."""
    if header is not None:
        yield header.encode() + b"\n"
    for line in src:
        ended = line.endswith(b"\n")
        line = line[:-2] if line.endswith(b"\r\n") else line.rstrip(b"\n")
        if line.strip() or not drop_blank:
            yield line + (b"\n" if ended or drop_blank else b"")


def _unzip(src: IO[bytes], out: IO[bytes], f: DataFile, packed: int) -> None:
    """A zip member into `out`, stopping (FetchError) past UNZIP_RATIO times the zip's size or the file's
    registered size (a zip bomb: 306 KB holding 300 MB)."""
    limit = min(UNZIP_RATIO * packed, f.unzip_cap or UNZIP_RATIO * packed)
    written = 0
    while block := src.read(CHUNK * 16):
        written += len(block)
        if written > limit:
            raise FetchError(f"{f.path}: the downloaded zip unpacks to more than {limit:,} bytes (at most "
                             f"{UNZIP_RATIO}x its {packed:,} bytes and the {f.unzip_cap or 0:,} registered): not the "
                             "expected file (a zip bomb?); nothing kept")
        out.write(block)


class MakeFile:
    """A pooch processor: turn the checked download into the data-home file, check it, move it into place."""

    def __init__(self, f: DataFile, target: Path, expected: str | None) -> None:
        self.f, self.target, self.expected = f, target, expected
        self.sha256: str | None = None  # of the file made

    def _write(self, download: str, out: IO[bytes]) -> None:
        f = self.f
        if f.transform in (LF, LINES):
            with open(download, "rb") as src:
                out.writelines(_lines(src, f.header, drop_blank=f.transform == LINES))
        elif f.transform == GZIP_LINES:
            with open(download, "rb") as src, gzip.GzipFile(filename="", mode="wb", fileobj=out,
                                                           compresslevel=9, mtime=0) as gz:
                gz.writelines(_lines(src, f.header))
        elif f.transform == UNZIP_CSV:
            try:
                with zipfile.ZipFile(download) as zf:
                    members = [m for m in zf.infolist() if m.filename.lower().endswith(".csv")]
                    if not members:
                        raise FetchError(f"{f.path}: the downloaded zip holds no .csv file")
                    with zf.open(max(members, key=lambda m: m.file_size)) as src:
                        _unzip(src, out, f, os.path.getsize(download))
            except zipfile.BadZipFile:
                raise FetchError(f"{f.path}: the download is not a zip archive (a login page? see `data list "
                                 f"--files` for where to put a zip downloaded by hand)") from None
        else:
            raise FetchError(f"{f.path}: unknown transform {f.transform!r} in the registry")

    def __call__(self, fname: str, action: str, pooch: object = None) -> str:
        self.target.parent.mkdir(parents=True, exist_ok=True)
        with AtomicFile(self.target, "wb") as made:  # the package's one writer: no commit, no file
            assert made.file is not None and made.temp is not None
            try:
                self._write(fname, made.file)
            except FetchError:  # a download no transform can read is never kept (else every later fetch fails on it)
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(fname)
                raise
            made.file.flush()
            self.sha256 = file_sha256(made.temp)
            if self.expected is not None and self.sha256 != self.expected:
                content = content_sha256_of(made.temp) if self.f.content_sha256 else None
                if content is None or content != self.f.content_sha256:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(fname)  # else the next fetch would make the same wrong file from it again
                    raise FetchError(f"{self.f.path}: the file made from the download does not match its SHA-256 "
                                     f"(expected {self.expected[:16]}..., got {self.sha256[:16]}...); nothing kept")
            made.commit()
        return str(self.target)


# ----------------------------------------------------------------------------------------------------------------------
# Fetching


@contextlib.contextmanager
def _quiet_pooch() -> Iterator[None]:
    """pooch logs each download at INFO on stderr; the command reports in its own words."""
    import pooch

    logger = pooch.get_logger()
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


def _host(url: str) -> str:
    return urlsplit(url).netloc or url


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text if len(text) <= 300 else text[:297] + "..."


def _prune(folder: Path, home: Path) -> None:
    """Remove the empty folders of .downloads/ left by a finished transform."""
    while folder != home and home in folder.parents:
        try:
            folder.rmdir()
        except OSError:  # not empty (another download waits there)
            return
        folder = folder.parent


def _fetch_from(f: DataFile, url: str, home: Path, progress: bool, records: dict[str, dict[str, Any]]) -> str:
    """Download one file from one address; returns the SHA-256 of the data-home file when it computed one."""
    import pooch
    import requests

    target = home / f.path
    if f.transform is None:
        dest = target
        recorded = expected_sha256(f, records)
        known = f.pooch_hash or (f"sha256:{recorded}" if recorded else None)
        processor = None
    else:
        dest = home / f.download_path
        known = f.pooch_hash
        processor = MakeFile(f, target, expected_sha256(f, records))
    part = dest.with_name(dest.name + ".part")
    downloader = ResumableDownloader(part, progress, desc=f.path, cap=f.transfer_cap)
    try:
        with _quiet_pooch():
            pooch.retrieve(url, known_hash=known, fname=dest.name, path=dest.parent, processor=processor,
                           downloader=downloader)
    except TransferCut as e:
        raise FetchError(f"{f.path}: {e} from {_host(url)}; {part.name} kept: fetch again to resume") from None
    except requests.exceptions.HTTPError as e:
        status = e.response.status_code if e.response is not None else "error"
        hint = (f" (an account may be needed: download it by hand to {f.download_path} in the data home and fetch "
                f"again)" if status in (401, 403) and f.transform == UNZIP_CSV else "")
        raise FetchError(f"{f.path}: HTTP {status} from {url}{hint}") from None
    except requests.exceptions.ConnectionError as e:
        raise FetchError(f"{f.path}: cannot reach {_host(url)} (no network, or the server is down): "
                         f"{type(e).__name__}") from None
    except requests.exceptions.Timeout:
        raise FetchError(f"{f.path}: {_host(url)} did not answer within {TIMEOUT_S:.0f} s") from None
    except requests.exceptions.RequestException as e:
        raise FetchError(f"{f.path}: download from {_host(url)} failed: {_one_line(e)}") from None
    except ValueError as e:  # pooch: the download's hash is not the known one (pooch deleted it)
        if "does not match" in str(e):
            raise FetchError(f"{f.path}: the download from {_host(url)} does not match its checksum ({known}); "
                             f"deleted, nothing kept") from None
        raise FetchError(f"{f.path}: {_one_line(e)}") from None
    except OSError as e:
        hint = "; free some space and fetch again (nothing was kept)" if e.errno == errno.ENOSPC else ""
        raise FetchError(f"{f.path}: {e.strerror or e}: {e.filename or dest}{hint}") from None
    if processor is not None:
        with contextlib.suppress(FileNotFoundError):
            dest.unlink()  # the raw download has served; the checked file is in place
        _prune(dest.parent, home)
        return processor.sha256 or file_sha256(target)
    return (known or "")[len("sha256:"):] if (known or "").startswith("sha256:") else file_sha256(target)


def fetch_file(f: DataFile, home: Path, progress: bool) -> str:
    """Put one file in the data home; returns what happened, in words (``FetchError`` when it cannot)."""
    records = load_records(home)
    target = home / f.path
    redo = ""
    if target.is_file():
        status = check_file(f, target, records)
        if status in ("verified", "recorded"):
            return f"present   {f.path} ({status})"
        if status == "unrecorded":
            save_record(home, f, file_sha256(target), "(already in the data home)")
            return f"present   {f.path} (SHA-256 recorded now: trust on first use)"
        redo = " (the copy there did not match: replaced)"
    if not f.urls:
        raise FetchError(f"{f.path}: no public address (see `ltn-sudoku data list --files`): it can only be placed "
                         f"by hand")
    errors: list[FetchError] = []
    for url in f.urls:
        try:
            sha = _fetch_from(f, url, home, progress, records)
            break
        except FetchError as e:
            errors.append(e)
    else:
        more = f" ({len(errors) - 1} other address(es) failed too)" if len(errors) > 1 else ""
        raise FetchError(f"{errors[0]}{more}")
    if f.tofu and f.path not in records:
        save_record(home, f, sha, url)
        return f"fetched   {f.path} from {_host(url)}{redo} (SHA-256 recorded: trust on first use)"
    return f"fetched   {f.path} from {_host(url)}{redo} (checked: {f.check})"


def fetch_sets(sets: tuple[DataSet, ...] | list[DataSet], home: Path | None = None, progress: bool | None = None,
               report: Callable[[str], None] = print) -> None:
    """Fetch every file of every set, in order; stops at the first ``FetchError``."""
    home = data_home() if home is None else home
    show = sys.stderr.isatty() if progress is None else progress
    for ds in sets:
        if not ds.fetchable:
            raise FetchError(f"{ds.name}: no public address: {ds.origin}")
        for f in ds.files:
            report(f"{ds.name}: {fetch_file(f, home, show)}")
