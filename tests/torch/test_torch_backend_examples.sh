#!/usr/bin/env bash
# The documents' calling examples, compiled verbatim against build/ascend-torch, print exactly
# the PyTorch float64 values: the checks of tests/kernels/test_seed_examples.sh (skipped without the
# documents), run on the torch tree.
# First make sure that tree's libopapi really is the torch adapter (else this proves nothing).
set -euo pipefail
torch=${ACLCTS_TORCH_DIR:?}
root=${ACLCTS_SOURCE_DIR:?}
if [[ $(readelf -d "$torch/lib64/libopapi.so") != *libtorch_cpu* ]]; then
  echo "FAIL $torch/lib64/libopapi.so does not link libtorch_cpu"; exit 1
fi
ACLCTS_EMU_DIR=$torch exec bash "$root/tests/kernels/test_seed_examples.sh"
