#!/usr/bin/env bash
# The Slurm recipe of docs/certification.md on a real one-node cluster: Debian's slurm-wlm and
# munge (installed when missing), munged, slurmctld and slurmd started on localhost with their
# state, sockets and logs in this test's temp dir (tools/lib/slurm_cluster.sh), stopped at the
# end. Submits the documented commands (tools/slurm/certify-array.sbatch with a run option passed
# through, then certify-package.sh with an afterany dependency; a stepped array), cancels one
# array task mid-run, checks that the package job refuses (exit 1, no package, the recovery
# command printed), recovers the task the documented way (sbatch --array=ID, which resumes that
# shard), packages again, and checks the package verifies and equals a single-process certify
# case by case (status, check, output hash, worst errors: same seed, same data, so any difference
# is a defect). Exits 77 (ctest SKIPPED) with the reason when the daemons cannot run here (not
# root, no packages, a daemon that does not come up).
source "$(dirname "$0")/e2e_lib.sh"
SRC=$ACLCTS_SOURCE_DIR
source "$SRC/tools/lib/slurm_cluster.sh"
P=ascend310b
skip() { echo "SKIPPED: $*"; exit 77; }
t_start=$(date +%s.%N)
# Stopping: cancel the jobs, stop the daemons, kill what is left of this cluster's job steps.
trap 'slurm_cluster_stop; rm -rf "$T"' EXIT
slurm_cluster_start "$T/cluster" || skip "$SLURM_CLUSTER_ERROR"
t_up=$(date +%s.%N)

# The documented commands, from a submit directory (ACLCTS and ACLCTS_SUITES as documented for
# running outside the repository root; sbatch exports them to the tasks).
cd "$T" || exit 1
export ACLCTS ACLCTS_SUITES=$SRC/suites/
wait_done() { # JOBID [TIMEOUT]: until no task of the job is pending or running
  slurm_wait_done "$1" "${2:-150}" || fail "job $1 did not finish: $(squeue -j "$1")"
}
# A stepped array (task ids 1 3 5 7 are shards 0..3); task 5 (shard 2) is cancelled mid-run. Its
# first run goes through a wrapper (the documented ACLCTS variable) under which aclcts stops
# itself right after its first record to shards/2/results.jsonl (e2e_lib.sh stop_after_records),
# so the cancel lands mid-run however fast or loaded the machine is, and the cancel's signals
# reach the paused run as they would a busy one. Slurm's cancel continues the run (SIGCONT) a
# moment before its SIGTERM: in that moment a shard of cases that only check a status could
# finish ("124 of 124" under ctest -j4), so the continued run is held until the SIGTERM.
cat >"$T/pause-task5" <<WRAP
#!/usr/bin/env bash
[[ \${SLURM_ARRAY_TASK_ID:-} == 5 ]] || exec "$ACLCTS" "\$@"
exec env $(stop_after_records 1 /shards/2/results.jsonl) "$ACLCTS" "\$@"
WRAP
chmod +x "$T/pause-task5"
jid=$(ACLCTS=$T/pause-task5 sbatch --parsable --array=1-7:2 "$SRC/tools/slurm/certify-array.sbatch" \
  $P shards --timeout 120)
for ((i = 0; i < 1500; i++)); do
  [[ -e $T/stopped && $(slurm_job_state "${jid}_5") == RUNNING ]] && break
  sleep 0.1
done
[[ $(slurm_job_state "${jid}_5") == RUNNING ]] ||
  fail "task 5 never ran long enough to be cancelled ($(slurm_job_state "${jid}_5")): $(tail -3 aclcts-shard-"${jid}"_5.log 2>&1)"
scancel "${jid}_5"
pk=$(sbatch --parsable --dependency=afterany:"$jid" --output=package1.log \
  "$SRC/tools/slurm/certify-package.sh" $P cert shards)
