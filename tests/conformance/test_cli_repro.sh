#!/usr/bin/env bash
# Every non-pass case carries one repro line; `aclcts repro LINE` (and the same line pasted into
# a shell) reruns exactly that case and reaches the same verdict.
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

# A crash repro carries the fault switch, so the rerun crashes too.
ACLNN_EMU_FAULT=crash expect_rc 1 "$ACLCTS" run --quiet --out c --filter '*windows*' s.yaml
line=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["repro"])' \
  c/results.jsonl)
[[ $line == ACLNN_EMU_FAULT=crash* ]] || fail "crash repro lacks the fault: $line"
expect_rc 1 "$ACLCTS" repro "$line"
grep -q '"status":"CRASH".*SIGSEGV' c/repro/results.jsonl || fail "crash did not reproduce"
expect_rc 2 "$ACLCTS" repro "not a repro line"
echo PASS
