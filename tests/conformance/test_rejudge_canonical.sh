#!/usr/bin/env bash
# A clean certification of the canonical suites (ascend910b, emulated device) carries the
# evidence of every case whose outputs were judged and passes verify-package --rejudge: each of
# them re-judged from its evidence exactly as recorded. (A few seconds on the emulated device.)
source "$(dirname "$0")/e2e_lib.sh"
expect_rc 0 "$ACLCTS" certify --product ascend910b --jobs 2 --out pkg "$ACLCTS_SOURCE_DIR/suites"
expect_rc 0 "$ACLCTS" verify-package --rejudge pkg.tar.gz
grep -q -- "--rejudge: [1-9][0-9]* cases re-judged from their evidence, as recorded" out ||
  fail "--rejudge of a clean canonical package: $(cat out)"
grep -q "CONFORMANT" out || fail "$(cat out)"
echo "rejudge canonical: $(grep -o -- '--rejudge: [0-9]* cases' out | cut -d' ' -f2) cases re-judged as recorded"
