#!/usr/bin/env bash
# Isolation: a device that crashes costs one case (CRASH naming SIGSEGV) and the run goes on; a
# device that hangs is killed after --timeout (TIMEOUT). Faults from the emulated device's
# ACLNN_EMU_FAULT switch (kernels/common/emu.h: crash = SIGSEGV, hang = never returns, both in
# the second phase, which cases that stop at a first-phase error never reach).
source "$(dirname "$0")/e2e_lib.sh"
write_suite s.yaml
total=$("$ACLCTS" list --count s.yaml)

ACLNN_EMU_FAULT=crash expect_rc 1 "$ACLCTS" run --quiet --jobs 2 --out crash s.yaml
[[ $(wc -l <crash/results.jsonl) == "$total" ]] || fail "not every case has a verdict after crashes"
python3 - crash/results.jsonl <<'PY' || fail "crash verdicts"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
crashed = [r for r in rows if r["status"] == "CRASH"]
assert crashed and all("SIGSEGV" in r["message"] and r["check"] == "crash" for r in crashed), crashed[:1]
# cases that stop at a first-phase error never reach the faulty second phase: still PASS
ok = [r["id"] for r in rows if r["status"] == "PASS"]
assert ok and all(".pad_too_big." in i for i in ok), ok
assert all(r["repro"].startswith("ACLNN_EMU_FAULT=crash ") for r in crashed)
PY
grep -q '^CRASH .*SIGSEGV' out || fail "CRASH not printed"
# One worker runs case after case: each crash still costs exactly its own case, and the cases
# after it (on the replacement worker) get the same verdicts as with two workers.
ACLNN_EMU_FAULT=crash expect_rc 1 "$ACLCTS" run --quiet --jobs 1 --out crash1 s.yaml
python3 - crash/results.jsonl crash1/results.jsonl <<'PY' || fail "crash verdicts with one worker"
import json, sys
a, b = ({json.loads(l)["id"]: json.loads(l)["status"] for l in open(f)} for f in sys.argv[1:])
assert a == b, {k: (a[k], b.get(k)) for k in a if a[k] != b.get(k)}
PY

start=$(date +%s)
ACLNN_EMU_FAULT=hang expect_rc 1 "$ACLCTS" run --quiet --jobs 2 --timeout 2 --out hang \
  --filter '*doc_example*' --filter '*pad_too_big*' s.yaml
took=$(( $(date +%s) - start ))
(( took < 20 )) || fail "hung workers were not killed promptly (${took}s)"
python3 - hang/results.jsonl <<'PY' || fail "hang verdicts"
import json, sys
rows = {json.loads(l)["id"]: json.loads(l) for l in open(sys.argv[1])}
assert len(rows) == 4, rows.keys()
for p in ("ascend910b", "ascend910"):
    r = rows["e2e.avgpool.doc_example." + p]
    assert r["status"] == "TIMEOUT" and r["check"] == "timeout" and "SIGKILL" in r["message"], r
    assert rows["e2e.avgpool.pad_too_big." + p]["status"] == "PASS"
PY
# A hang costs its own case on a single worker too; the case after it runs on a new worker.
ACLNN_EMU_FAULT=hang expect_rc 1 "$ACLCTS" run --quiet --jobs 1 --timeout 1 --out hang1 \
  --filter '*doc_example.ascend910b' --filter '*pad_too_big*' s.yaml
python3 - hang1/results.jsonl <<'PY' || fail "hang verdicts with one worker"
import json, sys
rows = {json.loads(l)["id"]: json.loads(l)["status"] for l in open(sys.argv[1])}
assert rows == {"e2e.avgpool.doc_example.ascend910b": "TIMEOUT",
                "e2e.avgpool.pad_too_big.ascend910b": "PASS",
                "e2e.avgpool.pad_too_big.ascend910": "PASS"}, rows
PY
# A device that leaks device memory (the emulation's counter, read through an optional symbol)
# fails the cases that reach the second phase with check `leak`.
ACLNN_EMU_FAULT=leak expect_rc 1 "$ACLCTS" run --quiet --jobs 2 --out leak s.yaml
python3 - leak/results.jsonl <<'PY' || fail "leak verdicts"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
leaked = [r for r in rows if r["status"] == "FAIL"]
assert leaked and all(r["check"] == "leak" and "4096 more bytes" in r["message"] for r in leaked), leaked[:1]
PY
echo PASS
