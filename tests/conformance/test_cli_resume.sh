#!/usr/bin/env bash
# kill -9 in the middle of a run, then --resume: every case ends up recorded exactly once (the
# JSONL is fsync'd per case, a half-written last line is dropped), and the verdicts equal those
# of an uninterrupted run.
source "$(dirname "$0")/e2e_lib.sh"
# 32 cases of 147456 elements, one worker; the run stops itself after its third record
# (stop_after_records), so the kill lands mid-run however fast the run or loaded the machine.
cat >s.yaml <<'YAML'
suite: e2e.resume
op: avgpool2d_backward
product: [ascend910b]
seed: 5
cases:
  - name: m
    matrix:
      dtype: [float32, float16]
      kernel_size: [[2, 2], [3, 3], [4, 4], [5, 5]]
      stride: [[1, 1], [2, 2]]
      ceil_mode: [false, true]
    self_shape: [8, 8, 48, 48]
    padding: [1, 1]
    cube_math_type: 1
    data: {grad_output: {int: [-4, 4]}}
YAML
total=$("$ACLCTS" list --count s.yaml)
env $(stop_after_records 3 /r/results.jsonl) "$ACLCTS" run --quiet --jobs 1 --out r s.yaml >log 2>&1 &
pid=$!
wait_stopped $pid
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
done_before=$(wc -l <r/results.jsonl)
(( done_before < total )) || fail "the run finished before the kill; the test proves nothing"
# What a kill during a write could leave behind: half a record without its newline.
printf '{"id":"e2e.resume.m.half' >>r/results.jsonl

expect_rc 0 "$ACLCTS" run --jobs 2 --resume r/results.jsonl --out r s.yaml
grep -q "already in r/results.jsonl" out || fail "resume did not report the skipped cases"
grep -q "dropping a half-written last record" out || fail "half record not reported"
jsonl_ids r/results.jsonl >ids
[[ $(wc -l <ids) == "$total" ]] || fail "$(wc -l <ids) records, expected $total"
[[ -z $(uniq -d ids) ]] || fail "cases recorded twice: $(uniq -d ids | head -3)"
"$ACLCTS" list s.yaml | sort | diff - ids || fail "resumed ids differ from the suite's"

expect_rc 0 "$ACLCTS" run --quiet --jobs 2 --out whole s.yaml
diff <(jsonl_table whole/results.jsonl) <(jsonl_table r/results.jsonl) \
  || fail "interrupted + resumed verdicts differ from one whole run"
# Resuming a complete file runs nothing and keeps the verdict.
expect_rc 0 "$ACLCTS" run --resume r/results.jsonl --out r s.yaml
grep -q "0 cases to run" out || fail "a complete file was not fully skipped"
[[ $(wc -l <r/results.jsonl) == "$total" ]] || fail "a complete resume appended records"
echo PASS
