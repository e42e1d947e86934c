#!/usr/bin/env bash
# `aclcts coverage`: the shipped suites hit every pair of the coverage model that a legal case
# can hit (the others are explained); the generated covering arrays are what tools/gen-covering
# writes; a one-case suite misses pairs, names them and exits 1; contradictions are impossible
# to hide (a hit pair is never printed as explained).
source "$(dirname "$0")/e2e_lib.sh"

expect_rc 0 "$ACLCTS" coverage --help
grep -q "usage: aclcts coverage" out || fail "coverage --help has no usage line"
expect_rc 2 "$ACLCTS" coverage --no-such-option

expect_rc 0 "$ACLCTS" coverage --impossible "$ACLCTS_SOURCE_DIR/suites"
grep -q "^avgpool2d_backward: .* 0 missed$" out || fail "avg-pool pairs missed: $(cat out)"
grep -q "^grid_sampler2d_backward: .* 0 missed$" out || fail "grid pairs missed: $(cat out)"
! grep -q "CONTRADICTION" out || fail "a pair explained as impossible is hit: $(grep CONTRADICTION out)"
# The reasons come from the contract (docs/contract.md "Path", spec/003 determinism).
grep -q "impossible dtype=float16 x path=cube-hf32: FLOAT16 inputs are FP16 cube operands" out \
  || fail "the FP16 operand rule is not explained"
grep -q "impossible dtype=float64 x deterministic=on: determinism is promised only" out \
  || fail "the DOUBLE determinism rule is not explained"

python3 "$ACLCTS_SOURCE_DIR/tools/gen-covering" --check \
  || fail "suites/*/covering.yaml are not what tools/gen-covering writes"

# One contiguous float32 case: the view, channel and determinism pairs are missed.
cat >one.yaml <<'YAML'
suite: e2e.coverage
op: avgpool2d_backward
product: ascend910b
cases:
  - name: one
    self_shape: [1, 2, 4, 4]
    kernel_size: [2]
YAML
expect_rc 1 "$ACLCTS" coverage one.yaml
grep -q "MISSED view=overlapping x deterministic=on" out || fail "a missed pair is not named"
grep -q "MISSED rank=3 x channels=odd" out || fail "a missed pair is not named"
grep -q "^avgpool2d_backward: 1 cases, 8 factors" out || fail "the count line is wrong: $(cat out)"
! grep -q "MISSED dtype=float16 x path=cube-hf32" out || fail "an impossible pair counted as missed"
