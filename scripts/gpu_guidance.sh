#!/usr/bin/env bash
# One GPU lease for issue 30 (docs/ltn.md): the learning curve trained on the GPU, and the guidance benchmark at the
# issue's full sizes on the machine's CPU cores, side by side; every result packed into $OUT/guidance.tgz.
#
#   OUT=/tmp/out LIMIT_S=540 scripts/gpu_guidance.sh          # a lent GPU machine (16 cores): about 9 minutes
#   OUT=/tmp/out LIMIT_S=300 CURVE_MIN=20 CURVE_MAX=20 CURVE_EXTRA="model.steps=2 model.eval_steps=2" SIZES=seventeen_clue=4,top1465=4,forum_hardest_1905=2,kaggle_3m_test=4 \
#       SHARDS=2 DEVICE=cpu scripts/gpu_guidance.sh            # the same script, tiny, on a CPU (a dry run)
#
# 1. the device tests (tests/test_device.py, fast ones) on DEVICE, as a check of the GPU paths;
# 2. scripts/learning_curve.py, rules-only and supervised in parallel on DEVICE, points from 1k boards doubling to
#    CURVE_MAX (batch 256, one epoch each, cosine learning rate), each point measured on 50 held-out puzzles per set;
# 3. scripts/bench_guidance.py at the issue's sizes (or SIZES) as SHARDS processes (every order, the shipped models);
# 4. once the curve is done: its largest rules-only and supervised models as orders, on a quarter of the same puzzles.
# Each step is cut by the script's deadline (LIMIT_S) so that the results are packed before the lease's limit; cut
# benchmark shards keep their finished rows (merge: bench_guidance.py --from-rows .../s*/rows.csv).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-outputs/gpu_guidance_out}
LIMIT_S=${LIMIT_S:-540}
CURVE_MIN=${CURVE_MIN:-1000}
CURVE_MAX=${CURVE_MAX:-32000}
CURVE_EXTRA=${CURVE_EXTRA:-}  # more trainer overrides for every point (a dry run shrinks the model)
SHARDS=${SHARDS:-13}
DEVICE=${DEVICE:-cuda}
SIZES=${SIZES:-}
SETS=seventeen_clue,kaggle_3m_test,top1465,forum_hardest_1905  # the costliest last: a cut run loses the fewest sets
RUN=outputs/gpu_guidance
mkdir -p "$OUT" "$RUN/guidance" "$RUN/guidance_curve"
. scripts/_gpu_lease.sh  # the deadline (left), paths, data home, threads, machine.txt
python3 -m ltn_sudoku.warmup > "$RUN/warmup.log" 2>&1  # numba's cache once, before the parallel processes load it

timeout 240 python3 -m pytest -q -p no:cacheprovider tests/test_device.py --device "$DEVICE" -m "not slow" \
    > "$RUN/device_tests.log" 2>&1 &
curve_pids=()
for variant in rules_only supervised; do
    timeout $(( $(left) - 150 )) python3 scripts/learning_curve.py --device "$DEVICE" --variants $variant \
        --min-boards "$CURVE_MIN" --max-boards "$CURVE_MAX" --budget-minutes $(( ($(left) - 170) / 60 )) --eval-puzzles 50 \
        --out-dir "$RUN/curve" train.batch_size=256 $CURVE_EXTRA > "$RUN/curve_$variant.log" 2>&1 &
    curve_pids+=($!)
done
for ((i = 0; i < SHARDS; i++)); do
    timeout $(( $(left) - 40 )) python3 scripts/bench_guidance.py --sets $SETS ${SIZES:+--sizes $SIZES} \
        --shard $i/$SHARDS --out-dir "$RUN/guidance/s$i" > "$RUN/guidance/s$i.log" 2>&1 &
done
wait "${curve_pids[@]}"
models=()
for variant in rules_only supervised; do
    point=$(ls -d "$RUN"/curve/$variant/b*/point.json 2>/dev/null | sort -V | tail -1)
    [ -n "$point" ] && models+=($(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['checkpoint'])" "$point"))
done
if [ ${#models[@]} -gt 0 ] && [ "$(left)" -gt 60 ]; then
    checkpoints=$(IFS=,; echo "${models[*]}")
    for ((i = 0; i < SHARDS; i++)); do
        timeout $(( $(left) - 30 )) python3 scripts/bench_guidance.py --sets $SETS ${SIZES:+--sizes $SIZES} \
            --shard $i/$((4 * SHARDS)) --checkpoints "$checkpoints" --random-seeds 0 \
            --out-dir "$RUN/guidance_curve/s$i" > "$RUN/guidance_curve/s$i.log" 2>&1 &
    done
fi
wait
python3 scripts/learning_curve.py --report --out-dir "$RUN/curve" > "$RUN/curve_table.txt" 2>&1
echo "elapsed $(( $(date +%s) - started )) s" >> "$RUN/machine.txt"
tar czf "$OUT/guidance.tgz" --exclude="*.tfevents*" -C outputs gpu_guidance
ls -la "$OUT"
