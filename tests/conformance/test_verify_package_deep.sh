#!/usr/bin/env bash
# A crafted package whose suite nests 60000 lists deep, re-hashed as a forger would: verify-package
# once overflowed the stack of the YAML node reader (exit 139). Now the reader stops at its depth
# limit: the suite does not load, with line:col, and the package fails verification (exit 1).
source "$(dirname "$0")/e2e_lib.sh"
write_suite suite.yaml
# exit 1: not the canonical suite set, so NOT CONFORMANT; the package itself is sound
expect_rc 1 "$ACLCTS" certify --product ascend910b --out pkg --jobs 2 suite.yaml
cd pkg
python3 - <<'PY'
import hashlib, json
deep = "suite: x\ncases: " + "[" * 60000 + "\n"
open("suites/suite.yaml", "w").write(deep)
h = hashlib.sha256(deep.encode()).hexdigest()
m = json.load(open("manifest.json"))
entry = [f for f in m["files"] if f["path"] == "suites/suite.yaml"]
assert len(entry) == 1, "manifest format changed: update this forger"
entry[0]["sha256"] = h
json.dump(m, open("manifest.json", "w"), indent=2)
PY
sha256sum $(find . -type f ! -name SHA256SUMS | sed "s|^./||" | sort) >SHA256SUMS
cd ..
expect_rc 1 "$ACLCTS" verify-package pkg
grep -q "suites/suite.yaml:2:71: error: yaml: nested deeper than 64 levels" out || fail "$(cat out)"
echo PASS
