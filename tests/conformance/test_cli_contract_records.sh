#!/usr/bin/env bash
# Results judged by one contract are not resumed or merged with another's: `run --resume F`
# and `merge` refuse a file whose records name another contract (exit 2, nothing written),
# naming the file, the record's line and both contracts, as certify already does.
source "$(dirname "$0")/e2e_lib.sh"
write_suite s.yaml
expect_rc 0 "$ACLCTS" run --quiet --out doc s.yaml
expect_rc 0 "$ACLCTS" run --quiet --contract vendor --out ven s.yaml
n=$(wc -l <doc/results.jsonl)

# --resume: a doc file under --contract vendor, and the reverse; the file is left as it was.
cp doc/results.jsonl d.jsonl
expect_rc 2 "$ACLCTS" run --quiet --contract vendor --resume d.jsonl --out rd s.yaml
grep -q "^aclcts: error: --resume d.jsonl:1: .* was judged by contract doc; this run judges by vendor@9.2" "$T/out" ||
  fail "resume of doc records under vendor: $(cat "$T/out")"
cmp -s d.jsonl doc/results.jsonl || fail "the refused resume changed the file"
cp ven/results.jsonl v.jsonl
expect_rc 2 "$ACLCTS" run --quiet --resume v.jsonl --out rv s.yaml
grep -q "v.jsonl:1: .* judged by contract vendor@9.2; this run judges by doc" "$T/out" ||
  fail "resume of vendor records under doc: $(cat "$T/out")"
# One foreign record among the file's own, after a blank line: its line is named.
head -n 2 doc/results.jsonl >mixed.jsonl
echo >>mixed.jsonl
sed -n 3p ven/results.jsonl >>mixed.jsonl
expect_rc 2 "$ACLCTS" run --quiet --resume mixed.jsonl --out rm s.yaml
grep -q "mixed.jsonl:4: .* judged by contract vendor@9.2; this run judges by doc" "$T/out" ||
  fail "the foreign record's line: $(cat "$T/out")"
# The matching contract (here by its alias) still resumes: nothing left to run.
expect_rc 0 "$ACLCTS" run --contract vendor --resume v.jsonl --out rv2 s.yaml
grep -q "0 cases to run" "$T/out" || fail "a resume of the same contract: $(cat "$T/out")"

# merge: two contracts (either order), one file holding both; nothing written.
expect_rc 2 "$ACLCTS" merge m1 doc/results.jsonl ven/results.jsonl
grep -q "^aclcts: error: ven/results.jsonl:1: .* judged by contract vendor@9.2, but doc/results.jsonl:1 by doc" "$T/out" ||
  fail "merge doc + vendor: $(cat "$T/out")"
[[ ! -e m1/results.jsonl ]] || fail "a refused merge wrote results"
expect_rc 2 "$ACLCTS" merge m2 ven/results.jsonl doc/results.jsonl
grep -q "doc/results.jsonl:1: .* judged by contract doc, but ven/results.jsonl:1 by vendor@9.2" "$T/out" ||
  fail "merge vendor + doc: $(cat "$T/out")"
expect_rc 2 "$ACLCTS" merge m3 mixed.jsonl
grep -q "mixed.jsonl:4: .* judged by contract vendor@9.2, but mixed.jsonl:1 by doc" "$T/out" ||
  fail "merge of one mixed file: $(cat "$T/out")"
# Records of one contract merge as before.
expect_rc 0 "$ACLCTS" merge m4 doc/results.jsonl d.jsonl
[[ $(wc -l <m4/results.jsonl) == "$n" ]] || fail "merge of one contract: $(cat "$T/out")"
echo PASS
