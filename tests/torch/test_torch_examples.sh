#!/usr/bin/env bash
# examples/ (our own calling programs) against build/ascend-torch: the hand-derived values hold
# on PyTorch's CPU kernels behind the same ABI too (the checks of tests/kernels/test_examples.sh).
set -euo pipefail
torch=${ACLCTS_TORCH_DIR:?}
root=${ACLCTS_SOURCE_DIR:?}
ACLCTS_EMU_DIR=$torch exec bash "$root/tests/kernels/test_examples.sh"
