#!/usr/bin/env bash
# report.html's figure of the worst error per product x dtype does not depend on the order the
# results come in (with --jobs N, the order cases end in): the same two cases listed in either
# order draw the same figure, products and dtypes in name order (bfloat16 < float16 < float32).
source "$(dirname "$0")/e2e_lib.sh"
case_of() { # NAME DTYPE
  printf '  - name: %s\n    dtype: %s\n    self_shape: [1, 2, 6, 6]\n    kernel_size: [3, 3]\n' "$1" "$2"
  printf '    stride: [1, 1]\n    padding: [0, 0]\n    data: {grad_output: {uniform: [-1, 1]}}\n'
}
head='suite: e2e.order\nop: avgpool2d_backward\nproduct: [ascend910b, ascend910]\nseed: 3\ncases:\n'
{ printf "$head"; case_of h float16; case_of f float32; } >hf.yaml
{ printf "$head"; case_of f float32; case_of h float16; } >fh.yaml
figure() { sed -n '/worst error per product x dtype/,/<\/svg>/p' "$1/report.html"; }
for s in hf fh; do
  expect_rc 0 "$ACLCTS" audit --product all --jobs 1 --out "$s" "$s.yaml"
  [[ -n $(figure "$s") ]] || fail "$s: report.html has no product x dtype figure"
done
diff <(figure hf) <(figure fh) || fail "the figure follows the order of the results"
cols=$(figure hf | sed -n 's/.*text-anchor="middle">\(float[0-9]*\)<\/text>/\1/p' | head -2 | tr '\n' ' ')
[[ $cols == "float16 float32 " ]] || fail "columns '$cols', expected float16 then float32"
echo ok
