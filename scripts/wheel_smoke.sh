#!/usr/bin/env bash
# The wheel, as a user gets it: build the sdist and the wheel (the wheel from the sdist), `twine check` them, install
# the wheel in a fresh virtual environment (CPU torch first) and use it from empty folders, away from any checkout.
# One line per check; any failure prints the tail of its log and exits non-zero. About 3-5 minutes on 2 cores, most
# of it the fresh install and the first numba compilation. docs/install.md says what the wheel ships.
#
#   scripts/wheel_smoke.sh          # .ci/run calls it after `make test`
#   KEEP=1 scripts/wheel_smoke.sh   # keep the work folder (its path is printed) to look at the logs
#
# TOOLS_PYTHON: a Python with build and twine (the dev extra; default .venv/bin/python). PYTHON: the interpreter
# that makes the fresh environment (default python3, as the Makefile).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TOOLS_PYTHON=${TOOLS_PYTHON:-$ROOT/.venv/bin/python}
PYTHON=${PYTHON:-python3}
PUZZLE=201400000400073580050000600009020801023010050008354009700280000015009306060000740  # data/examples/seed_9x9.csv
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ltn_sudoku_wheel_smoke.XXXXXX")
if [[ -n "${KEEP:-}" ]]; then echo "work folder: $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi
START=$SECONDS
LOG=""

fail() {
    echo "FAIL $*" >&2
    if [[ -n "$LOG" && -f "$LOG" ]]; then echo "--- last lines of $LOG:" >&2; tail -n 40 "$LOG" >&2; fi
    exit 1
}
ok() { printf 'ok   %-66s %4ds\n' "$1" "$((SECONDS - START))"; }
# run NAME CMD...: CMD's output goes to $WORK/logs/NAME.log; a non-zero status fails the smoke
run() {
    local name=$1; shift
    LOG=$WORK/logs/$name.log
    "$@" >"$LOG" 2>&1 || fail "$name: exit status $? from: $*"
}
# fresh NAME: a new empty folder to run a check in (Hydra writes outputs/ under the working directory)
fresh() { mkdir -p "$WORK/runs/$1" && cd "$WORK/runs/$1"; }
# experiment_of RUN_DIR: the experiment name in the run's composed config (.hydra/config.yaml)
experiment_of() {
    "$BIN/python" -c "import sys; from omegaconf import OmegaConf; print(OmegaConf.load(sys.argv[1]).experiment.name)" \
        "$1/.hydra/config.yaml"
}
mkdir -p "$WORK/logs" "$WORK/src" "$WORK/dist" "$WORK/data_home"

# 1. sdist + wheel from the files of the checkout (tracked and new, not the ignored .venv/, outputs/, build/, ...)
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z -c -o --exclude-standard \
        | while IFS= read -r -d '' f; do [[ -e "$f" ]] && printf '%s\0' "$f"; done \
        | tar --null -T - -cf - | tar -xf - -C "$WORK/src"
else
    tar --exclude=./.venv --exclude=./outputs --exclude=./multirun --exclude=./build --exclude=./dist -cf - . \
        | tar -xf - -C "$WORK/src"
