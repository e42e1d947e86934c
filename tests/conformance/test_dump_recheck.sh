#!/usr/bin/env bash
# --dump holds everything a verdict needs: tools/recheck-dump, which reads only the .npy files and
# case.json with NumPy (docs/dump.md's rules), reaches aclcts's verdict on every case, for the
# emulated device (all PASS) and for one 10^5 ULP off (the tolerance FAILs), including ambiguous
# elements (nearest ties, clip limits), interval elements (the far reflected point) and
# non-finite ones.
source "$(dirname "$0")/e2e_lib.sh"
S="$ACLCTS_SOURCE_DIR/suites"
suites=("$S"/*/regressions_oracle.yaml "$S"/grid_sampler2d_backward/parameters.yaml)
for fault in none ulp:100000; do
  rc=0; [[ $fault == none ]] || rc=1
  ACLNN_EMU_FAULT=$([[ $fault == none ]] || echo "$fault") \
    expect_rc $rc "$ACLCTS" run --quiet --product ascend910b --out "r_$fault" --dump "d_$fault" \
      --filter "regressions_oracle_*" --filter "grid_sampler2d_backward.modes.*" --filter "*special*" "${suites[@]}"
  "$ACLCTS_SOURCE_DIR/tools/recheck-dump" "d_$fault" >"re_$fault" || { cat "re_$fault" >&2; fail "re-check disagrees ($fault)"; }
done
# both verdicts present: PASS re-checked as PASS, tolerance FAILs re-checked as FAIL
grep -qP '\tPASS\tPASS\t' re_none || fail "no passing case re-checked"
n=$(grep -cP '\tFAIL\tFAIL\t' re_ulp:100000) && (( n > 20 )) || fail "only ${n:-0} failing cases re-checked"
grep -qP 'far_point_reflection\.ascend910b\tFAIL\tFAIL' re_ulp:100000 || fail "far point not re-checked as FAIL"
# the dump's interval and alternatives are really used: interval and ambiguous elements exist
/usr/bin/python3 - d_none <<'PY' || fail "no interval or ambiguous elements dumped"
import glob, sys
import numpy as np
flags = np.concatenate([np.load(f).reshape(-1) for f in glob.glob(sys.argv[1] + "/*/flags_*.npy")])
assert (flags & 32).any() and (flags & 1).any(), "interval and ambiguous elements expected"
PY
echo PASS
