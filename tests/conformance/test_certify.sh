#!/usr/bin/env bash
# certify + verify-package: a clean package verifies (directory and .tar.gz, sha256sum -c agrees);
# one changed byte in results.jsonl, in a packaged suite or in manifest.json, an added file, a
# deleted result line (with SHA256SUMS and the manifest re-hashed, as a forger would) and a
# flipped verdict each make verify-package exit 1 with a line naming the file.
source "$(dirname "$0")/e2e_lib.sh"
write_suite suite.yaml
expect_rc 0 "$ACLCTS" certify --product ascend910b --out pkg --jobs 2 suite.yaml
grep -q '^ascend910b: CONFORMANT' out || fail "no verdict line"
for f in manifest.json results.jsonl junit.xml summary.md report.html audit.md audit.csv \
         SHA256SUMS suites/suite.yaml; do [[ -s pkg/$f ]] || fail "package lacks $f"; done
[[ -s pkg.tar.gz ]] || fail "no tar.gz"
(cd pkg && sha256sum -c --quiet SHA256SUMS) || fail "sha256sum -c disagrees"
python3 - pkg/manifest.json <<'PY' || fail "manifest fields"
import json, sys
m = json.load(open(sys.argv[1]))
for k in ("aclcts_version", "aclcts_commit", "product", "soc", "host", "seed", "start", "end",
          "command", "verdict", "counts", "waivers", "files"):
    assert k in m, k
assert m["verdict"] == "CONFORMANT" and m["counts"]["total"] > 0
roles = {f["role"] for f in m["files"]}
assert {"suite", "result", "report", "backend"} <= roles, roles
assert all(len(f["sha256"]) == 64 for f in m["files"])
PY
expect_rc 0 "$ACLCTS" verify-package pkg
expect_rc 0 "$ACLCTS" verify-package pkg.tar.gz
digest=$(sha256sum pkg/SHA256SUMS | cut -c1-64)
expect_rc 0 "$ACLCTS" verify-package --digest "$digest" pkg.tar.gz
other=$([[ ${digest:0:1} == 0 ]] && echo 1 || echo 0)   # a different first digit, always
expect_rc 1 "$ACLCTS" verify-package --digest "$other${digest:1}" pkg

tamper() { # NAME: copy pkg to t_NAME, apply the edit in $2 there, verify must fail naming $3
  rm -rf "t_$1"; cp -r pkg "t_$1"
  (cd "t_$1" && eval "$2")
  expect_rc 1 "$ACLCTS" verify-package "t_$1"
  grep -q "^$3: " out || { cat out; fail "$1: no line naming $3"; }
}
flip='printf X | dd of=FILE bs=1 seek=40 conv=notrunc 2>/dev/null'
tamper results "${flip/FILE/results.jsonl}" results.jsonl
tamper suite "${flip/FILE/suites/suite.yaml}" suites/suite.yaml
tamper manifest "${flip/FILE/manifest.json}" manifest.json
tamper added 'echo extra >notes.txt' notes.txt
# A forger drops a result line and re-hashes everything: the case set gives it away.
reseal='python3 -c "
import hashlib, json, re
m = open(\"manifest.json\").read()
h = hashlib.sha256(open(\"results.jsonl\",\"rb\").read()).hexdigest()
m = re.sub(r\"(\\\"path\\\": \\\"results.jsonl\\\", \\\"source\\\": \\\"\\\", \\\"sha256\\\": \\\")[0-9a-f]+\", r\"\\g<1>\" + h, m)
open(\"manifest.json\",\"w\").write(m)"; sha256sum $(find . -type f ! -name SHA256SUMS | sed "s|^./||" | sort) >SHA256SUMS'
tamper dropped "sed -i 1d results.jsonl; $reseal" results.jsonl
# ... or turns a PASS into a FAIL record without fixing the verdict: recomputed verdict differs.
tamper verdict "sed -i '1s/\"status\":\"PASS\"/\"status\":\"FAIL\"/' results.jsonl; $reseal" results.jsonl
grep -q "NOT CONFORMANT but manifest.json says CONFORMANT" out || fail "verdict not recomputed"
echo "certify/verify-package: clean package verified; 6 tamperings caught"
