#!/usr/bin/env bash
# Waivers with a tracking reference, an owner and an expiry date: one still valid waives its
# case (WAIVED, the message names reason, tracking, owner and date); one past its date waives
# nothing (FAIL of check `waiver` with the same facts), so a certification with it fails and
# lists it; audit lists both; `show` prints them; malformed dates are refused with FILE:LINE:COL.
source "$(dirname "$0")/e2e_lib.sh"
waived_case() { # name tracking expires
  doc_example_case "$1" 1
  cat <<YAML
    expect: {values: {grad_input: 0.5}}   # wrong on purpose: the exact value is 1/16
    waiver: {reason: "known deviation", tracking: "$2", owner: "pool-team", expires: "$3"}
YAML
}
{ printf 'suite: e2e.waiver\nop: avgpool2d_backward\nproduct: [ascend910b]\nseed: 11\ncases:\n'
  waived_case expired DTS2026010101 2020-01-01
  waived_case current DTS2026010102 2999-12-31; } >w.yaml

expect_rc 1 "$ACLCTS" run --quiet --out r w.yaml
jsonl_table r/results.jsonl | awk '{print $1, $2, $3}' >table
diff table - <<'T' || fail "statuses"
e2e.waiver.current.ascend910b WAIVED expected-values
e2e.waiver.expired.ascend910b FAIL waiver
T
grep -q '"waiver expired on 2020-01-01 (known deviation; tracking DTS2026010101; owner pool-team; expires 2020-01-01): differs from the suite' r/results.jsonl ||
  fail "expired waiver's message"
grep -q '"waived (known deviation; tracking DTS2026010102; owner pool-team; expires 2999-12-31): differs' r/results.jsonl ||
  fail "valid waiver's message"

# certify: the expired waiver is a FAIL (so never CONFORMANT), both are listed and recorded.
expect_rc 1 "$ACLCTS" certify --product ascend910b --out pkg w.yaml
grep -q '^  waiver: e2e.waiver.expired.ascend910b: waiver expired on 2020-01-01' out ||
  fail "certify does not list the expired waiver"
grep -q '^  waiver: e2e.waiver.current.ascend910b: waived (known deviation; tracking DTS2026010102' out ||
  fail "certify does not list the used waiver"
python3 - pkg/manifest.json <<'PY' || fail "manifest waivers"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["counts"]["FAIL"] == 1 and m["counts"]["WAIVED"] == 1, m["counts"]
w = {x["case"]: x["reason"] for x in m["waivers"]}
assert "tracking DTS2026010101" in w["e2e.waiver.expired.ascend910b"], w
assert w["e2e.waiver.expired.ascend910b"].startswith("waiver expired on 2020-01-01"), w
assert "owner pool-team; expires 2999-12-31" in w["e2e.waiver.current.ascend910b"], w
# the waiver's fields are keys of their own, not only words of the message
k = {x["case"]: x for x in m["waivers"]}
e, c = k["e2e.waiver.expired.ascend910b"], k["e2e.waiver.current.ascend910b"]
assert (e["waiver_reason"], e["tracking"], e["owner"], e["expires"], e["expired"]) == \
    ("known deviation", "DTS2026010101", "pool-team", "2020-01-01", True), e
assert (c["tracking"], c["expires"], c["expired"]) == ("DTS2026010102", "2999-12-31", False), c
PY
grep -q '^    tracking DTS2026010101; owner pool-team; expires 2020-01-01; EXPIRED: the case fails$' out ||
  fail "certify does not give the expired waiver's fields"
expect_rc 0 "$ACLCTS" verify-package pkg
grep -q '^  waiver: e2e.waiver.current.ascend910b: tracking DTS2026010102; owner pool-team; expires 2999-12-31$' out ||
  fail "verify-package does not read the waiver's fields"
# report.html and audit.md of the package and of an audit: reason, tracking, owner, expiry and
# the failure waived each in their own column (before: one cell holding the record's message).
failure='differs from the suite[^ ]* expected value at grad_input\[0,0,0,0\]: got 0.0625, exact 0.5'
row_html() { # case status tracking expires
  echo "<tr><td><code>e2e.waiver.$1.ascend910b</code></td><td>$2</td><td class=\"msg\">known deviation</td><td>$3</td><td>pool-team</td><td>$4</td><td class=\"msg\">$failure"
}
row_md() { echo "^| \`e2e.waiver.$1.ascend910b\` | $2 | known deviation | $3 | pool-team | $4 | $failure"; }
expect_rc 0 "$ACLCTS" audit --product ascend910b --out au w.yaml
for page in pkg/report.html au/report.html; do
  grep -q "$(row_html expired FAIL DTS2026010101 2020-01-01)" $page || fail "$page: expired waiver's row"
  grep -q "$(row_html current WAIVED DTS2026010102 2999-12-31)" $page || fail "$page: used waiver's row"
done
for md in pkg/audit.md au/audit.md; do
  grep -q '^| case | status | reason | tracking | owner | expires | failure |$' $md || fail "$md: header"
  grep -q "$(row_md expired FAIL DTS2026010101 2020-01-01)" $md || fail "$md: expired waiver's row"
  grep -q "$(row_md current WAIVED DTS2026010102 2999-12-31)" $md || fail "$md: used waiver's row"
done
python3 - au/waivers.csv <<'PY' || fail "waivers.csv"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
# sorted by case, whatever order the workers finished in
assert [r["case"] for r in rows] == ["e2e.waiver.current.ascend910b", "e2e.waiver.expired.ascend910b"], rows
c, e = rows
assert (e["status"], e["reason"], e["tracking"], e["owner"], e["expires"]) == \
    ("FAIL", "known deviation", "DTS2026010101", "pool-team", "2020-01-01"), e
assert (c["status"], c["tracking"], c["expires"]) == ("WAIVED", "DTS2026010102", "2999-12-31"), c
assert all(r["failure"].startswith("differs from the suite's expected value") for r in rows), rows
PY

expect_rc 0 "$ACLCTS" show e2e.waiver.current.ascend910b w.yaml
grep -q 'waiver  *known deviation; tracking DTS2026010102; owner pool-team; expires 2999-12-31' out ||
  fail "show"

# Malformed waivers: FILE:LINE:COL: error: FIELD, nothing runs.
for bad in 2026-02-30 2026-13-01 26-01-01 2026/01/01 +026-01-01; do
  sed "s|2999-12-31|$bad|" w.yaml >bad.yaml
  expect_rc 2 "$ACLCTS" run --quiet --out rb bad.yaml
  grep -q "bad.yaml:[0-9]*:[0-9]*: error: cases\[1\].waiver.expires: '$bad' is not a date written YYYY-MM-DD" out ||
    fail "date $bad not refused"
done
sed 's|owner: "pool-team"|ownr: x|' w.yaml >bad.yaml
expect_rc 2 "$ACLCTS" run --quiet --out rb bad.yaml
grep -q "error: cases\[0\].waiver.ownr: unknown key (reason, tracking, owner, expires, status)" out ||
  fail "unknown waiver key"
sed '0,/2020-01-01/s//2024-02-29/' w.yaml >leap.yaml   # a leap day is a date
expect_rc 1 "$ACLCTS" run --quiet --out rl leap.yaml
echo "waivers: expiry fails, valid waives, certify/audit/show list them, bad dates refused"
