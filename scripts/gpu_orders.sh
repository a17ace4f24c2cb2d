#!/usr/bin/env bash
# One GPU lease for issue 40 (docs/results/guidance.md): DDP re-measured, then the per-set value orders trained where
# they are tested, as learning curves against training states; every result packed into $OUT/orders.tgz.
#
#   OUT=/tmp/out LIMIT_S=540 scripts/gpu_orders.sh                     # a lent GPU machine (16 cores): about 9 minutes
#   OUT=/tmp/out LIMIT_S=240 DDP_S=0 MIN=20 MAX=40 EVAL=4 EXTRA="model.steps=2" DEVICE=cpu scripts/gpu_orders.sh
#                                                                     # the same script, tiny, on a CPU (a dry run)
# Needs the data home (LTN_SUDOKU_DATA, or .gpu_data/ carried to the device) to hold the three sets' files and their
# train splits' branch states (scripts/make_branch_states.py --set NAME --puzzles 11000 --states 12000, per set).
# 1. alone on the GPU: scripts/gpu_check.py --sections ddp --ddp-repeat (torchrun against one process, twice: is the
#    loss difference DDP's or the GPU's run-to-run noise?), and the device test a CPU model on a GPU machine failed;
# 2. scripts/learning_curve.py --experiment order_SET for the three sets, rules-only and supervised (6 processes on
#    the one GPU): points b0 (the shipped model), MIN doubling to MAX states, each measured on EVAL puzzles of the
#    set's test split with one model call per puzzle, beside the ascending and fewest-places orders;
# 3. each (set, variant)'s largest finished point copied to orders/order_SET[_supervised].pt, for the transfer table
#    (scripts/bench_guidance.py --split test, run on a CPU afterwards).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-outputs/gpu_orders_out}
LIMIT_S=${LIMIT_S:-540}
DDP_S=${DDP_S:-150}
MIN=${MIN:-1000}
MAX=${MAX:-8000}
EVAL=${EVAL:-100}
EXTRA=${EXTRA:-}
DEVICE=${DEVICE:-cuda}
RUN=outputs/gpu_orders
mkdir -p "$OUT" "$RUN/orders"
. scripts/_gpu_lease.sh  # the deadline (left), paths, data home, threads, machine.txt
python3 -m ltn_sudoku.warmup > "$RUN/warmup.log" 2>&1 &  # numba's cache, on the CPU beside the DDP check
if [ "$DDP_S" -gt 0 ]; then
    timeout "$DDP_S" python3 -m pytest -q -p no:cacheprovider tests/test_device.py --device "$DEVICE" \
        -k "same_answers_on_the_cpu_and_the_device" > "$RUN/device_test.log" 2>&1 &
    timeout "$DDP_S" python3 scripts/gpu_check.py --device "$DEVICE" --sections ddp --ddp-repeat \
        --out "$RUN/gpu_check_ddp.json" > "$RUN/gpu_check_ddp.log" 2>&1
fi
wait
pids=()
for pair in seventeen_clue:seventeen_clue forum_hardest_1905:forum_hardest_1905 kaggle_3m:kaggle_3m_test; do
    name=${pair%%:*}
    for variant in rules_only supervised; do
        timeout $(( $(left) - 40 )) python3 scripts/learning_curve.py --experiment "order_$name" --variants $variant \
            --min-boards "$MIN" --max-boards "$MAX" --eval-sets "${pair#*:}" --eval-split test --eval-order root \
            --eval-puzzles "$EVAL" --device "$DEVICE" --budget-minutes $(( ($(left) - 60) / 60 )) \
            --out-dir "$RUN/curves/$name" $EXTRA > "$RUN/curve_${name}_$variant.log" 2>&1 &
        pids+=($!)
    done
done
wait "${pids[@]}"
for name in seventeen_clue forum_hardest_1905 kaggle_3m; do
    python3 scripts/learning_curve.py --report --out-dir "$RUN/curves/$name" > "$RUN/curve_${name}_table.txt" 2>&1
    for variant in rules_only supervised; do
        best=$(ls -d "$RUN"/curves/$name/$variant/b*/best.pt 2>/dev/null | sort -V | tail -1)
        suffix=$([ $variant = supervised ] && echo _supervised)
        [ -n "$best" ] && cp "$best" "$RUN/orders/order_$name$suffix.pt" && \
            cp "$(dirname "$best")/metrics.json" "$RUN/orders/order_$name$suffix.metrics.json" 2>/dev/null
    done
done
echo "elapsed $(( $(date +%s) - started )) s" >> "$RUN/machine.txt"
tar czf "$OUT/orders.tgz" --exclude="*.tfevents*" --exclude="last.pt" -C outputs gpu_orders
ls -la "$OUT"
