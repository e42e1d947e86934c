#!/usr/bin/env bash
# A case whose contract defines no outcome (docs/contract.md A14: a NULL stride off the
# vendor's cube is dereferenced by its op_api code) is neither PASS nor FAIL: the call runs in a
# child process, the record says what it did, and it is counted as UNDEFINED. A device playing
# the vendor release dies of SIGSEGV there without costing the run anything; a device that
# returns a code is recorded, not judged. Where the code reads stride = kernel (the cube, 910 /
# 310p, 950 in 8.5) the same case computes and PASSes.
source "$(dirname "$0")/e2e_lib.sh"
E="$ACLCTS_SOURCE_DIR/suites/avgpool2d_backward/errors.yaml"
cp -r "$(dirname "$ACLCTS")/../ascend-emu" "$T/install"
LIB="$T/install/lib64"

# status of each record: "id status", sorted
statuses() {
  python3 -c '
import json, sys
for r in sorted(map(json.loads, open(sys.argv[1])), key=lambda r: r["id"]):
    print(r["id"].removeprefix("errors.avgpool2d_backward."), r["status"])' "$1/results.jsonl"
}

# A device of release 9.1, as a real install of each product (exit 0: nothing fails).
for p in ascend910 ascend910b ascend910_93 ascend310p ascend310b ascend950; do
  expect_rc 0 env ACLCTS_SOC="$p" ACLNN_EMU_SPEC=vendor@9.1 "$ACLCTS" run --backend "cann:$LIB" \
    --product "$p" --contract vendor@9.1 --filter '*null_stride*' --out "v91-$p" "$E"
  got=$(statuses "v91-$p" | tr '\n' ';')
  case $p in
    ascend910b|ascend910_93) want="null_stride.$p PASS;null_stride_ceil_mode.$p UNDEFINED;" ;;
    ascend950) want="null_stride.$p UNDEFINED;null_stride_ceil_mode.$p UNDEFINED;" ;;
    *) want="null_stride.$p PASS;null_stride_ceil_mode.$p PASS;" ;;
  esac
  [[ $got == "$want" ]] || fail "vendor@9.1 on $p: $got"
done
python3 - v91-*/results.jsonl <<'PY' || fail "UNDEFINED records"
import json, sys
n = 0
for f in sys.argv[1:]:
    for r in map(json.loads, open(f)):
        if r["status"] != "UNDEFINED":
            continue
        n += 1
        assert r["check"] == "undefined", r
        assert "reads its length without a null check" in r["message"], r["message"]
        assert r["message"].endswith("run in a child process, died of SIGSEGV"), r["message"]
assert n == 4, n
PY
grep -q 'UNDEFINED' v91-ascend950/summary.md || fail "summary.md has no UNDEFINED count"
grep -q 'tests="2" failures="0" errors="0" skipped="2"' v91-ascend950/junit.xml ||
  fail "junit: $(head -3 v91-ascend950/junit.xml)"

# Release 8.5 has no regbase branch: 950 takes the cube, whose stride has a null check.
expect_rc 0 env ACLCTS_SOC=ascend950 ACLNN_EMU_SPEC=vendor@8.5 "$ACLCTS" run --backend "cann:$LIB" --product ascend950 \
  --contract vendor@8.5 --filter '*null_stride*' --out v85 "$E"
grep -q '^2 cases: 2 PASS$' "$T/out" || fail "950 under 8.5: $(cat "$T/out")"

# A device that returns a code there is recorded with it, still UNDEFINED (not judged).
expect_rc 0 env ACLCTS_SOC=ascend910b ACLNN_EMU_SPEC=doc "$ACLCTS" run --backend "cann:$LIB" --product ascend910b \
  --contract vendor@9.1 --filter '*null_stride_ceil_mode*' --out mixed "$E"
grep -q '"status": *"UNDEFINED"' mixed/results.jsonl || fail "$(cat mixed/results.jsonl)"
grep -q 'run in a child process, returned 0' mixed/results.jsonl || fail "$(cat mixed/results.jsonl)"

# The documents read a NULL stride as the kernel everywhere: every case computes.
expect_rc 0 "$ACLCTS" run --product all --filter '*null_stride*' --out doc "$E"
grep -q '^12 cases: 12 PASS$' "$T/out" || fail "doc: $(cat "$T/out")"
# A certification under a vendor release counts them apart and may still be CONFORMANT, and
# verify-package checks the package against that contract's case set (its `spec:` cases
# included; it used to load the documents' set and refuse every vendor package).
expect_rc 0 "$ACLCTS" certify --product ascend950 --contract vendor@9.1 --out cert \
  "$ACLCTS_SOURCE_DIR/suites"
python3 - cert/manifest.json <<'PY' || fail "manifest: $(cat cert/manifest.json)"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["verdict"] == "CONFORMANT", m["verdict"]
assert m["counts"]["UNDEFINED"] == 4 and m["counts"]["FAIL"] == 0, m["counts"]
PY
expect_rc 0 "$ACLCTS" verify-package cert.tar.gz
grep -q '^verified: .*CONFORMANT' "$T/out" || fail "$(cat "$T/out")"
echo "undefined outcome e2e: ok"
