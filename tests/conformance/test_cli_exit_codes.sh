#!/usr/bin/env bash
# Exit codes and the refusal to run anything when a suite is malformed: 0 when nothing fails,
# 1 when a case fails, 2 for usage and suite errors (with FILE:LINE:COL messages, no results).
source "$(dirname "$0")/e2e_lib.sh"
write_suite ok.yaml

expect_rc 2 "$ACLCTS"
expect_rc 0 "$ACLCTS" --help
for cmd in run list show repro merge; do
  expect_rc 0 "$ACLCTS" "$cmd" --help
  grep -q "usage: aclcts $cmd" out || fail "$cmd --help has no usage line"
done
# `help COMMAND` prints exactly that command's --help; --version names the release.
for cmd in run list show repro merge certify verify-package audit; do
  expect_rc 0 "$ACLCTS" "$cmd" --help
  mv out want
  expect_rc 0 "$ACLCTS" help "$cmd"
  diff want out || fail "help $cmd differs from $cmd --help"
done
expect_rc 2 "$ACLCTS" help frobnicate
grep -q "unknown command 'frobnicate'" out || fail "help of an unknown command"
expect_rc 0 "$ACLCTS" --version
grep -qE '^aclcts [0-9]+\.[0-9]+\.[0-9]+' out || fail "--version: $(cat out)"
expect_rc 2 "$ACLCTS" frobnicate
expect_rc 2 "$ACLCTS" run --no-such-option ok.yaml
expect_rc 2 "$ACLCTS" run --jobs 0 ok.yaml
expect_rc 2 "$ACLCTS" run --shard 4/4 ok.yaml
grep -q "0-based" out || fail "--shard 4/4 does not explain the 0-based numbering"
expect_rc 2 "$ACLCTS" run --backend cann:/nonexistent ok.yaml
expect_rc 2 "$ACLCTS" run --out r0 --filter 'no.such.case*' ok.yaml
[[ ! -e r0 ]] || fail "a run that selected nothing wrote results"

# A malformed suite: the error names file, line, column and field; nothing runs or is written.
# (Line 6 col 12 is the value of kernel_size; the loader's exact wording is tested with the
# malformed-suite corpus, here only its shape and the consequences.)
cat >bad.yaml <<'YAML'
suite: e2e.bad
op: avgpool2d_backward
cases:
  - name: x
    dtype: float32
    kernel_size: seven
    self_shape: [1, 1, 4, 4]
YAML
expect_rc 2 "$ACLCTS" run --out r1 ok.yaml bad.yaml
grep -Eq '^bad\.yaml:6:[0-9]+: error: ' out || { cat out; fail "no FILE:LINE:COL error for bad.yaml"; }
[[ ! -e r1 ]] || fail "results were written although the suites did not load"
expect_rc 2 "$ACLCTS" list bad.yaml

# All pass -> 0, and the three reports exist.
expect_rc 0 "$ACLCTS" run --quiet --out r2 ok.yaml
for f in results.jsonl junit.xml summary.md; do [[ -s r2/$f ]] || fail "r2/$f missing"; done
n=$("$ACLCTS" list --count ok.yaml)
[[ $(wc -l <r2/results.jsonl) == "$n" ]] || fail "results.jsonl has not one line per case"
# pad_too_big: padding 2 > kernel/2 is 161002 by the documents, which the device must return.
grep -q '"id":"e2e.avgpool.pad_too_big.ascend910b".*"status":"PASS".*"expected_status":161002' \
  r2/results.jsonl || fail "pad_too_big did not pass with status 161002"

# A wrong expectation -> FAIL -> 1. (1/16 is the doc example's value; 0.5 is wrong.)
sed 's/grad_input: 0.0625/grad_input: 0.5/' ok.yaml >wrong.yaml
expect_rc 1 "$ACLCTS" run --quiet --out r3 --filter '*doc_example*' wrong.yaml
grep -q '^FAIL .*doc_example' out || fail "the failing case is not reported on the console"
grep -q '^    .*aclcts run --backend emu --product ascend910b --seed 11' out \
  || fail "no repro line for the failing case"
echo PASS
