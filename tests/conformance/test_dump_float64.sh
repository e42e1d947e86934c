#!/usr/bin/env bash
# A suite written from suites/README.md alone (tools/random-suite, random valid parameters for both
# operators) runs on ascend910b and ascend910 with no failing case, and its --dump output agrees
# with an independent float64 computation: dump_float64_check.py recomputes every case with
# PyTorch's float64 CPU kernels (the expected numbers; see its docstring for the bounds) and checks
# exact_ (float64 rounding), ref_ (exact_ rounded to the dtype) and the device outputs (loose).
# Then the checker must reject a dump with one exact_, one ref_ or one device value altered, so
# the agreement above is not vacuous. RANDOM_SUITE_SEED picks another suite (default 20260).
source "$(dirname "$0")/e2e_lib.sh"
PY=/usr/bin/python3
check="$ACLCTS_SOURCE_DIR/tests/conformance/dump_float64_check.py"
seed=${RANDOM_SUITE_SEED:-20260}
"$ACLCTS_SOURCE_DIR/tools/random-suite" "$seed" random.yaml --cases 24
expect_rc 0 "$ACLCTS" run --quiet --jobs 2 --dump dump --out res random.yaml
tail -1 out
"$PY" "$check" dump | tee check.out || fail "dump differs from torch float64 (seed $seed)"
grep -q 'cases=[1-9]' check.out || fail "no case was checked"
# both products ran, and both ops
for p in ascend910b ascend910; do
  compgen -G "dump/random$seed.avgpool.*.$p" >/dev/null || fail "no avg-pool case on $p"
  compgen -G "dump/random$seed.grid.*.$p" >/dev/null || fail "no grid sampler case on $p"
done

# Mutations: copies of one checked case of each op, one value altered per copy (exact_, ref_ or
# a device output); one checker run (torch loads once) must name every copy with its letter.
rm -rf bad && mkdir bad
k=0
for what in a b c; do
  for d in dump/random"$seed".avgpool.pool_matrix.ceil_mode=false.divisor_override=-2.ascend910b \
           dump/random"$seed".grid.grid_matrix.padding_mode=reflection.align_corners=false.ascend910b; do
    k=$((k + 1)); cp -r "$d" "bad/$what$k"
    case $what in a) g='/exact_(grad_input|input_grad)[.]' ;; b) g='/ref_' ;; c) g='/(grad_input|input_grad)' ;; esac
    f=$(compgen -G "bad/$what$k/*.npy" | grep -E "$g" | head -1) || fail "no $g in $d"
    "$PY" - "$f" <<'PY'
import sys, numpy as np
a = np.load(sys.argv[1]); i = int(np.argmax(np.abs(a.astype(np.float64))))
flat = a.reshape(-1)
# exact_ (float64): 1e-9 relative is far above float64 rounding; ref_: the next float64
# away from the rounded value is not a rounding of anything near; device: 1.5x + 1
flat[i] = flat[i] * (1 + 1e-9) if "exact_" in sys.argv[1] else (
    np.nextafter(flat[i], np.inf) if "ref_" in sys.argv[1] else flat[i] * 1.5 + 1)
np.save(sys.argv[1], a)
PY
  done
done
rc=0
"$PY" "$check" bad >bad.out 2>&1 || rc=$?
[[ $rc == 1 ]] || { cat bad.out; fail "altered values not rejected (exit $rc)"; }
for c in bad/*; do
  what=${c#bad/}; what=${what:0:1}
  grep -q "^MISMATCH ($what) $c " bad.out || { cat bad.out; fail "$c not caught as ($what)"; }
done
[[ $(grep -c '^MISMATCH' bad.out) == "$k" ]] || { cat bad.out; fail "more mismatches than alterations"; }
echo "PASS: random suite $seed matches torch float64; altered exact_/ref_/device values caught"
