#!/usr/bin/env bash
# One of the vendor's system-test cases at its full size runs under a memory limit well below
# what it needed before: suites/vendor_st avg-pool id218 (self and gradInput [2, 2048, 64, 128]
# FLOAT, 33,554,432 elements each; its tensors hold 268 MB).
#
# Earlier the harness held each tensor's sent, returned and device images and its values as
# doubles (20 bytes per FLOAT element): estimate 1.3 GiB, peak RSS 1.13 GiB (/usr/bin/time -v),
# and under ulimit -v 1 GiB the case was RESOURCE_ERROR ("out of host memory for grad_input").
# Now values are generated piece by piece into the sent image, an output has no sent image (its
# poison is a function of the position), an input read back is compared piece by piece, the
# reference gets doubles only of the inputs it reads (gradOutput: 4096 elements) and the device's
# values are decoded per chunk. Then self's sent image stayed beside its device copy through the
# call (estimate 512.0 MiB, with the workspace 640.0 MiB; peak RSS 0.51 GiB, 1.98 x the tensors'
# bytes). Now each input goes to the device as soon as it is made and its image is dropped until
# it is read back (a hash of each piece checks it), so the estimate is the device copies
# (268 MB) and one image (134 MB): 384.0 MiB, and with the emulated device's workspace
# 512.0 MiB; measured peak RSS 0.38 GiB (1.49 x). The case runs under ulimit -v 1 GiB, its peak
# RSS under 1.75 x. AddressSanitizer cannot start under ulimit -v: skipped there.
source "$(dirname "$0")/e2e_lib.sh"
if [[ $(ldd "$ACLCTS" 2>/dev/null) == *libasan* ]]; then  # (not ldd | grep -q: SIGPIPE under pipefail)
  echo "SKIP test_vendor_st_memory: ulimit -v cannot apply under AddressSanitizer"
  exit 77
fi
suite=$ACLCTS_SOURCE_DIR/suites/vendor_st/avgpool2d_backward.yaml
id=vendor_st.avgpool2d_backward.id218.ascend910b

# The estimate: 384.0 MiB (one decimal), refused under 380 MiB with that number in the message.
expect_rc 1 "$ACLCTS" run --quiet --max-memory 380M --out small --filter "$id" "$suite"
grep -q "^RESOURCE_ERROR $id \[memory\]: not run: the case needs about 384.0 MiB of host memory" out \
  || fail "estimate: $(cat out)"

# The emulated device's workspace is host memory too: avg-pool's scatter accumulates in an FP32
# copy of gradInput, 128.0 MiB, added once the first phase gives its size (512.0 MiB).
expect_rc 1 "$ACLCTS" run --quiet --max-memory 500M --out mid --filter "$id" "$suite"
grep -q "^RESOURCE_ERROR $id \[memory\]: not run: with the device's workspace of 128.0 MiB (host memory on the emulated device) the case needs about 512.0 MiB of host memory, above --max-memory 500.0 MiB" out \
  || fail "estimate with the workspace: $(cat out)"

# The largest vendor case, grid sampler id200 (FLOAT, T = 952,369,152 bytes of tensors): its
# reference stage stays within 1.5 T + 256 MiB (1.58 GiB), the goal of a case, by answering a
# few batches at a time, each output computed once. Before, it took the inputs' doubles whole
# (1.45 GB beside the outputs' images): estimate 2.1 GiB, peak RSS 1.82 GiB; now 1.6 GiB (the
# goal, rounded) and 1.50 GiB.
grid_suite=$ACLCTS_SOURCE_DIR/suites/vendor_st/grid_sampler2d_backward.yaml
grid_id=vendor_st.grid_sampler2d_backward.id200.ascend910b
expect_rc 1 "$ACLCTS" run --quiet --max-memory 1G --out grid --filter "$grid_id" "$grid_suite"
grep -q "^RESOURCE_ERROR $grid_id \[memory\]: not run: the case needs about 1.6 GiB of host memory" out \
  || fail "grid id200 estimate: $(cat out)"

# Run and judged under 1 GiB of address space (the harness before needed more), with
# --max-memory 700M (above the estimate with the workspace).
rc=0
(ulimit -v 1048576; exec "$ACLCTS" run --quiet --jobs 1 --timeout 1200 --max-memory 700M --out big \
  --filter "$id" "$suite") >out 2>&1 || rc=$?
[[ $rc == 0 ]] || { cat out; fail "exit $rc under ulimit -v 1 GiB"; }
python3 - big/results.jsonl <<'PY' || fail "$(cat big/results.jsonl)"
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert len(r) == 1 and r[0]["status"] == "PASS", r
assert r[0]["nelems"] == 33554432 and r[0]["el_n"] == 33554432, r  # every element judged
PY

# Peak RSS of the run (the largest process, its worker): under 1.75 x the tensors' 268 MB.
python3 - "$ACLCTS" "$suite" "$id" <<'PY' || fail "peak RSS"
import resource, subprocess, sys
aclcts, suite, case = sys.argv[1:]
subprocess.run([aclcts, "run", "--quiet", "--jobs", "1", "--timeout", "1200", "--out", "rss",
                "--filter", case, suite], check=True, stdout=subprocess.DEVNULL)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
assert peak < 1.75 * 268435456, f"peak RSS {peak / 2**20:.0f} MiB"
PY
