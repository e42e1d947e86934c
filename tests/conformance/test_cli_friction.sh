#!/usr/bin/env bash
# Small things a new user meets, each as the command should behave (each failed on the release
# before): `run` with no suites found names where it looked (exit 2), not "suites:1:1: error:
# file: cannot access"; `list` whose filter matches nothing says so (exit 1) instead of
# silence; the "N cases written for another contract" notice appears once per run, not in the
# plan and again at the end, and not at all from a plain `list`; `help` lists every exit status
# (RESOURCE_ERROR, the write errors, 130/143); `verify-package --check-backend` says which
# libraries it compared.
source "$(dirname "$0")/e2e_lib.sh"
S=$ACLCTS_SOURCE_DIR/suites
write_suite s.yaml

# run, list with no suite given, in a directory without ./suites
mkdir empty && cd empty
expect_rc 2 "$ACLCTS" run --quiet
grep -q "error: no suites found: no suite was given and the default, ./suites, does not exist in $T/empty" "$T/out" ||
  fail "$(cat "$T/out")"
grep -q "suites:1:1" "$T/out" && fail "the loader's message for a missing file: $(cat "$T/out")"
[[ -z $(ls) ]] || fail "run without suites wrote $(ls)"
expect_rc 2 "$ACLCTS" list
grep -q "no suites found" "$T/out" || fail "$(cat "$T/out")"
cd "$T"

# list with nothing selected
expect_rc 1 "$ACLCTS" list --filter 'no.such.*' s.yaml
grep -q "aclcts: list: no case selected (20 cases in the suites; check --filter, --product, --quick)" out ||
  fail "$(cat out)"
expect_rc 1 "$ACLCTS" list --count --filter 'no.such.*' s.yaml
grep -q '^0$' out || fail "$(cat out)"

# the contract notice: once in a run, never from a list that prints ids
f=$S/avgpool2d_backward/covering.yaml
expect_rc 0 "$ACLCTS" list "$f"
grep -q "another contract" out && fail "list printed the contract notice: $(cat out)"
n=$("$ACLCTS" run --jobs 2 --product ascend910b --filter '*.ascend910b' --out r "$f" 2>&1 |
    grep -c "cases written for another contract than doc are not selected" || true)
[[ $n == 1 ]] || fail "the contract notice was printed $n times in a run"

# help: every exit status
expect_rc 0 "$ACLCTS" help
for s in "RESOURCE_ERROR" "  2    usage or suite errors, and an output that could not be written" "130"; do
  grep -q -- "$s" out || fail "help lacks '$s': $(cat out)"
done

# verify-package --check-backend lists what it compared
expect_rc 0 "$ACLCTS" run --quiet --jobs 2 --product ascend910b --out r2 s.yaml
rc=0; "$ACLCTS" certify --product ascend910b --out pkg --results r2/results.jsonl s.yaml >cert 2>&1 || rc=$?
[[ $rc == 1 ]] || { cat cert; fail "certify of a non-canonical set: exit $rc"; }
expect_rc 0 "$ACLCTS" verify-package --check-backend pkg
grep -q "^backend: 3 libraries recorded by 1 run session, re-hashed on this machine:" out || fail "$(cat out)"
grep -q "libopapi.so (session 1: host .*, backend emu): same SHA-256" out || fail "$(cat out)"
echo PASS
