#!/usr/bin/env bash
# A worker runs case after case; what one case freed must not stay in the process and add to
# the next case's peak. glibc keeps memory freed by the OpenMP threads' arenas (the reference's
# and the emulated kernel's): before the worker gave it back between cases (malloc_trim), a
# worker running the vendor's grid case id100 (FLOAT, input [19, 32, 64, 64], grid and
# gradOutput [19, .., 96, 96]) four times over peaked 75 MiB above the case alone (184 against
# 109 MiB), the memory carried growing case by case; on the whole vendor set it reached 195 MiB
# and the peak passed the memory goal. Now four runs in one worker peak within 40 MiB of one
# (measured: 23-24 MiB above). AddressSanitizer's allocator keeps freed memory in quarantine:
# skipped there.
source "$(dirname "$0")/e2e_lib.sh"
if [[ $(ldd "$ACLCTS" 2>/dev/null) == *libasan* ]]; then
  echo "SKIP test_worker_carried_memory: AddressSanitizer's quarantine holds freed memory"
  exit 77
fi
src=$ACLCTS_SOURCE_DIR/suites/vendor_st/grid_sampler2d_backward.yaml
# the case's block from the vendor suite, under four names
python3 - "$src" <<'PY' >four.yaml
import re, sys
text = open(sys.argv[1]).read()
block = re.search(r"^  - name: id100 .*?(?=^  - name: )", text, re.S | re.M).group(0)
print("suite: carried\nop: grid_sampler2d_backward\nproduct: ascend910b\nseed: 0\ncases:")
for k in range(4):
    print(block.replace("name: id100 ", f"name: copy{k} ", 1), end="")
PY
peak() {  # peak RSS (KiB) of the largest process of one run of aclcts on suite $1 (--jobs 1)
  python3 - "$ACLCTS" "$1" <<'PY'
import resource, subprocess, sys
r = subprocess.run([sys.argv[1], "run", "--quiet", "--jobs", "1", "--timeout", "600", "--out",
                    "out-" + sys.argv[2], sys.argv[2]], capture_output=True, text=True)
if r.returncode != 0:
    sys.exit(f"aclcts run {sys.argv[2]}: exit {r.returncode}: {r.stdout}{r.stderr}")
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}
python3 - four.yaml <<'PY' >one.yaml
import sys
text = open(sys.argv[1]).read()
print(text[:text.index("  - name: copy1 ")], end="")
PY
one=$(peak one.yaml) || fail "$one"
four=$(peak four.yaml) || fail "$four"
echo "peak RSS: one case $one KiB, four in one worker $four KiB"
(( four - one <= 40 * 1024 )) ||
  fail "four runs of one case in a worker peaked at $four KiB, one at $one KiB"
[[ $(grep -c '"status":"PASS"' out-four.yaml/results.jsonl) == 4 ]] ||
  fail "$(cat out-four.yaml/results.jsonl)"
