#!/usr/bin/env bash
# The --quick subset of the shipped suites passes on the emulated device for
# every product, and stays under 60 s on 2 cores.
source "$(dirname "$0")/e2e_lib.sh"
start=$(date +%s)
expect_rc 0 "$ACLCTS" run --quick --product all --jobs 2 --out "$T/quick" "$ACLCTS_SOURCE_DIR/suites"
took=$(( $(date +%s) - start ))
tail -3 "$T/out"
grep -Eq '^[0-9]+ cases: [0-9]+ PASS' "$T/out" || fail "no summary line"
! grep -E '^- (FAIL|CRASH|TIMEOUT|ERROR)' "$T/quick/summary.md" || fail "non-pass cases"
echo "quick suite: ${took}s"
(( took < 60 )) || echo "warning: the quick suite took ${took}s (goal < 60 s)" >&2
