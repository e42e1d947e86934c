#!/usr/bin/env bash
# `aclcts compare A B`: a clean --quick run against the same run with one emulator switch
# changed names exactly the cases whose records differ (computed here from the two JSONL files
# with Python alone), grouped by what changed, with both sides' repro lines; round-truncate
# (narrowing by truncation) changes FLOAT16/BF16 outputs only; ulp:3 turns PASSes into FAILs
# (a status group whose B line carries the switch); a run against itself is unchanged (exit 0);
# packages (directory and archive) compare like results directories; cases of one side only
# are named; unreadable inputs exit 2.
source "$(dirname "$0")/e2e_lib.sh"
S=$ACLCTS_SOURCE_DIR/suites
expect_rc 0 "$ACLCTS" run --quiet --quick --out clean "$S"
q=$("$ACLCTS" list --count --quick "$S") # the --quick subset's size
ACLNN_EMU_FAULT=round-truncate expect_rc 1 "$ACLCTS" run --quiet --quick --out trunc "$S"
ACLNN_EMU_FAULT=ulp:3 expect_rc 1 "$ACLCTS" run --quiet --quick --out ulp3 "$S"

expect_rc 0 "$ACLCTS" compare clean clean
grep -q "^$q cases in both: $q unchanged, 0 changed; 0 only in A, 0 only in B$" out ||
  fail "a run against itself"

# the cases whose status, check, output hash or worst error differ, by Python from the JSONL
changed() {
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = ({json.loads(l)["id"]: json.loads(l) for l in open(f + "/results.jsonl")} for f in sys.argv[1:])
keys = ("status", "check", "output_hash", "worst_bound_units", "worst_ulp")
for i in sorted(a):
    if any(a[i][k] != b[i][k] for k in keys):
        print(i, a[i]["dtype"])
PY
}
changed clean trunc >want
[[ -s want ]] || fail "round-truncate changed nothing"
awk '{print $2}' want | sort -u | grep -qv '^float16$\|^bfloat16$' && fail "round-truncate changed a wider dtype"
expect_rc 1 "$ACLCTS" compare --out cmp clean trunc
python3 - cmp/compare.json want "$q" <<'PY' || fail "compare.json does not name exactly the changed cases"
import json, sys
j = json.load(open(sys.argv[1]))
want = [l.split()[0] for l in open(sys.argv[2])]
got = sorted(c["id"] for g in j["groups"] for c in g["cases"])
assert got == want, (set(got) ^ set(want))
assert j["changed"] == len(want) and j["unchanged"] == int(sys.argv[3]) - len(want), j
assert not j["only_in_a"] and not j["only_in_b"]
for g in j["groups"]:
    for c in g["cases"]:
        assert c["a"]["output_hash"] != c["b"]["output_hash"] or "worst" in g["change"], c
        assert c["a"]["repro"].split()[-1] == c["b"]["repro"].split()[-1]   # same suite file
        assert "--filter '" + c["id"] + "'" in c["a"]["repro"].replace("\\", ""), c["a"]["repro"]
PY
n=$(wc -l <want)
grep -q "^$q cases in both: $((q - n)) unchanged, $n changed; 0 only in A, 0 only in B$" cmp/compare.md ||
  fail "compare.md count line"

# a status change: its own group, B's repro line reruns with the switch
changed clean ulp3 >want3
expect_rc 1 "$ACLCTS" compare --out cmp3 clean ulp3
python3 - cmp3/compare.json want3 <<'PY' || fail "ulp:3 groups"
import json, sys
j = json.load(open(sys.argv[1]))
want = [l.split()[0] for l in open(sys.argv[2])]
assert sorted(c["id"] for g in j["groups"] for c in g["cases"]) == want
g = {x["change"]: x["cases"] for x in j["groups"]}
fails = g["status PASS -> FAIL"]
assert fails and all(c["b"]["status"] == "FAIL" and c["b"]["check"] == "tolerance" for c in fails)
assert all(c["b"]["repro"].startswith("ACLNN_EMU_FAULT=ulp:3 ") for c in fails), fails[0]["b"]
assert not any(c["a"]["repro"].startswith("ACLNN_EMU_FAULT") for c in fails)
PY
grep -q '^## status PASS -> FAIL ([0-9]*)$' cmp3/compare.md || fail "status group heading"

# packages (directory and archive) read like results directories
D=$S/avgpool2d_backward/doc_examples.yaml
expect_rc 1 "$ACLCTS" certify --product ascend910b --out pkg "$D"    # not the canonical set
expect_rc 0 "$ACLCTS" run --quiet --product ascend910b --out docs "$D"
expect_rc 0 "$ACLCTS" compare pkg docs
grep -q ' 0 changed; 0 only in A, 0 only in B$' out || fail "package directory"
ACLNN_EMU_FAULT=ulp:3 expect_rc 1 "$ACLCTS" run --quiet --product ascend910b --out docs3 "$D"
expect_rc 1 "$ACLCTS" compare pkg.tar.gz docs3
grep -q '^## status PASS -> FAIL' out || fail "package archive"

# two devices of two products: cases matched without the product in their ids
expect_rc 0 "$ACLCTS" run --quiet --product ascend950 --out docs950 "$D"
expect_rc 0 "$ACLCTS" compare docs docs950
grep -q '^A ran ascend910b only, B ascend950 only: cases matched by their id without the product$' out ||
  fail "products not matched"
grep -q ' 0 changed; 0 only in A, 0 only in B$' out || fail "two products, one case"

# one-sided cases
ACLNN_EMU_FAULT=ulp:3 expect_rc 1 "$ACLCTS" run --quiet --quick --product ascend910b \
  --filter 'avgpool2d_backward.*' --out part "$S"
expect_rc 1 "$ACLCTS" compare ulp3 part
grep -q '^## only in A ([0-9]*)$' out || fail "cases of A only not named"
expect_rc 2 "$ACLCTS" compare clean nowhere
grep -q 'compare: nowhere: No such file' out || fail "missing input"
expect_rc 2 "$ACLCTS" compare clean
echo "compare: $n cases changed by round-truncate named exactly; status groups, packages, one-sided cases"
