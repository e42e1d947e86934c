#!/usr/bin/env bash
# Memory is bounded whatever the matrices multiply to: a suite of 100 entries of 96000
# combinations each (every entry under the per-entry limit of 100000, 9.6 million cases in all)
# is refused with its count before its cases are built (CTS_MAX_CASES, 200000), under a 3 GB
# address-space limit and in seconds. Before, `aclcts list` grew to 24 GB until the kernel's
# OOM killer took it (here: malloc fails under the limit and the process aborts).
source "$(dirname "$0")/e2e_lib.sh"
python3 - >big.yaml <<'PY'
print("suite: e2e.big\nop: avgpool2d_backward\nproduct: ascend910b\ncases:")
for i in range(100):
    print(f"""  - name: e{i}
    matrix:
      self_shape: [[1, 1, 40, 40], [1, 2, 40, 40]]
      kernel_size: [{', '.join(f'[{k}, {k}]' for k in range(1, 11))}]
      stride: [{', '.join(f'[{k}, {k}]' for k in range(1, 11))}]
      divisor_override: [{', '.join(str(k) for k in range(1, 11))}]
      ceil_mode: [true, false]
      count_include_pad: [true, false]
      dtype: [float32, float16, bfloat16]
      cube_math_type: [0, 1, 2, 3]""")
PY
rc=0
# The memory cap turns a growing expansion into a quick failure; AddressSanitizer reserves
# terabytes of shadow address space at start and cannot run under any ulimit -v, so its build
# runs without the cap (the refusal must still come before the cases are built).
cap=3000000
[[ $(ldd "$ACLCTS" 2>/dev/null) == *libasan* ]] && cap=unlimited
(ulimit -v $cap; exec timeout 120 "$ACLCTS" list --count big.yaml) >out 2>&1 || rc=$?
[[ $rc == 2 ]] || { tail -5 out; fail "exit $rc, expected 2 (refused with the count)"; }
grep -q "^big.yaml:25:5: error: cases\[2\]: the suites expand to more than 200000 cases (CTS_MAX_CASES): 192000 before this entry, which adds up to 96000 (96000 combinations x 1 products)" out ||
  fail "$(head -3 out)"
grep -q "aclcts: error: the suites define up to 9600000 cases; at most 200000 are loaded at once" out ||
  fail "no total: $(tail -3 out)"
(( $(grep -c "error:" out) == 2 )) || fail "one error per entry instead of one in all: $(head out)"

# Under the limit the same entry loads: 96000 cases.
python3 - big.yaml >two.yaml <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
print("\n".join(lines[:4 + 10]))
PY
expect_rc 0 "$ACLCTS" list --count two.yaml
grep -qx 96000 out || fail "$(cat out)"
echo PASS
