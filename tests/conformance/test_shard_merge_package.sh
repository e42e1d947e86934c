#!/usr/bin/env bash
# Across machines: 4 shards of a certification run as separate processes (one per scheduler
# recipe: --shard, Slurm array variables, Kubernetes JOB_COMPLETION_INDEX with --shards, and
# --shard again), packaged with `certify --results ...`, must give exactly the records
# of a single-machine `certify` (per case: status, failing check, output hash, worst ULP), the
# same verdict and counts, and both packages must pass verify-package. The suite is the e2e avg-pool
# suite (write_suite) on two products; the expected equality is by construction of the harness
# (same seed, same data), so any difference is a defect of sharding or merging. The suite is
# not the canonical set, so both packages say NOT CONFORMANT (exit 1) for that reason alone.
source "$(dirname "$0")/e2e_lib.sh"
write_suite suite.yaml
P=ascend910b
expect_rc 1 "$ACLCTS" certify --product $P --out single --jobs 1 suite.yaml
grep -q "NOT CONFORMANT.*the suite set is not the canonical one" out || fail "reason not given"
"$ACLCTS" run --product $P --quiet --jobs 1 --out s0 --shard 0/4 suite.yaml >log0 2>&1 &
SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_COUNT=4 \
  "$ACLCTS" run --product $P --quiet --jobs 1 --out s1 suite.yaml >log1 2>&1 &
JOB_COMPLETION_INDEX=2 "$ACLCTS" run --product $P --quiet --jobs 1 --out s2 --shards 4 \
  suite.yaml >log2 2>&1 &
"$ACLCTS" run --product $P --quiet --jobs 1 --out s3 --shard 3/4 suite.yaml >log3 2>&1 &
wait
for k in 0 1 2 3; do
  [[ -s s$k/results.jsonl ]] || { cat log$k; fail "shard $k wrote nothing"; }
  grep -q "shard $k/4" log$k || [[ $(wc -l <s$k/results.jsonl) -gt 0 ]] || fail "shard $k"
done
expect_rc 1 "$ACLCTS" certify --product $P --out merged --results s0/results.jsonl \
  --results s1/results.jsonl --results s2/results.jsonl --results s3/results.jsonl suite.yaml
table() { python3 -c '
import json, sys
for r in sorted((json.loads(l) for l in open(sys.argv[1])), key=lambda r: r["id"]):
    print(r["id"], r["status"], r["check"], r["output_hash"], r["worst_ulp"], r["worst_bound_units"])' "$1"; }
table single/results.jsonl >a.txt
table merged/results.jsonl >b.txt
[[ $(wc -l <a.txt) -ge 8 ]] || fail "too few cases"
diff a.txt b.txt || fail "merged shards differ from the single run"
for k in 0 1 2 3; do [[ $(wc -l <s$k/results.jsonl) -lt $(wc -l <a.txt) ]] || fail "shard $k ran everything"; done
verdict() { python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["verdict"], m["counts"])' "$1"; }
[[ $(verdict single/manifest.json) == "$(verdict merged/manifest.json)" ]] || fail "verdicts differ"
diff single/audit.csv merged/audit.csv || fail "audit of the shards differs from the single run's"
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); assert sorted(s["shard"] for s in m["shards"]) == ["0/4","1/4","2/4","3/4"], m["shards"]' merged/manifest.json || fail "per-shard provenance"
expect_rc 0 "$ACLCTS" verify-package merged.tar.gz
expect_rc 0 "$ACLCTS" verify-package single
echo "4 shards merged: $(wc -l <b.txt) cases identical to one run; $(verdict merged/manifest.json)"
