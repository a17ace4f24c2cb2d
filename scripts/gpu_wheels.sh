#!/usr/bin/env bash
# The pure-Python dependencies a GPU machine's image may lack (its Python already has torch, numpy, pandas, numba,
# tensorboard, tqdm, pytest), as wheels for that machine's Python, to carry there when it has no network:
#   scripts/gpu_wheels.sh [PYTHON_VERSION]        # default 3.12; writes .whl/
# There: python3 -m pip install --no-index --no-deps --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD
set -euo pipefail
cd "$(dirname "$0")/.."
version="${1:-3.12}"
platforms=(--platform manylinux_2_28_x86_64 --platform manylinux_2_24_x86_64 --platform manylinux_2_17_x86_64
           --platform manylinux2014_x86_64)
mkdir -p .whl
python3 -m pip download -q --no-deps --only-binary=:all: --python-version "$version" --implementation cp \
    "${platforms[@]}" -d .whl LTNtorch==1.0.2 hydra-core==1.3.8 omegaconf==2.3.1 python-sat==1.9.dev24 \
    pooch==1.8.2 platformdirs==4.14.8
python3 -m pip wheel -q --no-deps -w .whl antlr4-python3-runtime==4.9.3  # published as a source archive only
ls .whl
