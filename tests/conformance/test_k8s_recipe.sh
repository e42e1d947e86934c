#!/usr/bin/env bash
# The Kubernetes recipe (tools/k8s/*.yaml), offline: no cluster and no network here, so nothing is
# applied. (1) Schema checks of every field the recipe relies on, by the rules of the
# Kubernetes batch/v1 Job and core/v1 PersistentVolumeClaim APIs (written into the checker
# below: required fields, allowed values, restartPolicy Never with podFailurePolicy, exit code
# 0 never in an In rule, volumes that exist, one RWX claim shared by both Jobs, completions =
# parallelism = --shards). (2) The pods' shell commands run for real on this machine with
# /aclcts and /shards mapped to the build and a temp dir: the four shard pods, a retried pod
# (resumes, runs nothing twice), the packaging pod (a package on the volume that verifies); and
# the exit code mapping (run's 1 = FAIL verdict is a finished shard, 0; 2 stays 2).
source "$(dirname "$0")/e2e_lib.sh"
SRC=$ACLCTS_SOURCE_DIR
python3 - "$SRC/tools/k8s/certify-indexed-job.yaml" "$SRC/tools/k8s/certify-package-job.yaml" \
  >cmds.txt <<'PY' || fail "schema"
import re, sys, yaml
docs = [d for f in sys.argv[1:] for d in yaml.safe_load_all(open(f)) if d]
def need(c, what):
    if not c: raise SystemExit(f"k8s recipe: {what}")
kinds = {(d["apiVersion"], d["kind"]) for d in docs}
need(kinds == {("v1", "PersistentVolumeClaim"), ("batch/v1", "Job")}, f"kinds {kinds}")
pvc = [d for d in docs if d["kind"] == "PersistentVolumeClaim"]
need(len(pvc) == 1, "one claim")
pvc = pvc[0]
need(re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", pvc["metadata"]["name"]), "claim name")
need(pvc["spec"]["accessModes"] == ["ReadWriteMany"], "the claim is ReadWriteMany")
need(re.fullmatch(r"\d+(Ki|Mi|Gi|Ti)", pvc["spec"]["resources"]["requests"]["storage"]), "storage")
jobs = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Job"}
need(len(jobs) == 2, "two jobs")
shard = next(j for j in jobs.values() if j["spec"].get("completionMode") == "Indexed")
package = next(j for j in jobs.values() if j is not shard)
JOB_KEYS = {"completionMode", "completions", "parallelism", "backoffLimit", "backoffLimitPerIndex",
            "podFailurePolicy", "template", "maxFailedIndexes", "activeDeadlineSeconds"}
for name, j in jobs.items():
    s = j["spec"]
    need(set(s) <= JOB_KEYS, f"{name}: unknown Job spec keys {set(s) - JOB_KEYS}")
    need(re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", name) and len(name) <= 63, f"{name}: name")
    pod = s["template"]["spec"]
    need(pod["restartPolicy"] in ("Never", "OnFailure"), f"{name}: restartPolicy")
    for k in ("backoffLimit", "backoffLimitPerIndex"):
        need(k not in s or (isinstance(s[k], int) and s[k] >= 0), f"{name}: {k}")
    vols = {v["name"]: v for v in pod["volumes"]}
    for c in pod["containers"]:
        need(c["name"] and c["image"] and c["command"] == ["/bin/sh", "-c"], f"{name}: container")
        need(len(c["args"]) == 1, f"{name}: one shell script")
        for m in c["volumeMounts"]:
            need(m["name"] in vols, f"{name}: mount of an undefined volume {m['name']}")
            need(vols[m["name"]]["persistentVolumeClaim"]["claimName"] == pvc["metadata"]["name"],
                 f"{name}: the shared claim")
            need(m["mountPath"] == "/shards", f"{name}: mounted at /shards")
    if "podFailurePolicy" in s:
        need(pod["restartPolicy"] == "Never", f"{name}: podFailurePolicy needs restartPolicy Never")
        cnames = {c["name"] for c in pod["containers"]}
        for r in s["podFailurePolicy"]["rules"]:
            need(r["action"] in ("FailJob", "Ignore", "Count", "FailIndex"), f"{name}: action")
            need(("onExitCodes" in r) != ("onPodConditions" in r), f"{name}: one requirement per rule")
            e = r.get("onExitCodes")
            if e:
                need(e["operator"] in ("In", "NotIn") and e.get("containerName", next(iter(cnames))) in cnames,
                     f"{name}: onExitCodes")
                need(all(isinstance(v, int) for v in e["values"]) and
                     (e["operator"] != "In" or 0 not in e["values"]) and
                     e["values"] == sorted(set(e["values"])), f"{name}: exit code values")
            for pc in r.get("onPodConditions", []):
                need(pc["type"] and pc.get("status", "True") in ("True", "False", "Unknown"), f"{name}: condition")
s = shard["spec"]
n = s["completions"]
need(s["parallelism"] == n, "parallelism = completions")
args = shard["spec"]["template"]["spec"]["containers"][0]["args"][0]
need(f"--shards {n} " in args and "$JOB_COMPLETION_INDEX" in args, "--shards N with the index")
need("--dump" not in args, "no dumps")
pargs = package["spec"]["template"]["spec"]["containers"][0]["args"][0]
need(f'-lt {n}' in pargs and "--out /shards/" in pargs, "the package is written to the volume")
print(args)
print(pargs)
PY
# (2) the commands, with /aclcts = the build, /shards = here
map() { sed -e "s|build/bin/aclcts|$ACLCTS|g" -e "s|/shards|$T/shards|g" -e "s|suites/|$SRC/suites/|g"; }
shard_cmd=$(sed -n 1p cmds.txt | map); package_cmd=$(sed -n 2p cmds.txt | map)
mkdir -p shards
for k in 0 1 2 3; do
  JOB_COMPLETION_INDEX=$k sh -c "$shard_cmd" >log$k 2>&1 || { cat log$k; fail "shard pod $k"; }
done
before=$(wc -l <shards/1/results.jsonl)
JOB_COMPLETION_INDEX=1 sh -c "$shard_cmd" >retry.log 2>&1 || fail "retried pod"
[[ $(wc -l <shards/1/results.jsonl) == "$before" ]] || fail "the retried pod ran cases again"
sh -c "$package_cmd" >package.log 2>&1 || { cat package.log; fail "packaging pod"; }
expect_rc 0 "$ACLCTS" verify-package shards/certification-ascend910b.tar.gz
# exit code mapping with a stand-in for aclcts
for rc in 1:0 2:2; do
  printf '#!/bin/sh\nexit %s\n' "${rc%%:*}" >stub; chmod +x stub
  got=0; JOB_COMPLETION_INDEX=0 sh -c "$(sed -n 1p cmds.txt | sed -e "s|build/bin/aclcts|$T/stub|" -e "s|/shards|$T/s2|g")" || got=$?
  [[ $got == "${rc##*:}" ]] || fail "run exiting ${rc%%:*}: the pod exits $got, expected ${rc##*:}"
done
echo "k8s recipe: schema checks passed; 4 shard pods, a retried pod and the packaging pod ran here; package verified"
