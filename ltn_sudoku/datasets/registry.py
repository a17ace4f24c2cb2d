"""The one table of the full data sets: what each set is, where it comes from, what it may be used for (licence),
where it lies in the data home, and how its bytes are checked.

Each set is one or more files. For each file the registry gives its relative path in the data home (the layout
`ltn-sudoku data list` shows), its address(es) (tried in order), its size and its SHA-256 as it lies in the data home,
and, where the download is not byte for byte that file, the transform that makes it and the hash of the download.

How a file is checked (``DataFile.check``, shown by `ltn-sudoku data list --files`):

- ``sha256``: the SHA-256 of the data-home file is known in advance and the download is that file byte for byte; pooch
  checks the download against it before it is moved into place.
- ``source+sha256``: the download is transformed (line ends, blank lines, gzip, an added header); pooch checks the
  download against its own known hash (``sha256:`` or ``md5:``), and the transformed file is checked against the
  data-home SHA-256 before it is moved into place. For gzip files the SHA-256 of the uncompressed content is checked
  as well, so that a zlib that compresses differently still passes on the same rows.
- ``output-sha256``: the download's hash is not known in advance (no snapshot of the address could be read), the
  transformed file's SHA-256 is; a download that normalises to other bytes is refused.
- ``tofu``: no hash is known in advance (the Kaggle originals, which Kaggle may re-pack). The SHA-256 of the file is
  recorded at the first download (trust on first use) in ``.ltn_sudoku_checksums.json`` in the data home and checked
  on later fetches and by ``data list --verify``.
- ``none``: no public address (measured for this project); listed so that ``data list`` shows them, never downloaded.

Every transfer has a limit (``DataFile.transfer_cap``): a download that is the file stops at the file's registered
size; a transformed one at a stated multiple of it (TRANSFER_RATIO: the line ends and blank lines a text transform
removes, the gzip a GZIP_LINES transform adds, a zip no larger than its CSV). A zip's CSV is unpacked up to
UNZIP_RATIO times the zip's size and at most the registered size (with UNZIP_SLACK for the estimated Kaggle sizes).

The SHA-256 values were computed from the project's development copy of the sets and the byte identity with each
address was confirmed on a snapshot of the repository named in the address (the git blob of that path at that
commit), except where ``DataSet.verification`` says otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

RAW = "https://raw.githubusercontent.com"
CHECKSUMS_FILE = ".ltn_sudoku_checksums.json"  # trust-on-first-use records, in the data home
DOWNLOADS_DIR = ".downloads"  # raw downloads awaiting a transform, in the data home

# Transforms (DataFile.transform): how a download becomes the data-home file.
LF = "lf"  # CRLF -> LF, nothing else
LINES = "lines"  # CRLF -> LF, blank lines dropped, a final LF
GZIP_LINES = "gzip-lines"  # LINES, then gzip level 9 with no name and mtime 0 (`gzip -n -9`-like, Python's header)
UNZIP_CSV = "unzip-csv"  # the largest .csv member of a zip archive, as is
TRANSFORMS = (LF, LINES, GZIP_LINES, UNZIP_CSV)
# The most bytes a download may have, per byte of the data-home file (DataFile.transfer_cap): the download is the file
# (1); a text with CRLF ends and blank lines (LF, LINES: 4); the plain rows a gzip file is made from (Sudoku rows
# gzip about 2.4:1, GZIP_LINES: 8); a zip, never larger than the CSV it holds (UNZIP_CSV: 1).
TRANSFER_RATIO: dict[str | None, int] = {None: 1, LF: 4, LINES: 4, GZIP_LINES: 8, UNZIP_CSV: 1}
TRANSFER_SLACK = 1 << 20  # bytes a transformed download may have beyond its ratio (headers, a short file's overhead)
UNZIP_RATIO = 20  # at most so many bytes of CSV per byte of zip (Kaggle's CSVs pack about 2.5:1; a zip bomb 1000:1)
UNZIP_SLACK = 1.25  # an unzipped CSV of an estimated size (size_approx) may exceed it by a quarter


@dataclass(frozen=True)
class DataFile:
    """One file of a set, as it lies in the data home."""

    path: str  # relative to the data home, with forward slashes
    urls: tuple[str, ...]  # addresses tried in order (mirrors of the same bytes); () = no public address
    size: int | None  # bytes in the data home; None when not known in advance
    sha256: str | None  # of the data-home file; None = trust on first use (tofu must then be True)
    source_hash: str | None = None  # pooch's known_hash for a transformed download ("sha256:..." or "md5:...")
    transform: str | None = None  # None: the download is the file; else one of TRANSFORMS
    header: str | None = None  # a header line the transform puts first (a source without one)
    content_sha256: str | None = None  # for .gz files: SHA-256 of the uncompressed content
    tofu: bool = False  # no hash known in advance: recorded at first download, checked afterwards
    size_approx: bool = False  # size is an estimate (Kaggle originals)

    @property
    def check(self) -> str:
        """How the file is checked: sha256, source+sha256, output-sha256, tofu or none (see the module docstring)."""
        if not self.urls:
            return "none"
        if self.tofu:
            return "tofu"
        if self.transform is None:
            return "sha256"
        return "source+sha256" if self.source_hash else "output-sha256"

    @property
    def transfer_cap(self) -> int | None:
        """The most bytes a download of this file may have (None: no size registered, no address to fetch): the
        registered size itself when the download is the file, else a stated multiple of it (TRANSFER_RATIO)."""
        if self.size is None:
            return None
        if self.transform is None and not self.size_approx:
            return self.size
        return self.size * TRANSFER_RATIO[self.transform] + TRANSFER_SLACK

    @property
    def unzip_cap(self) -> int | None:
        """The most bytes the CSV unpacked from this file's zip may have: its registered size (a quarter more when it
        is an estimate)."""
        if self.size is None:
            return None
        return int(self.size * UNZIP_SLACK) if self.size_approx else self.size

    @property
    def download_path(self) -> str:
        """Where a download that needs a transform waits, relative to the data home (kept until the transform ends)."""
        return f"{DOWNLOADS_DIR}/{self.path}" + (".zip" if self.transform == UNZIP_CSV else ".src")

    @property
    def pooch_hash(self) -> str | None:
        """The hash pooch checks the download against (None: pooch checks nothing)."""
        if self.transform is None:
            return f"sha256:{self.sha256}" if self.sha256 else None
        return self.source_hash


@dataclass(frozen=True)
class DataSet:
    """A named set: `ltn-sudoku data fetch NAME` downloads all its files."""

    name: str
    description: str  # one line
    licence: str  # what the sources say (or that they say nothing)
    files: tuple[DataFile, ...]
    origin: str  # where the files come from (repository, commit, original source)
    verification: str  # what was confirmed, and how
    group: str = ""  # a second name that fetches several sets at once (e.g. tdoku)
    in_all: bool = True  # fetched by `data fetch --all` (False: the multi-GB Kaggle originals)

    @property
    def size(self) -> int:
        return sum(f.size or 0 for f in self.files)

    @property
    def size_approx(self) -> bool:
        return any(f.size is None or f.size_approx for f in self.files)

    @property
    def fetchable(self) -> bool:
        return all(f.urls for f in self.files)


def _gh(repo: str, commit: str, path: str) -> str:
    return f"{RAW}/{repo}/{commit}/{path}"


# ----------------------------------------------------------------------------------------------------------------------
# Sources, pinned to the commit whose blob was compared with the development copy.

_HODOKU_PY = "alexdej/hodoku-py"
_HODOKU_PY_SDM = "c3772676390a983d5ac271962931e591ed7109d8"  # 2026-03-06: tests/testdata/*.sdm (LF versions)
_HODOKU_PY_LIB = "aadb71d5c85a1acc5fc0df93781a8dd8b2090f8f"  # 2026-03-09: reglib-1.3.txt and exemplars-1.0.txt
_TDOKU_COPY = "balmerdx/sudoku_pytorch"  # the files of tdoku's data.zip, committed unpacked
_TDOKU_COPY_COMMIT = "772077fccc4d4b45f3783f4e11ec176ba83f6bb9"
_GENERALIZED = "allankassio/generalized-sudoku-solver"
_GENERALIZED_COMMIT = "7aebade74dd406b809488752b41027c1e33f81ab"
_GENERALIZED_FIRST = "ashishkhiani/Sudoku"  # where the same files were first published (2019)
_GENERALIZED_FIRST_COMMIT = "573b702818e9a5d3b40f26f873ba219964305543"
_EXCHANGE = "grantm/sudoku-exchange-puzzle-bank"
_EXCHANGE_COMMIT = "41f52cf11612136722ad07b9597353fcbdd6d930"  # 2020-06-25; the 2021 version is a larger file
_MNIST_MIRRORS = ("https://ossci-datasets.s3.amazonaws.com/mnist/", "https://storage.googleapis.com/cvdf-datasets/mnist/")
_KAGGLE_API = "https://www.kaggle.com/api/v1/datasets/download/"
_RRN = "rasmusbergpalm/recurrent-relational-networks"
_RRN_ZIP = "https://www.dropbox.com/s/rp3hbjs91xiqdgc/sudoku-hard.zip?dl=1"  # tasks/sudoku/data.py at 646787b9e7
_SATNET_ZIP = "https://powei.tw/sudoku.zip"  # locuslab/SATNet README.md
_EXTREME_TEST = "https://huggingface.co/datasets/sapientinc/sudoku-extreme/resolve/main/test.csv"

_TDOKU_LICENCE = ("no licence stated for the puzzles (community collections); tdoku's repository, which bundles "
                  "them in data.zip, is BSD-2-Clause")
_HODOKU_LICENCE = "GPL-3.0-or-later (HoDoKu and the hodoku-py repository that carries the file)"


def _kaggle_api(key: str, rows: str, dataset: str, size: int) -> DataSet:
    """A whole Kaggle original behind Kaggle's download API (a zip, not pinned: trust on first use)."""
    path = f"kaggle/full/kaggle_{key}.csv"
    return DataSet(
        name=f"kaggle-{key}-full",
        description=f"the whole Kaggle {key.upper()} file ({rows} rows), unpacked from Kaggle's zip",
        licence=f"as kaggle-{key} (see the Kaggle page: kaggle.com/datasets/{dataset})",
        files=(DataFile(path, (_KAGGLE_API + dataset,), size, None, transform=UNZIP_CSV, tofu=True,
                        size_approx=True),),
        origin="Kaggle's public download API (a zip holding sudoku.csv); Kaggle may ask for an account: then put "
               f"the zip by hand at .downloads/{path}.zip in the data home and fetch again",
        verification="none in advance (Kaggle's zip is not pinned): SHA-256 recorded at first download (trust on "
                     "first use); the size is the expected 164-byte rows plus header, not checked",
        in_all=False,
    )


