# Sourced by the one-lease GPU scripts (gpu_guidance.sh, gpu_orders.sh) once they have set LIMIT_S and RUN: the
# deadline, the Python path (the pure-Python wheels carried in .whl/ when the image lacks them), the data home carried
# in .gpu_data/, one thread per process, and the machine written to $RUN/machine.txt.
started=$(date +%s)
left() { echo $((LIMIT_S - ($(date +%s) - started))); }
if [ -d .whl ] && ! python3 -c "import ltn, hydra, pysat, pooch" 2>/dev/null; then
    python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD
fi
export PYTHONPATH=${PYTHONPATH:-$PWD}
[ -d .gpu_data ] && export LTN_SUDOKU_DATA=${LTN_SUDOKU_DATA:-$PWD/.gpu_data}  # a data home carried to the device
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONUNBUFFERED=1
{ date -u; nproc --all; lscpu | grep -m1 "Model name"; nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>&1
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())"; } > "$RUN/machine.txt"
