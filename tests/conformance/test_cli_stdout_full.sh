#!/usr/bin/env bash
# Output that cannot reach stdout is a lost result: every command that prints exits 2 with
# "writing standard output" when stdout is /dev/full (ENOSPC), instead of its own status.
# Before, `aclcts list > /dev/full` exited 0.
source "$(dirname "$0")/e2e_lib.sh"
write_suite s.yaml
expect_rc 0 "$ACLCTS" run --quiet --jobs 2 --out r s.yaml

# full_stdout RC_IF_FINE CMD...: with stdout on /dev/full the command exits 2 and says why.
full_stdout() {
  local rc=0
  "$@" >/dev/full 2>"$T/err" || rc=$?
  [[ $rc == 2 ]] || { cat "$T/err" >&2; fail "exit $rc with stdout on /dev/full: $*"; }
  grep -q "error: writing standard output: No space left on device" "$T/err" ||
    fail "the failed write is not named: $(cat "$T/err")"
}
full_stdout "$ACLCTS" list s.yaml
full_stdout "$ACLCTS" list --count s.yaml
full_stdout "$ACLCTS" show e2e.avgpool.doc_example.ascend910b s.yaml
full_stdout "$ACLCTS" coverage s.yaml
full_stdout "$ACLCTS" help
full_stdout "$ACLCTS" help run
full_stdout "$ACLCTS" --version
full_stdout "$ACLCTS" run --quiet --jobs 2 --out r2 s.yaml
full_stdout "$ACLCTS" merge m r/results.jsonl
# The same commands with a working stdout exit 0 (the failure above is stdout's alone).
expect_rc 0 "$ACLCTS" list s.yaml
expect_rc 0 "$ACLCTS" merge m2 r/results.jsonl
echo PASS