def _tdoku(name: str, path: str, member: str, size: int, sha256: str, description: str, origin: str) -> DataSet:
    url = _gh(_TDOKU_COPY, _TDOKU_COPY_COMMIT, "data/" + member.replace("+", "%2B"))
    return DataSet(
        name=name, group="tdoku", description=description, licence=_TDOKU_LICENCE,
        files=(DataFile(path, (url,), size, sha256),),
        origin=f"tdoku's benchmark data (t-dillon/tdoku data.zip, data/{member}); {origin}; read from "
               f"{_TDOKU_COPY}@{_TDOKU_COPY_COMMIT[:10]} where the archive's files are committed unpacked",
        verification=f"byte-identical: the git blob of data/{member} in {_TDOKU_COPY} equals the development copy",
    )


def _generalized(path: str, size: int, sha256: str, also_first: bool = True) -> DataFile:
    name = path.rsplit("/", 1)[-1]
    source = ("output/" if path.startswith("generalized/paper_times/") else "datasets/") + name
    urls: tuple[str, ...] = (_gh(_GENERALIZED, _GENERALIZED_COMMIT, source),)
    if also_first:
        urls += (_gh(_GENERALIZED_FIRST, _GENERALIZED_FIRST_COMMIT, source),)
    return DataFile(path, urls, size, sha256)


