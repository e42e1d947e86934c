#!/usr/bin/env bash
# tools/bench-stages: its table from hand-made records (expected figures derived by hand below),
# and bad input refused with a message and a non-zero exit instead of a run of the vendor set or
# a Python traceback (--help and an unknown option ran the whole set; a bad line raised).
source "$(dirname "$0")/e2e_lib.sh"
bs=$ACLCTS_SOURCE_DIR/tools/bench-stages
export ACLCTS # a run uses this binary (no build)

expect_rc 0 "$bs" --help
grep -q '^Usage: tools/bench-stages' "$T/out" || fail "--help: no usage line"

# 2 M elements of FP16 avg-pool, CPU 1, 2, 4, 3 s: per million 0.5, 1, 2, 1.5;
# gen/ref 1/4 = 0.25, check/ref 3/4 = 0.75. B: checks 1.5 s, so B/A of checks 0.500.
rec() { echo "{\"op\":\"avgpool2d_backward\",\"dtype\":\"float16\",\"nelems\":2000000,\"c_gen\":1,\"c_device\":2,\"c_ref\":4,\"c_check\":$1}"; }
rec 3 >a.jsonl
rec 1.5 >b.jsonl
expect_rc 0 "$bs" --results a.jsonl
grep -Eq '^avgpool2d_backward +float16 +1 +2\.00 +0\.5000 +1\.0000 +2\.0000 +1\.5000 +0\.25 +0\.75$' \
  "$T/out" || { cat "$T/out" >&2; fail "per-million row"; }
expect_rc 0 "$bs" --results a.jsonl --results b.jsonl
grep -Eq '^avgpool2d_backward +float16 +1\.000 +1\.000 +1\.000 +0\.500$' "$T/out" ||
  { cat "$T/out" >&2; fail "B/A row"; }

expect_rc 2 "$bs" --results missing.jsonl
grep -q 'missing.jsonl: no such readable file' "$T/out" || fail "missing file not named"
expect_rc 2 "$bs" --results
expect_rc 2 "$bs" --results a.jsonl --results a.jsonl --results a.jsonl
expect_rc 2 "$bs" --results a.jsonl --jobs 1
{ rec 3; echo '{"op": '; } >bad.jsonl
expect_rc 1 "$bs" --results bad.jsonl
grep -q 'bad.jsonl:2: not a JSON record' "$T/out" || { cat "$T/out" >&2; fail "bad line not named"; }
echo '{"op":"avgpool2d_backward","nelems":1}' >nodtype.jsonl
expect_rc 1 "$bs" --results nodtype.jsonl
grep -q "nodtype.jsonl:1: a record without 'dtype'" "$T/out" || fail "missing field not named"
: >empty.jsonl
expect_rc 1 "$bs" --results empty.jsonl
grep -q 'empty.jsonl: no records' "$T/out" || fail "empty file"
# an option aclcts refuses: its own message, exit 1, no table
expect_rc 1 "$bs" --no-such-option
grep -q 'unknown option --no-such-option' "$T/out" || { cat "$T/out" >&2; fail "aclcts's words"; }
! grep -q 'per million' "$T/out" || fail "a table from a run that wrote nothing"
echo "bench-stages: ok"