fi
run build "$TOOLS_PYTHON" -m build --outdir "$WORK/dist" "$WORK/src"
WHEEL=$(ls "$WORK"/dist/*.whl)
SDIST=$(ls "$WORK"/dist/*.tar.gz)
VERSION=$(basename "$WHEEL" | cut -d- -f2)
FILES=$("$TOOLS_PYTHON" -c "import sys, zipfile; print(len(zipfile.ZipFile(sys.argv[1]).namelist()))" "$WHEEL")
ok "build: $(basename "$WHEEL") ($(du -k "$WHEEL" | cut -f1) KiB, $FILES files), $(basename "$SDIST")"
run twine "$TOOLS_PYTHON" -m twine check --strict "$WHEEL" "$SDIST"
ok "twine check --strict: sdist and wheel pass"

# 2. a fresh environment: CPU torch first (constraints-cpu.txt), then the wheel with its dependencies
run venv "$PYTHON" -m venv "$WORK/venv"
BIN=$WORK/venv/bin
run torch "$BIN/pip" install --quiet --no-compile -c "$ROOT/constraints-cpu.txt" torch==2.13.0
run install "$BIN/pip" install --quiet --no-compile -c "$ROOT/constraints-cpu.txt" "$WHEEL"
LOG=""
SITE=$(cd "$WORK" && "$BIN/python" -c "import ltn_sudoku, pathlib; print(pathlib.Path(ltn_sudoku.__file__).parent)")
[[ "$SITE" == "$WORK/venv/"* ]] || fail "install: ltn_sudoku imports from $SITE, not from the fresh environment"
ok "install: torch 2.13.0 (CPU), then the wheel, in a fresh venv"

# 3. the installed commands, each from an empty folder, with an empty data home
export LTN_SUDOKU_DATA=$WORK/data_home
fresh version
run version "$BIN/ltn-sudoku" --version
grep -qx "ltn-sudoku $VERSION" "$LOG" || fail "version: expected 'ltn-sudoku $VERSION'"
run version_classify "$BIN/classify-board" --version
grep -qx "classify-board $VERSION" "$LOG" || fail "version: expected 'classify-board $VERSION'"
ok "ltn-sudoku --version, classify-board --version: $VERSION"

fresh data
run data_list "$BIN/ltn-sudoku" data list --files
grep -q "^data home: $LTN_SUDOKU_DATA" "$LOG" && grep -q "top1465 .*shipped" "$LOG" \
    || fail "data list: the empty data home and the shipped copies (top1465) not shown"
"$BIN/ltn-sudoku" data fetch no-such-set >"$WORK/logs/data_fetch.log" 2>&1 && fail "data fetch: an unknown name passed"
[[ $? -eq 2 && $(wc -l <"$WORK/logs/data_fetch.log") -eq 1 ]] || fail "data fetch: an unknown name is not one line, exit 2"
ok "ltn-sudoku data list (shipped copies found), data fetch: one line, exit 2"

fresh classify
run classify "$BIN/classify-board" --board "$PUZZLE"
grep -q "no LTN model" "$LOG" && fail "classify-board: answered without the shipped LTN model"
grep -q "^LTN model:" "$LOG" && grep -q "checkpoint: checkpoints/9x9.pt" "$LOG" && grep -q "hasSolution: yes" "$LOG" \
    || fail "classify-board: no LTN section from the shipped checkpoints/9x9.pt"
ok "classify-board --board (9x9): answered with the shipped 9x9 model"

SMALL=(train.progress=false data.train.solvable=200 data.train.impossible=50 data.val.solvable=40
       data.val.impossible=40 data.val.closed_valid=20 data.val.closed_invalid=20)
fresh train
run train "$BIN/python" -m ltn_sudoku.train model=4x4 train.epochs=1 "${SMALL[@]}"
ls outputs/*/*_train_4x4_*/best.pt outputs/*/*_train_4x4_*/metrics.json >/dev/null 2>&1 \
    || fail "train: no outputs/<date>/<time>_train_4x4_<id>/{best.pt,metrics.json} under the working directory"
ok "python -m ltn_sudoku.train model=4x4: run under ./outputs"

fresh evaluate
run evaluate "$BIN/python" -m ltn_sudoku.evaluate model=4x4 evaluate.closed=200 evaluate.open=200 \
    evaluate.solving=100 evaluate.search.puzzles=5 evaluate.search.impossible=4 evaluate.dead_end_puzzles=10
METRICS=$(ls outputs/*/*_evaluate_4x4_*/metrics.json 2>/dev/null) || fail "evaluate: no outputs/.../metrics.json"
"$BIN/python" - "$METRICS" "$SITE" <<'EOF' || fail "evaluate: metrics.json does not name the installed 4x4.pt"
import json, pathlib, sys
checkpoint = pathlib.Path(json.load(open(sys.argv[1]))["checkpoint"]).resolve()
sys.exit(checkpoint != pathlib.Path(sys.argv[2]).resolve() / "checkpoints" / "4x4.pt")
EOF
ok "python -m ltn_sudoku.evaluate model=4x4: the shipped checkpoint"

fresh experiment
run experiment "$BIN/python" -m ltn_sudoku.train +experiment=4x4_mp train.epochs=1 "${SMALL[@]}"
RUN_DIR=$(ls -d outputs/*/*_train_4x4_mp_* 2>/dev/null) || fail "experiment: no outputs/.../*_train_4x4_mp_<id>"
[[ -f $RUN_DIR/best.pt && $(experiment_of "$RUN_DIR") == 4x4_mp ]] || fail "experiment: no best.pt of 4x4_mp"
ok "python -m ltn_sudoku.train +experiment=4x4_mp"

# a user's config folder: an experiment of theirs that warm-starts from another of theirs (a chain of two stages)
fresh user_config
mkdir -p myconf/experiment
cat >myconf/experiment/my_base.yaml <<'EOF'
# @package _global_
defaults:
  - override /model: 4x4_mp
  - override /logic: product_mp
experiment:
  name: my_base
EOF
cat >myconf/experiment/mine.yaml <<'EOF'
# @package _global_
defaults:
  - override /model: 4x4_mp
  - override /logic: product_mp
experiment:
  name: mine
  warm_start: my_base
model:
  steps: 4
EOF
run user_config "$BIN/python" -m ltn_sudoku.train --config-dir myconf +experiment=mine train.epochs=1 "${SMALL[@]}"
RUN_DIR=$(ls -d outputs/*/*_train_4x4_mp_* 2>/dev/null) || fail "user config: no outputs/.../*_train_4x4_mp_<id>"
[[ -f $RUN_DIR/stages/my_base/best.pt && -f $RUN_DIR/best.pt ]] || fail "user config: stage my_base or mine missing"
[[ $(experiment_of "$RUN_DIR") == mine ]] || fail "user config: the run is not experiment mine"
ok "--config-dir myconf +experiment=mine (warm start from my_base)"

fresh bench
LOG=$WORK/logs/bench.log
status=0; "$BIN/ltn-sudoku" bench >"$LOG" 2>&1 || status=$?
[[ $status -eq 2 && $(wc -l <"$LOG") -eq 1 ]] && grep -q "^error: .*clone of the repository" "$LOG" \
    || fail "bench: expected one 'error:' line and exit status 2 without scripts/ (got $status)"
ok "ltn-sudoku bench: one-line error (a wheel has no scripts/)"

CHECKED=$((SECONDS - START))
if [[ -z "${KEEP:-}" ]]; then rm -rf "$WORK"; trap - EXIT; fi  # the fresh venv: many files, slow to delete on a busy disk
echo "wheel smoke passed: checks ${CHECKED} s, in all (with the clean-up) $((SECONDS - START)) s"