def _mnist(name: str, size: int, sha256: str) -> DataFile:
    return DataFile(f"mnist/{name}", tuple(m + name for m in _MNIST_MIRRORS), size, sha256)


def _ratings(name: str, size: int, sha256: str) -> DataFile:
    return DataFile(f"ratings/{name}", (), size, sha256)


SETS: tuple[DataSet, ...] = (
    # --- Kaggle: the first-rows copies the project trains and evaluates on, and the full originals -----------------
    DataSet(
        name="kaggle-1m",
        description='Kaggle "1 Million Sudoku Games" (bryanpark/sudoku): its first 24,997 rows, quizzes,solutions',
        licence="not stated on a primary source read here (the Kaggle page credits Arel Cordero's generator)",
        files=(DataFile("kaggle/kaggle_1m_first24997.csv.gz",
                        (_gh("dionolympia/sudoku-solver", "845ae67830ff0ca12286be7b8d4f5958500f9cea", "sudoku.csv"),),
                        1749992, "bb334d9caf460c13e75f60af66e53a47070608d2103f25bdb6e482145a8a1d78",
                        source_hash="sha256:501a75e536e4b4169c2e4b6b68fbace7639afab0af39f29c565a5d8909a2b579",
                        transform=GZIP_LINES,
                        content_sha256="c9ce7744b611a5db915008201c5e7eccb0915f2c44120839bb4a433ad5540117"),),
        origin="dionolympia/sudoku-solver sudoku.csv (4,099,528 bytes, md5 888f637d...), a first-rows copy of the "
               "Kaggle file; its two trailing blank lines dropped, gzipped",
        verification="source blob hashed from a snapshot of that commit (md5 as recorded when the copy was made); "
                     "the transform rebuilt the development copy byte for byte",
    ),
    DataSet(
        name="kaggle-9m",
        description='Kaggle "9 Million Sudoku Puzzles and Solutions" (rohanrao/sudoku): first 10,000 rows',
        licence="public domain according to the copying repository's README (not confirmed on Kaggle)",
        files=(DataFile("kaggle/kaggle_9m_first10000.csv.gz",
                        (_gh("tilmanschweitzer/sudoku-solver", "0cad575d86f1a4ff56541a98ee4ba112afc41bbb",
                             "sudoku-10000.csv"),),
                        711458, "5b4b35a70f6275c0e4c5caf3d672f1b289ac571fd1617de999e1570cbfa0c483",
                        source_hash="sha256:b7050f932c68f1e0fccca290249513ded3706082d2d39ad3fac35e2fa23e30ec",
                        transform=GZIP_LINES,
                        content_sha256="b7050f932c68f1e0fccca290249513ded3706082d2d39ad3fac35e2fa23e30ec"),),
        origin="tilmanschweitzer/sudoku-solver sudoku-10000.csv (1,640,016 bytes), gzipped unchanged",
        verification="source blob hashed from a snapshot of that commit; the transform rebuilt the development copy "
                     "byte for byte",
    ),
    DataSet(
        name="kaggle-3m",
        description='Kaggle "3 million Sudoku puzzles with ratings" (radcliffe): first 1,000 rows with ratings, '
                    "first 13,211 without",
        licence="CC0-1.0 according to a third-party note (not confirmed on Kaggle)",
        files=(
            DataFile("kaggle/kaggle_3m_first1000.csv.gz",
                     (_gh("Sn3cor/mownit-simulated-annealing", "e117f55e11c4181fc125b0aace732a5279d410d0",
                          "datasets/sudoku-3m.csv"),),
                     70433, "bf74255d668c6d956fabdb14eb9840aaf5a38a6b382860d730dce4f6fa4a92ba",
                     source_hash="sha256:4a9c1fb25ad37e6cd93083183f5f30e8c496191b7dde68e865dede1a0214b458",
                     transform=GZIP_LINES,
                     content_sha256="4a9c1fb25ad37e6cd93083183f5f30e8c496191b7dde68e865dede1a0214b458"),
            DataFile("kaggle/kaggle_3m_first13211_noratings.csv.gz",
                     (_gh("jd7jez/ProjectSudoku", "687ba15164bc0f3263ab2f71269f492a09aa74e4",
                          "sudoku-3m-kaggle.csv"),),
                     870028, "af4fc48efd3597b9946f2942bf3affb63ffa4d9cb146460dcaf404c1a4b9930d",
                     source_hash="sha256:85eaeb128a6014d646f7326135d40fe781df06c636c83ca2618dca77c8107bce",
                     transform=GZIP_LINES, header="puzzle,solution,blanks",
                     content_sha256="66a1b2f1eb41fe262f2b8dafcb22ae2c32b9e0dc3fb5c8130e88277f145f8889"),
        ),
        origin="Sn3cor/mownit-simulated-annealing datasets/sudoku-3m.csv (174,929 bytes, gzipped unchanged) and "
               "jd7jez/ProjectSudoku sudoku-3m-kaggle.csv (2,206,237 bytes, no header: puzzle,solution,blanks added)",
        verification="source blobs hashed from snapshots of those commits; the transforms rebuilt the development "
                     "copies byte for byte",
    ),
    _kaggle_api("1m", "1,000,000", "bryanpark/sudoku", 164000018),
    _kaggle_api("9m", "9,000,000", "rohanrao/sudoku", 1476000016),
    DataSet(
        name="kaggle-3m-full",
        description="the whole Kaggle 3M file with ratings (about 3,000,000 rows)",
        licence="as kaggle-3m (see kaggle.com/datasets/radcliffe/3-million-sudoku-puzzles-with-ratings)",
        files=(DataFile("kaggle/full/kaggle_3m.csv",
                        (("https://media.githubusercontent.com/media/timviolino/dokuDair/"
                          "f3febf9b762e3f50d2a2f37fce42a6b869d073f7/data/sudoku-3m.csv"),),
                        535888932, "d5d4d65eba4303614d58a13033ab546ee218cc9fbbd0497147c97a42f22c15cd"),),
        origin="timviolino/dokuDair data/sudoku-3m.csv, a Git LFS object (the Kaggle file committed whole)",
        verification="SHA-256 and size are those of the repository's LFS pointer (oid), read from a snapshot; the "
                     "bytes themselves were not downloaded here, and that they equal Kaggle's file is not confirmed",
        in_all=False,
    ),
    # --- MNIST ------------------------------------------------------------------------------------------------------
    DataSet(
        name="mnist",
        description="MNIST handwritten digits, the four original idx .gz files (60,000 train + 10,000 test)",
        licence="CC BY-SA 3.0 (Y. LeCun and C. Cortes)",
        files=(
            _mnist("train-images-idx3-ubyte.gz", 9912422,
                   "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609"),
            _mnist("train-labels-idx1-ubyte.gz", 28881,
                   "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c"),
            _mnist("t10k-images-idx3-ubyte.gz", 1648877,
                   "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6"),
            _mnist("t10k-labels-idx1-ubyte.gz", 4542,
                   "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6"),
        ),
        origin="the original distribution (yann.lecun.com/exdb/mnist), from the mirrors torchvision and TensorFlow "
               "download from",
        verification="the development copy's md5s equal the original distribution's (f68b3c2d..., d53e105e..., "
                     "9fb629c4..., ec29112d..., as torchvision pins them); SHA-256 computed from it",
    ),
    # --- tdoku's benchmark collections ------------------------------------------------------------------------------
    _tdoku("17clue", "9x9/17clue_49158.txt", "puzzles2_17_clue", 4080411,
           "2cf268735dfd40d32269b5f20ebbea067037e5976b4d016ce0b4d3c0a50deb30",
           "all 49,158 known 17-clue puzzles (Royle's list, extended)",
           "G. Royle's minimum-Sudoku list, updated from dobrichev's collections and the forum"),
    _tdoku("forum-hardest-1106", "9x9/forum_hardest_1106.txt", "puzzles6_forum_hardest_1106", 30863,
           "45d0afc5892d6797621d7c00f518df8f1483eceb921416984b8687e16128eb06",
           "the enjoysudoku forum's hardest list of 2011 (375 puzzles)",
           "HardestDatabase110626.txt of the Sudoku Players' Forum"),
    _tdoku("forum-hardest-1905-se11", "9x9/forum_hardest_1905_se11.txt", "puzzles5_forum_hardest_1905_11+", 3998812,
           "56236eaf6c7445ea244db3423ec44a102349dbedf6e457af0fcdd3d07cf39996",
           "the forum's 2019 hardest list, Sudoku Explainer rating 11 and above (48,766 puzzles)",
           "the Sudoku Players' Forum hardest list of May 2019"),
    _tdoku("serg-benchmark", "9x9/serg_benchmark_10000.txt", "puzzles7_serg_benchmark", 830065,
           "5468125857f02cb1e9b1fc6ba36ac88dc8d75afa47bc030c507cdfefbfe0eeaa",
           "Serg's solver benchmark (10,000 puzzles with two or more solutions removed)",
           "sites.google.com/site/sergsudoku/benchmark.zip"),
    # --- HoDoKu's test files (hodoku-py) ----------------------------------------------------------------------------
    DataSet(
        name="top1465", group="hodoku",
        description="magictour top1465, the classic hard benchmark (1,465 puzzles)",
        licence="no licence stated for the puzzles (magictour.free.fr); the carrying repository is GPL-3.0",
        files=(DataFile("9x9/top1465.txt", (_gh(_HODOKU_PY, _HODOKU_PY_SDM, "tests/testdata/top1465.sdm"),),
                        120130, "21d82f285082dc0db051f407cf23103af76bf077b368b04bd9e619f2bf6d2c1b",
                        source_hash="sha256:32837f38ece94e75678deadbe256aeafda704c8d4c2f8b5095a630ce2d0114d3",
                        transform=LINES),),
        origin=f"{_HODOKU_PY} tests/testdata/top1465.sdm (120,131 bytes: a trailing blank line, dropped here)",
        verification="source blob hashed from a snapshot of that commit; the transform rebuilt the development copy "
                     "byte for byte",
    ),
    DataSet(
        name="qqwing", group="hodoku",
        description="QQWing-generated puzzles by QQWing level: simple, easy, intermediate, expert (1,000 each)",
        licence="no licence stated for the puzzles (made with QQWing, GPL-2.0); the carrying repository is GPL-3.0",
        files=tuple(DataFile(f"9x9/qqwing_{level}.txt",
                             (_gh(_HODOKU_PY, _HODOKU_PY_SDM, f"tests/testdata/qqwing_{level}.sdm"),), 82000, sha)
                    for level, sha in (
                        ("simple", "eaec0c878f84be954a344f0e339c774257ec615761f4e51156956970d2d45673"),
                        ("easy", "42a0db3177bc4338c15a4001f97895ce2b0ccacde10a41e37b75da77f4bf1ca6"),
                        ("intermediate", "40627fcc597cdbdf224bfe1cba5f943824d35cec12a603c75cba8b1fe8e3b889"),
                        ("expert", "fb17dbf7f4977d103a48ef8e7441c17ec1751ad56118debb759eb9bbafd5595f"))),
        origin=f"{_HODOKU_PY} tests/testdata/qqwing_*.sdm at {_HODOKU_PY_SDM[:10]} (LF; later commits hold CRLF "
               "versions)",
        verification="byte-identical: the git blobs at that commit equal the development copy",
    ),
    DataSet(
        name="hodoku-reglib", group="hodoku",
        description="HoDoKu's regression library 1.3: one case per technique variant (docs/techniques.md)",
        licence=_HODOKU_LICENCE,
        files=(DataFile("techniques/hodoku_reglib-1.3.txt",
                        (_gh(_HODOKU_PY, _HODOKU_PY_LIB, "tests/reglib/reglib-1.3.txt"),),
                        178162, "d37272f245ca6cfc5f3d4037998c80a1fd2ce996682dd7c2b3cc5aefa3ff7173",
                        source_hash="sha256:114f50e820e89fe5848c1c20fe60a38aec95dbcab116e13f306d0d6c93a9f323",
                        transform=LF),),
        origin=f"{_HODOKU_PY} tests/reglib/reglib-1.3.txt (179,716 bytes, CRLF line ends, made LF here)",
        verification="source blob hashed from a snapshot of that commit; the transform rebuilt the development copy "
                     "byte for byte",
    ),
    DataSet(
        name="hodoku-exemplars", group="hodoku",
        description="HoDoKu's exemplar library 1.0: 669 puzzles grouped by the technique they need",
        licence=_HODOKU_LICENCE,
        files=(DataFile("techniques/hodoku_exemplars-1.0.txt",
                        (_gh(_HODOKU_PY, _HODOKU_PY_LIB, "tests/testdata/exemplars-1.0.txt"),),
                        67478, "d879b80c82491639d51a2bf63ed2f0dbe3a50ed013091f00fd519c3e2e710d94"),),
        origin=f"{_HODOKU_PY} tests/testdata/exemplars-1.0.txt",
        verification="byte-identical: the git blob at that commit equals the development copy",
    ),
    # --- Norvig ----------------------------------------------------------------------------------------------------
    DataSet(
        name="norvig-top95", group="norvig",
        description='Norvig\'s "top95" (magictour top95), the hard puzzles of his Sudoku essay',
        licence="no licence stated (norvig.com; the puzzles are magictour's)",
        files=(DataFile("9x9/top95.txt", ("https://norvig.com/top95.txt",), 7790,
                        "b16eff35fbe41fb7b122f21c5c6ba30b85861b47946d33257070df1a69cddd36", transform=LINES),),
        origin="norvig.com/top95.txt, the file of the essay 'Solving Every Sudoku Puzzle'",
        verification="the normalised file (LF, no blank lines) is checked against the development copy's SHA-256; "
                     "no snapshot of norvig.com was available to confirm the download's own bytes",
    ),
    DataSet(
        name="norvig-hardest", group="norvig",
        description="Norvig's 'hardest' list (11 puzzles) from the same essay",
        licence="no licence stated (norvig.com)",
        files=(DataFile("9x9/hardest11.txt", ("https://norvig.com/hardest.txt",), 902,
                        "398e1e5df4f50723078e3b510e00ea7eb9e104c521a9a186b4c20cd066c0459f", transform=LINES),),
        origin="norvig.com/hardest.txt",
        verification="the normalised file (LF, no blank lines) is checked against the development copy's SHA-256; "
                     "no snapshot of norvig.com was available to confirm the download's own bytes",
    ),
    # --- Sudoku Exchange --------------------------------------------------------------------------------------------
    DataSet(
        name="sudoku-exchange-diabolical",
        description="Sudoku Exchange puzzle bank, 'diabolical' bucket: id puzzle rating, Sukaku Explainer >= 5.0 "
                    "(39,719 puzzles)",
        licence="public domain (Unlicense-style dedication, LICENSE.txt of the repository)",
        files=(DataFile("9x9/diabolical_se5plus.txt", (_gh(_EXCHANGE, _EXCHANGE_COMMIT, "diabolical.txt"),),
                        3971900, "84b626dc1f85c9ccde8b0f2a98bec412bc955bb6b5fdb3b41f955acd69c1169c"),),
        origin=f"{_EXCHANGE} diabolical.txt as first published (2020-06-25; the 2021 commit added puzzles)",
        verification="byte-identical: the git blob at that commit equals the development copy",
    ),
    # --- generalized Sudoku ------------------------------------------------------------------------------------------
    DataSet(
        name="generalized",
        description="generalized Sudoku, box size k = 3..9 (9x9 to 81x81; 3000, 10, 10, 10, 6, 5, 1 puzzles) and the "
                    "paper's recorded solver times",
        licence="GPL-3.0 (allankassio/generalized-sudoku-solver); first published without a licence in "
                "ashishkhiani/Sudoku",
        files=(
            _generalized("generalized/sudoku_rank_3.csv", 492008,
                         "d7e29f5de0d602d17e2d769cd86b810a49d0516001b134c52b4176949032a0ff"),
            _generalized("generalized/sudoku_rank_4.csv", 5148,
                         "638503f2e3de6b8cad9a73893dda97bec13bd004266a988d90e8bd96ff8a4a48"),
            _generalized("generalized/sudoku_rank_5.csv", 12528,
                         "2d3604cd1cc7efbd1a6567eacd623f614bec0d47c3a2fc1f0d078b0c3b712812"),
            _generalized("generalized/sudoku_rank_6.csv", 25948,
                         "9080733674e9360470faa0c9cb726ffc33fac069802565b333e807a8bb291786"),
            _generalized("generalized/sudoku_rank_7.csv", 28832,
                         "125d976add907be86310959997b19db59c639bf3e7d5437c393c7078c6306937"),
            _generalized("generalized/sudoku_rank_8.csv", 40978,
                         "352ecc565f2811d36a46de36fe3224db9f68aea31dc2d6e4deec84106385e3e7"),
            _generalized("generalized/sudoku_rank_9.csv", 13132,
                         "83fa5f7fd38a023bc26c70be63f6516aa48da2665af6f53266110a1c321f7e50"),
            _generalized("generalized/paper_times/sudoku_rank_3_SudokuBackTrackingSolver.csv", 339,
                         "7bc0d1278e0dd3f5696d1ad6881e0230cd4b2f19d088eee9b2c60671e1b0b1c6"),
            _generalized("generalized/paper_times/sudoku_rank_3_SudokuExactCoverSolver.csv", 94594,
                         "e2bd15e09b32c78436a50033a13c72b38e27960bcb73badab044d933f3883148"),
            _generalized("generalized/paper_times/sudoku_rank_4_SudokuExactCoverSolver.csv", 361,
                         "f08856fe0ee568a89d458de76991615860d7996d21acd20e5a1eaebe60254276", also_first=False),
            _generalized("generalized/paper_times/sudoku_rank_5_SudokuExactCoverSolver.csv", 364,
                         "9841b127b032144d56c41e8ae34bddb7c1f2cc5e534b99c097a8e3270ae7d18c", also_first=False),
        ),
        origin='the data of the paper "Resolvendo Sudokus Generalizados através de algoritmos de backtracking e de '
               f'Dancing Links" ({_GENERALIZED}, datasets/ and output/), first in {_GENERALIZED_FIRST}',
        verification="byte-identical: the git blobs at both commits equal the development copy (the rank 4 and 5 "
                     "exact-cover times only in the first repository named)",
    ),
    # --- the learned solvers' literature (docs/results/literature.md) -------------------------------------------------
    DataSet(
        name="rrn-hard", group="literature",
        description="the RRN hard set (Palm et al. 2018): 17-34 givens, 180k/18k/18k train/valid/test, q,a CSVs in a zip",
        licence="not stated (no licence file in rasmusbergpalm/recurrent-relational-networks; the puzzles derive from "
                "G. Royle's 17-clue list)",
        files=(DataFile("literature/rrn/sudoku-hard.zip", (_RRN_ZIP,), 35424000, None, tofu=True, size_approx=True),),
        origin=f"the address of {_RRN}'s tasks/sudoku/data.py (a Dropbox zip of sudoku-hard/train.csv, valid.csv, "
               "test.csv; made by its tasks/sudoku/generate_hard.py from 17-clue puzzles, 0-17 givens added); kept "
               "as the zip, read by ltn_sudoku.io.literature",
        verification="none in advance (no hash published; the zip could not be read here): SHA-256 recorded at first "
                     "download (trust on first use); the size is an upper bound, the three CSVs unpacked (216,000 "
                     "rows of 164 bytes), not the zip's own size",
    ),
    DataSet(
        name="satnet-sudoku", group="literature",
        description="SATNet's Sudoku set (Wang et al. 2019): 10,000 puzzles as torch tensors (features.pt, labels.pt, "
                    "features_img.pt, perm.pt)",
        licence="not stated for the data; the SATNet repository (locuslab/SATNet) is MIT",
        files=(DataFile("literature/satnet/sudoku.zip", (_SATNET_ZIP,), 2600000000, None, tofu=True,
                        size_approx=True),),
        origin="the address of locuslab/SATNet's README (`wget powei.tw/sudoku.zip`): a zip of sudoku/features.pt "
               "(one-hot givens, 10000x9x9x9), labels.pt (one-hot solutions), features_img.pt (MNIST cells) and "
               "perm.pt, as exps/sudoku.py loads them; kept as the zip, read by ltn_sudoku.logic.board.literature",
        verification="none in advance (no hash published; the zip could not be read here): SHA-256 recorded at first "
                     "download (trust on first use); the size is an upper bound from the tensors' shapes "
                     "(features_img.pt as float32), not the zip's own size",
        in_all=False,
    ),
    DataSet(
        name="sudoku-extreme", group="literature",
        description="Sudoku-Extreme (the HRM paper's set, sapientinc/sudoku-extreme): its test split, about 423k rows "
                    "of source,question,answer,rating",
        licence="not stated on the dataset card read here (the card of its copy imone/sudoku-hard-v2 names no licence); "
                "the puzzles come from tdoku's benchmark collections and the enjoysudoku forum",
        files=(DataFile("literature/sudoku-extreme/test.csv", (_EXTREME_TEST,), 79450000, None, tofu=True,
                        size_approx=True),),
        origin="Hugging Face dataset sapientinc/sudoku-extreme, test.csv (its build script: sapientinc/HRM "
               "dataset/build_sudoku_dataset.py; train.csv, 3.8M rows and about 719 MB, is not registered)",
        verification="none in advance (Hugging Face serves no hash a snapshot could give here): SHA-256 recorded at "
                     "first download (trust on first use); the size is the 79.4 MB the Hugging Face page of the same "
                     "card (imone/sudoku-hard-v2) shows, rounded up, not checked",
    ),
    # --- ratings measured for this project --------------------------------------------------------------------------
    DataSet(
        name="ratings",
        description="HoDoKu 2.2.0 levels and scores, and Sudoku Explainer 1.2.1.3 ratings, of top95, hardest and "
                    "top1465",
        licence="measured for this project (no third-party licence)",
        files=(
            _ratings("hardest_hodoku220_ratings.csv", 1080,
                     "9a82b2053728ad50a74195119e130a5d9bee9730b3c5562aa05384ee405b20b8"),
            _ratings("hardest_serate1213.txt", 1069,
                     "f44f6a95f052e64385fbdebcc274127114c86652b4d0cc6654998c67ee4af618"),
            _ratings("top1465_hodoku220_ratings.csv", 139621,
                     "0f8ade3562969d3e4b9c7fe3a830a02ad2e7af6886e4b5d87358c5aa3249d357"),
            _ratings("top1465_hodoku_bruteforce18.txt", 1476,
                     "2577b3d333bd28a810c50e7edbe4504b517f04c9c794080188cb91ea41aca3d4"),
            _ratings("top1465_serate1213_PARTIAL_first178.txt", 17266,
                     "0f3d44365535d8f01468c51ec74fec4375828d70795785720cbb36e32008c20e"),
            _ratings("top95_hodoku220_ratings.csv", 9027,
                     "1b75aafcbd5aa802da3d58faad6e68a8ee41448e742f8bebf134c50f038a1c44"),
            _ratings("top95_serate1213.txt", 9215,
                     "f07e22ee9221fcb9fbe33857b79ee8a756d8e776f4d1cd5212b03d4e50ed29d8"),
        ),
        origin="measured on the development machine by running HoDoKu 2.2.0 and Sudoku Explainer 1.2.1.3; not "
               "published anywhere, so `data fetch` cannot download them",
        verification="SHA-256 of the development copy; `data list --verify` checks a copy placed by hand",
    ),
)


