#!/usr/bin/env bash
# `aclcts show` prints the status the model predicts and its reason, for cases that leave the
# code to the model and for cases that fix it. Expected codes from the documents: avg-pool is
# not offered on Atlas 200I/500 A2 (ascend310b) and BF16 is not on Atlas training products
# (ascend910) → 161002; a valid call on ascend910b → 0; a null gradOutput → 161001.
source "$(dirname "$0")/e2e_lib.sh"
cat >s.yaml <<'YAML'
suite: e2e.show
op: avgpool2d_backward
product: [ascend910b, ascend310b, ascend910]
cases:
  - name: ok
    self_shape: [1, 1, 4, 4]
    kernel_size: [2]
  - name: bf16
    product: ascend910
    dtype: bfloat16
    self_shape: [1, 1, 4, 4]
    kernel_size: [2]
  - name: null_grad
    product: ascend910b
    self_shape: [1, 1, 4, 4]
    kernel_size: [2]
    null: [grad_output]
    expect: {status: 161001}
YAML
show() { # id → the two lines
  expect_rc 0 "$ACLCTS" show "$1" s.yaml
  grep -E '^  (expect status|model reason) ' out
}
show e2e.show.ok.ascend910b | grep -qx '  expect status      0 (status model)' || fail "ok/910b: $(cat out)"
show e2e.show.ok.ascend310b | grep -qx '  expect status      161002 (status model)' || fail "ok/310b: $(cat out)"
grep -q 'model reason.*ascend310b' out || fail "310b reason does not name the product: $(cat out)"
show e2e.show.bf16.ascend910 | grep -qx '  expect status      161002 (status model)' || fail "bf16/910: $(cat out)"
grep -qi 'model reason.*b\(f\|float\)16' out || fail "bf16 reason does not name the dtype: $(cat out)"
show e2e.show.null_grad.ascend910b | grep -qx '  expect status      161001 (fixed by the suite; the status model says 161001)' \
  || fail "null_grad: $(cat out)"
grep -q 'model reason.*gradOutput' out || fail "null reason: $(cat out)"
echo PASS
