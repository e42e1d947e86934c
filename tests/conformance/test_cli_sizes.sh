#!/usr/bin/env bash
# Sizes that cannot exist and cases too large for memory. Tensor sizes are checked 64-bit
# arithmetic: a shape whose element count or byte size passes 2^63, or a view offset that does,
# is a suite error at its line and column (before: wrapped to 0 elements and PASSed, or
# segfaulted the worker, recorded as a device CRASH). A case whose estimated memory exceeds
# --max-memory is RESOURCE_ERROR naming the estimate without running; an error case of that
# size still runs, without data (the device must refuse it from its parameters). A worker the
# harness did not kill that dies of SIGKILL (the OOM killer's signal) is RESOURCE_ERROR, not
# the device's CRASH.
source "$(dirname "$0")/e2e_lib.sh"
cat >wrap.yaml <<'YAML'
suite: sizes.wrap
op: avgpool2d_backward
product: [ascend910b]
cases:
  - name: wraps_to_zero
    dtype: float32
    self_shape: [4294967296, 4294967296, 4, 4]
    kernel_size: [2, 2]
    cube_math_type: 1
  - name: wraps_to_segv
    dtype: float32
    self_shape: [65536, 65536, 65536, 65536]
    kernel_size: [2, 2]
    cube_math_type: 1
  - name: huge_offset
    dtype: float32
    self_shape: [1, 1, 4, 4]
    views: {self: {offset: 4611686018427387904}}
    kernel_size: [2, 2]
    cube_math_type: 1
YAML
expect_rc 2 "$ACLCTS" run --quiet --out w wrap.yaml
# 2^32 * 2^32 * 16 elements and 2^64 elements overflow; 2^62 elements of offset x 4 bytes does.
grep -q "^wrap.yaml:7:17: error: cases\[0\].self_shape: grad_output cannot exist" out || fail "$(cat out)"
grep -q "^wrap.yaml:12:17: error: cases\[1\].self_shape: grad_output cannot exist" out || fail "$(cat out)"
grep -q "^wrap.yaml:17:17: error: cases\[2\].self_shape: self cannot exist" out || fail "$(cat out)"
[[ ! -e w ]] || fail "a suite error wrote results"

# 100000 x 100000 x 4 x 4 float32 is 1.6e11 elements: about 30 TiB with images and reference,
# more than any --max-memory here.
cat >big.yaml <<'YAML'
suite: sizes.big
op: avgpool2d_backward
product: [ascend910b]
cases:
  - name: too_big
    dtype: float32
    self_shape: [100000, 100000, 4, 4]
    kernel_size: [2, 2]
    cube_math_type: 1
  - name: too_big_but_refused
    dtype: float32
    self_shape: [100000, 100000, 4, 4]
    kernel_size: [2, 2]
    padding: [2, 2]
    cube_math_type: 1
YAML
expect_rc 1 "$ACLCTS" run --jobs 1 --max-memory 64G --out b big.yaml
grep -q "RESOURCE_ERROR sizes.big.too_big.ascend910b \[memory\]: not run: the case needs about [0-9.]* TiB of host memory (inputs, outputs, device copies, reference), above --max-memory 64.0 GiB" out \
  || fail "$(cat out)"
# padding 2 is more than half the kernel 2: the status model expects a refusal, no data needed.
python3 - b/results.jsonl <<'PY' || fail "statuses"
import json, sys
r = {x["id"]: x for x in map(json.loads, open(sys.argv[1]))}
assert r["sizes.big.too_big.ascend910b"]["status"] == "RESOURCE_ERROR", r
assert r["sizes.big.too_big_but_refused.ascend910b"]["status"] == "PASS", r
PY
grep -q 'errors="1"' b/junit.xml || fail "RESOURCE_ERROR is not a JUnit error"
expect_rc 2 "$ACLCTS" run --max-memory 12X --out b big.yaml
grep -q -- "--max-memory 12X: expected a size in bytes > 0, optionally with K, M, G or T" out || fail "$(cat out)"

# Host memory that runs out (ulimit -v) when the estimate let the case run: RESOURCE_ERROR with
# what could not be allocated, not a setup or reference ERROR. The generated values of
# grad_output (2^32 elements) and self (2^34), as doubles, are 32 and 128 GiB; the limit is 4 GiB.
cat >vm.yaml <<'YAML'
suite: sizes.vm
op: avgpool2d_backward
product: [ascend910b]
cases:
  - name: more_than_the_limit
    dtype: float32
    self_shape: [1, 16, 32768, 32768]
    kernel_size: [2, 2]
    cube_math_type: 1
YAML
# AddressSanitizer reserves terabytes of shadow address space at start, so an ASan build cannot
# start under any ulimit -v: that part is checked by the default build only.
if [[ $(ldd "$ACLCTS" 2>/dev/null) == *libasan* ]]; then  # (not ldd | grep -q: SIGPIPE under pipefail)
  echo "note: ulimit -v part not run under AddressSanitizer"
else
  rc=0
  (ulimit -v 4194304; exec "$ACLCTS" run --jobs 1 --max-memory 8192T --out v vm.yaml) >out 2>&1 || rc=$?
  [[ $rc == 1 ]] || { cat out; fail "exit $rc under ulimit -v"; }
  grep -q "^RESOURCE_ERROR sizes.vm.more_than_the_limit.ascend910b \[memory\]: out of host memory" out \
    || fail "$(cat out)"
fi

# SIGKILL from outside (what the OOM killer sends) while a case runs: a resource failure.
write_suite s.yaml
ACLNN_EMU_FAULT=hang "$ACLCTS" run --quiet --jobs 1 --timeout 60 --filter 'e2e.avgpool.doc_example.ascend910b' \
  --out k s.yaml >k.log 2>&1 &
run=$!
for _ in $(seq 1 400); do  # a child seen after the outputs exist is a worker, not the env probe
  worker=$([[ -e k/summary.md ]] && pgrep -P "$run" || true)
  [[ -n $worker ]] && break
  sleep 0.05
done
[[ -n $worker ]] || fail "no worker started"
kill -9 "$worker"
rc=0; wait "$run" || rc=$?
[[ $rc == 1 ]] || { cat k.log; fail "exit $rc"; }
grep -q "RESOURCE_ERROR e2e.avgpool.doc_example.ascend910b \[memory\]: the worker was killed with SIGKILL, which the harness did not send" k.log \
  || fail "$(cat k.log)"
echo PASS