@dataclass(frozen=True)
class Selection:
    """The sets a list of names (set names or group names) picks, in registry order."""

    sets: tuple[DataSet, ...] = field(default_factory=tuple)
    unknown: tuple[str, ...] = field(default_factory=tuple)


def all_sets() -> tuple[DataSet, ...]:
    """The registry (read at call time, so that a test can swap ``SETS``)."""
    return SETS


def select(names: list[str] | tuple[str, ...]) -> Selection:
    """The sets named (a group name picks all its sets), and the names that match nothing."""
    sets = all_sets()
    picked: list[DataSet] = []
    unknown: list[str] = []
    for name in names:
        matches = [s for s in sets if name in (s.name, s.group)]
        if not matches:
            unknown.append(name)
        picked.extend(s for s in matches if s not in picked)
    order = {s.name: i for i, s in enumerate(sets)}
    return Selection(tuple(sorted(picked, key=lambda s: order[s.name])), tuple(unknown))


def human_size(size: int | None, approx: bool = False) -> str:
    """1.7 MB style (powers of 1000, like the download sites)."""
    if size is None:
        return "?"
    value: float = size
    for unit in ("B", "kB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            text = f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
            return ("~" if approx else "") + text
        value /= 1000
    raise AssertionError("unreachable")


def markdown_table() -> str:
    """The two tables of docs/data.md (the sets; where each comes from and how it was verified), generated from the
    registry: `ltn-sudoku data list --markdown`."""
    rows = ["| set | files in the data home | size | check | licence | description |",
            "|---|---|---:|---|---|---|"]
    for s in all_sets():
        paths = "<br>".join(f"`{f.path}`" for f in s.files)
        checks = "/".join(dict.fromkeys(f.check for f in s.files))
        group = f" (also `{s.group}`)" if s.group else ""
        rows.append(f"| `{s.name}`{group} | {paths} | {human_size(s.size, s.size_approx)} | {checks} | {s.licence} "
                    f"| {s.description} |")
    rows += ["", "| set | where from | what was verified, and how |", "|---|---|---|"]
    for s in all_sets():
        rows.append(f"| `{s.name}` | {s.origin} | {s.verification} |")
    return "\n".join(rows) + "\n"
