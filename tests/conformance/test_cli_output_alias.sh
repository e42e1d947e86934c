#!/usr/bin/env bash
# Outputs that are one file under two names are refused before anything runs (exit 2, both
# names given): `--jsonl F --junit F` once overwrote the durable JSONL with XML and exited 0.
# An output that is an input (a suite, merge's input) is refused the same way.
# Names are compared by the file they reach (same device and inode, or the same real directory
# and name for files not yet made), so ./, .., and symlinks do not hide an alias.
source "$(dirname "$0")/e2e_lib.sh"
write_suite s.yaml
expect_rc 0 "$ACLCTS" run --quiet --jobs 2 --out r s.yaml
cp r/results.jsonl keep.jsonl

expect_rc 2 "$ACLCTS" run --quiet --out r --jsonl r/x.jsonl --junit ./r/../r/x.jsonl s.yaml
grep -q "error: --jsonl r/x.jsonl and --junit ./r/../r/x.jsonl are one file" out || fail "$(cat out)"
[[ ! -e r/x.jsonl ]] || fail "created an output despite the refusal"

expect_rc 2 "$ACLCTS" run --quiet --out r --jsonl r/summary.md s.yaml
grep -q "error: --jsonl r/summary.md and summary r/summary.md are one file" out || fail "$(cat out)"

ln -s r/results.jsonl link.xml
expect_rc 2 "$ACLCTS" run --quiet --out r --junit link.xml s.yaml
grep -q "error: --jsonl r/results.jsonl and --junit link.xml are one file" out || fail "$(cat out)"
cmp -s r/results.jsonl keep.jsonl || fail "the JSONL was touched"

# An output under an input's name: refused before anything is written (before: `--junit in.yaml`
# overwrote the suite with XML).
cp s.yaml keep.yaml
expect_rc 2 "$ACLCTS" run --quiet --out r2 --junit s.yaml s.yaml
grep -q "error: --junit s.yaml is the suite s.yaml; an output must not overwrite an input" out ||
  fail "$(cat out)"
expect_rc 2 "$ACLCTS" run --quiet --out r2 --jsonl ./s.yaml s.yaml
grep -q "error: --jsonl ./s.yaml is the suite s.yaml" out || fail "$(cat out)"
cmp -s s.yaml keep.yaml || fail "the suite was touched"
[[ ! -e r2 ]] || fail "created an output directory despite the refusal"
# merge: OUT/results.jsonl that is an input.
cp r/results.jsonl before.jsonl
expect_rc 2 "$ACLCTS" merge r r/results.jsonl
grep -q "error: the output r/results.jsonl is the input r/results.jsonl" out || fail "$(cat out)"
cmp -s r/results.jsonl before.jsonl || fail "merge touched its input"

# --resume and --jsonl may name one file in two spellings, not two files.
expect_rc 0 "$ACLCTS" run --quiet --out r --resume r/results.jsonl --jsonl ./r/results.jsonl s.yaml
expect_rc 2 "$ACLCTS" run --quiet --out r --resume r/results.jsonl --jsonl other.jsonl s.yaml
echo PASS
