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

# View classes per tensor: the shipped suites exercise every one a legal case can; an output
# never broadcasts (explained, not missed).
expect_rc 0 "$ACLCTS" coverage --impossible "$ACLCTS_SOURCE_DIR/suites"
grep -q "^avgpool2d_backward: 21 view classes .* 0 missed$" out || fail "avg-pool view classes: $(cat out)"
grep -q "^grid_sampler2d_backward: 35 view classes .* 0 missed$" out || fail "grid view classes: $(cat out)"
grep -q "impossible view grad_input=broadcast: an output read with stride 0" out \
  || fail "the output broadcast is not explained"
# The one contiguous case misses every class of every tensor but none that is impossible.
expect_rc 1 "$ACLCTS" coverage one.yaml
grep -q "MISSED view grad_output=pad-n" out || fail "a missed view class is not named"
grep -q "MISSED view self=channels-last" out || fail "a missed view class is not named"
! grep -q "MISSED view grad_input=broadcast" out || fail "an impossible class counted as missed"
grep -q "^avgpool2d_backward: 21 view classes .* 0 hit, 1 impossible (explained), 20 missed$" out \
  || fail "the view count line is wrong: $(cat out)"
# Classes by hand: gradInput 2x3x4x5 with N's stride 3 past C*H*W (63 = 60 + 3) is pad-n and
# nothing else; gradOutput 2x3x3x4 channels-last (strides 36, 1, 12, 3) with offset 5 is
# channels-last and offset, not padded; the same views on a call that fails (kernel 9 > the
# padded input) count for nothing.
cat >views.yaml <<'YAML'
suite: e2e.coverage_views
op: avgpool2d_backward
product: ascend910b
defaults: {self_shape: [2, 3, 4, 5], stride: [1],
           views: {grad_input: {strides: [63, 20, 5, 1]},
                   grad_output: {strides: [36, 1, 12, 3], offset: 5}}}
cases:
  - {name: computes, kernel_size: [2]}
  - {name: refused, kernel_size: [9], grad_output_shape: [2, 3, 3, 4]}
YAML
expect_rc 1 "$ACLCTS" coverage --all views.yaml
grep -q "hit view grad_input=pad-n: 1 cases" out || fail "pad-n not seen: $(cat out)"
grep -q "hit view grad_output=channels-last: 1 cases" out || fail "channels-last not seen"
grep -q "hit view grad_output=offset: 1 cases" out || fail "offset not seen"
[[ $(grep -c "^  hit view [a-z]" out) == 3 ]] || fail "other classes seen: $(grep "^  hit view [a-z]" out)"
echo PASS
