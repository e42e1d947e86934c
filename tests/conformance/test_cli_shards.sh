#!/usr/bin/env bash
# Sharding: the union of 4 shards is the whole run (same ids, statuses, checks and output
# hashes, each case once); the environment of Slurm / Kubernetes / gtest selects the same shard
# as --shard; `merge` of the shard files equals the whole run and refuses conflicting records.
source "$(dirname "$0")/e2e_lib.sh"
write_suite s.yaml
expect_rc 0 "$ACLCTS" run --quiet --jobs 2 --out whole s.yaml

for k in 0 1 2 3; do
  expect_rc 0 "$ACLCTS" run --quiet --jobs 2 --shard "$k/4" --out "shard$k" s.yaml
done
cat shard*/results.jsonl >union.jsonl
jsonl_ids union.jsonl >ids
[[ -z $(uniq -d ids) ]] || fail "a case ran in two shards: $(uniq -d ids | head -3)"
diff <(jsonl_table whole/results.jsonl) <(jsonl_table union.jsonl) || fail "shards != whole"
for k in 0 1 2 3; do
  [[ -s shard$k/results.jsonl ]] || fail "shard $k is empty (the hash split is lopsided)"
done

# The schedulers' variables pick the same cases as --shard K/N (Slurm ids here are 1-based).
"$ACLCTS" list --shard 2/4 s.yaml >want
GTEST_SHARD_INDEX=2 GTEST_TOTAL_SHARDS=4 "$ACLCTS" list s.yaml | diff want - || fail "gtest env"
JOB_COMPLETION_INDEX=2 "$ACLCTS" list --shards 4 s.yaml | diff want - || fail "k8s env"
SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=4 "$ACLCTS" list s.yaml \
  | diff want - || fail "slurm env"
JOB_COMPLETION_INDEX=2 expect_rc 2 "$ACLCTS" list s.yaml # index without a count

# merge: shards (one given twice, as a retried shard would be) == the whole run.
expect_rc 0 "$ACLCTS" merge merged shard0/results.jsonl shard1/results.jsonl \
  shard2/results.jsonl shard3/results.jsonl shard1/results.jsonl
diff <(jsonl_table whole/results.jsonl) <(jsonl_table merged/results.jsonl) || fail "merge != whole"
[[ -s merged/junit.xml && -s merged/summary.md ]] || fail "merge wrote no junit/summary"
grep -q 'tests="'"$(wc -l <whole/results.jsonl)"'"' merged/junit.xml || fail "junit count"

# A record that disagrees with another for the same case is an error, and nothing is written.
sed '1s/"status":"PASS"/"status":"FAIL"/' shard0/results.jsonl >conflict.jsonl
expect_rc 2 "$ACLCTS" merge bad conflict.jsonl shard0/results.jsonl
grep -q "error: .*PASS.*FAIL\|error: .*FAIL.*PASS" out || fail "conflict not named"
[[ ! -e bad ]] || fail "merge wrote output despite a conflict"
# A merged set with a failing case exits 1.
expect_rc 1 "$ACLCTS" merge m2 conflict.jsonl shard1/results.jsonl
echo PASS