wait_done "$jid"; wait_done "$pk"
[[ $(slurm_job_state "${jid}_5") == CANCELLED ]] || fail "task 5: $(slurm_job_state "${jid}_5")"
got=$(wc -l <shards/2/results.jsonl)
want=$("$ACLCTS" list --product $P --shard 2/4 "$ACLCTS_SUITES" | wc -l)
((got < want)) || fail "task 5 finished before the cancel ($got of $want)"
echo "task 5 cancelled with $got of $want records"
[[ $(slurm_exit_code "$pk") == 1:0 ]] || { cat package1.log; fail "package job after the cancel: exit $(slurm_exit_code "$pk")"; }
grep -q "shard 2/4 has $got of $want cases; recover it with: sbatch --array=5 " package1.log || { cat package1.log; fail "no recovery line"; }
grep -q "no package written" package1.log || fail "certify did not refuse"
[[ ! -e cert && ! -e cert.tar.gz ]] || fail "a package from incomplete shards"
t_cancel=$(date +%s.%N)

# Recovery, the documented way: the same task id again (resumes shard 2 of 4), then package.
rid=$(sbatch --parsable --array=5 "$SRC/tools/slurm/certify-array.sbatch" $P shards --timeout 120)
wait_done "$rid"
grep -q "resuming shards/2/results.jsonl" aclcts-shard-"${rid}"_5.log || fail "recovery did not resume"
[[ $(jsonl_ids shards/2/results.jsonl | uniq -d) == "" ]] || fail "a case ran twice"
pk=$(sbatch --parsable --output=package2.log "$SRC/tools/slurm/certify-package.sh" $P cert shards)
wait_done "$pk"
[[ $(slurm_exit_code "$pk") == 0:0 ]] || { cat package2.log; fail "package job after recovery: exit $(slurm_exit_code "$pk")"; }
grep -q "^$P: CONFORMANT" package2.log || fail "verdict line"
t_slurm=$(date +%s.%N)

expect_rc 0 "$ACLCTS" verify-package cert.tar.gz
python3 - cert/manifest.json "$got" "$want" <<'PY' || fail "per-shard provenance"
import json, sys
m = json.load(open(sys.argv[1]))
got, want = int(sys.argv[2]), int(sys.argv[3])
s = m["shards"]
assert sorted({x["shard"] for x in s}) == ["0/4", "1/4", "2/4", "3/4"], s
# shard 2: the cancelled session (its end is empty if SIGKILL came before run could finish its
# record) and the resumed one, which ran exactly the cases the first had not recorded
two = [x for x in s if x["shard"] == "2/4"]
resumed = [x for x in two if "--resume shards/2/results.jsonl" in x["command"]]
assert len(two) == 2 and len(resumed) == 1 and resumed[0]["cases"] == want - got, (two, got, want)
assert all("--timeout 120" in x["command"] for x in s)   # the run option passed through
PY
expect_rc 0 "$ACLCTS" certify --product $P --out single "$ACLCTS_SUITES"
table() { python3 -c '
import json, sys
for r in sorted((json.loads(l) for l in open(sys.argv[1])), key=lambda r: r["id"]):
    print(r["id"], r["status"], r["check"], r["output_hash"], r["worst_ulp"], r["worst_bound_units"], r["worst_rel"])' "$1"; }
table single/results.jsonl >a.txt; table cert/results.jsonl >b.txt
diff a.txt b.txt || fail "the Slurm package differs from a single-process certify"
diff <(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["verdict"], m["counts"], m["suite_set"])' single/manifest.json) \
     <(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["verdict"], m["counts"], m["suite_set"])' cert/manifest.json) || fail "verdicts differ"
t_end=$(date +%s.%N)
python3 -c "import sys; a=[float(x) for x in sys.argv[1:]]
print(f'slurm recipe: {len(open(\"b.txt\").readlines())} cases identical to one certify; '
      f'cluster up {a[1]-a[0]:.1f} s, array+cancel+refused package {a[2]-a[1]:.1f} s, '
      f'recovery+package {a[3]-a[2]:.1f} s, verify+single certify+compare {a[4]-a[3]:.1f} s, total {a[4]-a[0]:.1f} s')" \
  "$t_start" "$t_up" "$t_cancel" "$t_slurm" "$t_end"
