#!/usr/bin/env bash
# verify-package --rejudge re-derives each verdict from the package's evidence (the device's
# outputs of every case whose outputs were judged, run --evidence):
# - an honest package passes it, every numeric case re-judged as recorded;
# - a forged shard (a device 3 ULP off, ACLNN_EMU_FAULT=ulp:3: its FAILs edited to PASS with
#   every figure a PASS would show, so each record agrees with itself) is packaged by certify
#   and accepted by verify-package, but --rejudge names each forged case;
# - outputs swapped for others (the evidence of another case) are refused by their hash.
source "$(dirname "$0")/e2e_lib.sh"
P=ascend910b
write_suite suite.yaml

expect_rc 0 "$ACLCTS" run --product $P --jobs 2 --quiet --out good --evidence good-ev suite.yaml
ls good-ev/*.gz >/dev/null || fail "run --evidence wrote no evidence"
expect_rc 1 "$ACLCTS" certify --product $P --out goodpkg --results good/results.jsonl \
  --evidence good-ev suite.yaml
grep -q '"role": *"evidence"' goodpkg/manifest.json || fail "the manifest lists no evidence"
expect_rc 0 "$ACLCTS" verify-package --rejudge goodpkg.tar.gz
grep -q -- "--rejudge: [1-9][0-9]* cases re-judged from their evidence, as recorded" out ||
  fail "--rejudge of an honest package: $(cat out)"
# certify running the cases itself packs its run's evidence too (nothing else left behind).
expect_rc 1 "$ACLCTS" certify --product $P --jobs 2 --out herepkg suite.yaml
[[ ! -e herepkg/evidence ]] || fail "certify left its evidence directory in the package"
expect_rc 0 "$ACLCTS" verify-package --rejudge herepkg.tar.gz
grep -q -- "--rejudge: [1-9][0-9]* cases re-judged" out || fail "--rejudge of certify's own run: $(cat out)"

ACLNN_EMU_FAULT=ulp:3 expect_rc 1 "$ACLCTS" run --product $P --jobs 2 --quiet --out bad \
  --evidence bad-ev suite.yaml
nfail=$(grep -c '"status":"FAIL"' bad/results.jsonl) || true
[[ $nfail -gt 0 ]] || fail "the ulp:3 fault failed no case"
mkdir forged && cp bad/results.provenance.jsonl forged/
python3 - bad/results.jsonl good/results.jsonl >forged/results.jsonl <<'PY'
import json, sys
good = {json.loads(l)["id"]: json.loads(l) for l in open(sys.argv[2])}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["status"] == "FAIL":  # every figure but the outputs' hash taken from the honest run
        h = r["output_hash"]
        r = dict(good[r["id"]], output_hash=h, session=r.get("session", good[r["id"]].get("session")))
    print(json.dumps(r).replace("Infinity", "1e999").replace("NaN", "null"))
PY
expect_rc 1 "$ACLCTS" certify --product $P --out forgedpkg --results forged/results.jsonl \
  --evidence bad-ev suite.yaml
grep -q "contradicts itself" out && fail "the forgery is not consistent: $(cat out)"
expect_rc 0 "$ACLCTS" verify-package forgedpkg
expect_rc 1 "$ACLCTS" verify-package --rejudge forgedpkg
n=$(grep -c "the record differs from its evidence in status" out) || true
[[ $n -eq $nfail ]] || { cat out; fail "--rejudge named $n of the $nfail forged records"; }

# Outputs that are not the recorded ones: refused by their hash.
ids=($(cd good-ev && ls *.gz | head -2))
cp "good-ev/${ids[1]}" "good-ev/${ids[0]}"
expect_rc 1 "$ACLCTS" certify --product $P --out swappedpkg --results good/results.jsonl \
  --evidence good-ev suite.yaml
expect_rc 1 "$ACLCTS" verify-package --rejudge swappedpkg
grep -q "evidence.tar.gz: ${ids[0]%.gz}: \|differs from its evidence in output_hash" out ||
  fail "swapped evidence: $(cat out)"
echo "rejudge: honest package re-judged as recorded; $nfail forged records named by --rejudge; swapped outputs refused"
