#!/usr/bin/env bash
# A crafted package whose suite nests 60000 lists deep, re-hashed as a forger would: verify-package
# once overflowed the stack of the YAML node reader (exit 139). Now the reader stops at its depth
# limit: the suite does not load, with line:col, and the package fails verification (exit 1).
source "$(dirname "$0")/e2e_lib.sh"
write_suite suite.yaml
expect_rc 0 "$ACLCTS" certify --product ascend910b --out pkg --jobs 2 suite.yaml
cd pkg
python3 - <<'PY'
import hashlib, re
deep = "suite: x\ncases: " + "[" * 60000 + "\n"
open("suites/suite.yaml", "w").write(deep)
h = hashlib.sha256(deep.encode()).hexdigest()
m = open("manifest.json").read()
m, n = re.subn(r'("path": "suites/suite.yaml", "source": "[^"]*", "sha256": ")[0-9a-f]+', r"\g<1>" + h, m)
assert n == 1, "manifest format changed: update this forger"
open("manifest.json", "w").write(m)
PY
sha256sum $(find . -type f ! -name SHA256SUMS | sed "s|^./||" | sort) >SHA256SUMS
cd ..
expect_rc 1 "$ACLCTS" verify-package pkg
grep -q "suites/suite.yaml:2:71: error: yaml: nested deeper than 64 levels" out || fail "$(cat out)"
echo PASS
