#!/usr/bin/env bash
# Refusals that used to be silent or misleading: unknown device switches (each case became
# ERROR "aclInit failed with 100000: (null)"), SIGINT (no reports, no hint), a --resume file of
# another run (merged into this one's reports), a merge input cut short (dropped silently,
# exit 0), repeated or conflicting shard options (last or one silently won), --timeout out of
# range ("expected seconds > 0").
source "$(dirname "$0")/e2e_lib.sh"
write_suite s.yaml

# Device switches: refused once, before anything runs or is created, naming the variable and
# what it accepts.
ACLNN_EMU_FAULT=crash,bogus expect_rc 2 "$ACLCTS" run --quiet --out e s.yaml
grep -q "ACLNN_EMU_FAULT entry 'bogus' is not a fault: expected status, skip-check, .* hang, leak or dense-batch" out || fail "$(cat out)"
[[ $(wc -l <out) == 1 && ! -e e ]] || fail "not one refusal up front: $(cat out)"
ACLCTS_SOC=ascend999 expect_rc 2 "$ACLCTS" run --quiet --out e s.yaml
grep -q "ACLCTS_SOC=ascend999 names no product profile: expected ascend910, ascend910b, ascend910_93, ascend310p, ascend310b or ascend950" out || fail "$(cat out)"
ACLNN_EMU_SPEC=docs expect_rc 2 "$ACLCTS" run --quiet --out e s.yaml
grep -q "ACLNN_EMU_SPEC=docs is not valid: expected doc, vendor or vendor-old" out || fail "$(cat out)"
ACLNN_EMU_FAULTS=crash expect_rc 2 "$ACLCTS" run --quiet --out e s.yaml
grep -q "ACLNN_EMU_FAULTS is not a switch of the emulated device: expected ACLNN_EMU_SPEC, " out || fail "$(cat out)"
ACLNN_EMU_SHUFFLE=yes expect_rc 2 "$ACLCTS" run --quiet --out e s.yaml
grep -q "ACLNN_EMU_SHUFFLE=yes is not valid: expected a whole number" out || fail "$(cat out)"
[[ ! -e e ]] || fail "outputs created before the refusal"

# Options.
expect_rc 2 "$ACLCTS" run --timeout 1e9 --out e s.yaml
grep -q -- "--timeout 1e9: expected seconds in (0, 1e+06\]" out || fail "$(cat out)"
expect_rc 2 "$ACLCTS" list --shard 0/2 --shard 1/2 s.yaml
grep -q -- "--shard given twice (0/2, then 1/2)" out || fail "$(cat out)"
expect_rc 2 "$ACLCTS" list --shard 0/2 --shards 4 s.yaml
grep -q -- "--shard 0/2 and --shards 4 disagree on the shard count" out || fail "$(cat out)"
expect_rc 2 "$ACLCTS" list --shards 2 --shards 4 s.yaml
expect_rc 0 "$ACLCTS" list --shard 1/4 --shards 4 s.yaml

# --resume of another run's file: refused, the file untouched.
expect_rc 0 "$ACLCTS" run --quiet --jobs 2 --out r s.yaml
cp r/results.jsonl before.jsonl
sed 's/^suite: e2e.avgpool/suite: e2e.other/' s.yaml >other.yaml
expect_rc 2 "$ACLCTS" run --quiet --out o --resume r/results.jsonl other.yaml
grep -q "records are not cases of this selection (e.g. e2e.avgpool" out || fail "$(cat out)"
expect_rc 2 "$ACLCTS" run --quiet --out r --resume r/results.jsonl --seed 12 s.yaml
n=$("$ACLCTS" list --count s.yaml)
grep -q "$n of its $n records are not cases of this selection .*seed 11" out || fail "$(cat out)"
cmp -s r/results.jsonl before.jsonl || fail "a refused --resume changed the file"

# merge of a file cut short: merged without the half record, a warning, exit 1.
{ cat r/results.jsonl; printf '{"id":"e2e.avgpool.half'; } >cut.jsonl
expect_rc 1 "$ACLCTS" merge m cut.jsonl
grep -q "cut.jsonl: warning: the last record is cut short (23 bytes without a newline" out || fail "$(cat out)"
diff <(jsonl_table r/results.jsonl) <(jsonl_table m/results.jsonl) || fail "merge lost a record"

# SIGINT: what finished is reported (JSONL, junit, summary), the resume line finishes the rest.
cat >slow.yaml <<'YAML'
suite: e2e.slow
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
    self_shape: [8, 8, 48, 48]  # the run stops itself after 3 records: SIGINT lands mid-run
    padding: [1, 1]
    cube_math_type: 1
    data: {grad_output: {int: [-4, 4]}}
YAML
total=$("$ACLCTS" list --count slow.yaml)
env $(stop_after_records 3 /i/results.jsonl) STOP_HOLD=0 "$ACLCTS" run --quiet --jobs 1 --out i slow.yaml >int.log 2>&1 &
pid=$!
wait_stopped $pid
kill -INT "$pid"
kill -CONT "$pid"
rc=0; wait "$pid" || rc=$?
[[ $rc == 130 ]] || { cat int.log; fail "exit $rc after SIGINT, expected 130"; }
done_n=$(wc -l <i/results.jsonl)
(( done_n < total )) || fail "the run finished before SIGINT; the test proves nothing"
grep -q "interrupted by SIGINT: $done_n of $total cases finished and are recorded in i/results.jsonl" int.log || fail "$(cat int.log)"
grep -q "tests=\"$done_n\"" i/junit.xml || fail "junit does not cover the finished cases"
grep -q "$done_n cases: $done_n PASS" int.log || fail "no summary of the finished cases: $(cat int.log)"
[[ -s i/summary.md ]] || fail "no summary.md"
line=$(sed -n 's/^aclcts: to continue: //p' int.log)
[[ $line == *"run --resume i/results.jsonl --quiet --jobs 1 --out i slow.yaml" ]] || fail "resume line: $line"
eval "$line" >out 2>&1 || { cat out; fail "the resume line failed"; }
jsonl_ids i/results.jsonl >ids
"$ACLCTS" list slow.yaml | sort | diff - ids || fail "after resume: ids lost or doubled"
echo PASS
