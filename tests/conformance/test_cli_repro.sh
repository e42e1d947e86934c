#!/usr/bin/env bash
# Every non-pass case carries one repro line; `aclcts repro LINE` (and the same line pasted into
# a shell) reruns exactly that case and reaches the same verdict. The log, the end-of-run list
# and summary.md show it in one form: the line alone, indented by four spaces (before: "repro:
# LINE" in the log and `LINE` in backticks, which a shell runs as a command substitution). In a
# certification package the lines work from the package's directory: its copy of the suite, the
# output beside the package (before: they named the deleted DIR.partial-XXXX/repro), and
# `aclcts repro` takes the package's suite when the line names one from another machine.
source "$(dirname "$0")/e2e_lib.sh"
write_suite s.yaml
# A wrong expected value for the doc example (1/16 is right, 0.5 is not): FAIL on both products.
sed 's/grad_input: 0.0625/grad_input: 0.5/' s.yaml >wrong.yaml
expect_rc 1 "$ACLCTS" run --quiet --out r wrong.yaml
python3 - r/results.jsonl <<'PY' >lines || fail "repro lines"
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    assert (r["status"] == "PASS") == (r["repro"] == ""), r["id"]
    if r["status"] != "PASS":
        print(r["id"], r["repro"])
PY
[[ $(wc -l <lines) == 2 ]] || fail "expected two failing cases, got $(wc -l <lines)"
line=$(sed -n 's/^e2e.avgpool.doc_example.ascend910b //p' lines)
[[ $line == *"--filter 'e2e.avgpool.doc_example.ascend910b'"* ]] || fail "unexpected line: $line"
# Absolute binary, --out and suite file: the line works from any directory.
[[ $line == "$(realpath "$ACLCTS") run "* ]] || fail "binary not absolute: $line"
[[ $line == *" --out $T/r/repro "* && $line == *" $T/wrong.yaml" ]] || fail "paths not absolute: $line"

expect_rc 1 "$ACLCTS" repro "$line"
[[ $(wc -l <r/repro/results.jsonl) == 1 ]] || fail "repro ran more than the one case"
diff <(jsonl_table r/repro/results.jsonl) \
     <(jsonl_table r/results.jsonl | grep '^e2e.avgpool.doc_example.ascend910b ') \
  || fail "repro verdict differs"
# Rerunning the rerun's own line writes to the same r/repro, never r/repro/repro.
line2=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["repro"])' \
  r/repro/results.jsonl)
[[ $line2 == "$line" ]] || fail "the rerun's repro line differs: $line2"
expect_rc 1 "$ACLCTS" repro "$line2"
[[ ! -e r/repro/repro ]] || fail "repro of a repro line wrote into r/repro/repro"
# The same line in a shell (it is a shell command: quotes, environment prefix), from another
# directory.
rm -rf r/repro
rc=0; (cd / && bash -c "$line") >out 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "shell repro exit $rc"
diff <(jsonl_table r/repro/results.jsonl) \
     <(jsonl_table r/results.jsonl | grep '^e2e.avgpool.doc_example.ascend910b ') \
  || fail "shell repro verdict differs"

# One form everywhere: each indented line of the log, the end-of-run list and summary.md is a
# record's repro line, whole.
expect_rc 1 "$ACLCTS" run --out r3 wrong.yaml
python3 - r3/results.jsonl out r3/summary.md <<'PY' || fail "repro lines shown differently"
import json, sys
lines = {json.loads(l)["repro"] for l in open(sys.argv[1])} - {""}
for shown in sys.argv[2:]:
    got = [l[4:].rstrip("\n") for l in open(shown) if l.startswith("    ") and " run " in l]
    assert got and set(got) == lines, (shown, got)
    assert not any(("`" in l and " run " in l) or l.lstrip().startswith("repro:")
                   for l in open(shown)), shown
PY
# in the log each line twice (as the case fails, and in the end-of-run list)
(( $(grep -c "^    .* run --backend" out) == 4 )) || fail "$(cat out)"

# A package's lines: run from its directory, beside it, leaving it as sealed.
rc=0; "$ACLCTS" certify --product ascend910b --out pkg wrong.yaml >cert 2>&1 || rc=$?
[[ $rc == 1 ]] || { cat cert; fail "certify: exit $rc"; }
pline=$(python3 -c 'import json,sys; print([json.loads(l)["repro"] for l in open(sys.argv[1]) if json.loads(l)["repro"]][0])' pkg/results.jsonl)
[[ $pline == *" --out ../pkg.repro "*" suites/wrong.yaml" && $pline != *partial* ]] ||
  fail "package line: $pline"
rc=0; (cd pkg && bash -c "$pline") >out 2>&1 || rc=$?
[[ $rc == 1 && $(wc -l <pkg.repro/results.jsonl) == 1 ]] || fail "package line in a shell: $rc $(cat out)"
rm -rf pkg.repro
(cd pkg && "$ACLCTS" repro "$pline") >out 2>&1 || true
[[ $(wc -l <pkg.repro/results.jsonl) == 1 ]] || fail "package line by aclcts repro: $(cat out)"
expect_rc 0 "$ACLCTS" verify-package pkg
grep -q "^verified: pkg" out || fail "the repro runs changed the package: $(cat out)"
# A line naming a suite that is not here (a shard run elsewhere): the package's copy is taken.
far=${pline/ suites\/wrong.yaml/ \/elsewhere\/wrong.yaml}
rm -rf pkg.repro
(cd pkg && "$ACLCTS" repro "$far") >out 2>&1 || true
grep -q "repro: /elsewhere/wrong.yaml is not here; taking the package's suites/wrong.yaml" out ||
  fail "$(cat out)"
[[ $(wc -l <pkg.repro/results.jsonl) == 1 ]] || fail "$(cat out)"

# A crash repro carries the fault switch, so the rerun crashes too.
ACLNN_EMU_FAULT=crash expect_rc 1 "$ACLCTS" run --quiet --out c --filter '*windows*' s.yaml
line=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["repro"])' \
  c/results.jsonl)
[[ $line == ACLNN_EMU_FAULT=crash* ]] || fail "crash repro lacks the fault: $line"
expect_rc 1 "$ACLCTS" repro "$line"
grep -q '"status":"CRASH".*SIGSEGV' c/repro/results.jsonl || fail "crash did not reproduce"
expect_rc 2 "$ACLCTS" repro "not a repro line"
echo PASS
