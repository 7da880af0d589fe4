#!/bin/sh
# check-dumps-torch.sh - run scripts/check-dumps-torch.py in a virtual
# environment holding PyTorch (CPU use only), creating it when missing.
#
#   scripts/check-dumps-torch.sh [check-dumps-torch.py options]
#
# KB_TORCH_VENV (default build/torch-venv) is the environment.  PyPI's
# torch wheel is the CUDA build and pulls the nvidia-* packages (about
# 5 GiB in all, a few minutes here); the CPU-only wheels are not on PyPI.
# Nothing here uses a GPU.  Exit status: the checker's (0 all agree, 1 a
# mismatch, 2 kbench could not be run), or 3 when PyTorch cannot be
# installed.
set -eu
cd "$(dirname "$0")/.."
venv=${KB_TORCH_VENV:-build/torch-venv}
if ! "$venv/bin/python" -c 'import torch, numpy' 2>/dev/null; then
    python3 -m venv "$venv" || { echo "check-dumps-torch: cannot create $venv" >&2; exit 3; }
    "$venv/bin/pip" install --quiet --timeout 300 torch numpy ||
        { echo "check-dumps-torch: pip install torch numpy failed" >&2; exit 3; }
fi
exec "$venv/bin/python" scripts/check-dumps-torch.py "$@"
