#!/usr/bin/env bash
# The oracle against two independent ones on random corner-seeking cases, a fixed seed and a
# small count (tools/differential: exact rationals in Python's fractions and torch float64; the
# long run is `tools/differential --seed S --cases 5000`). Zero disagreements required.
source "$(dirname "$0")/e2e_lib.sh"
"$ACLCTS_SOURCE_DIR/tools/differential" --seed 1 --cases 60 --aclcts "$ACLCTS" >log 2>&1 || { cat log >&2; fail "differential"; }
tail -1 log
grep -q '| disagreements 0 |' log || fail "disagreements"
grep -qE '\| elements [0-9]{3,} \|' log || fail "too few elements compared"
# grid values ULPs off cell edges and folds, non-finite and ±max data (tools/lib/differential_corners.py)
"$ACLCTS_SOURCE_DIR/tools/differential" --corners --seed 1 --cases 300 --aclcts "$ACLCTS" >log 2>&1 || { cat log >&2; fail "differential --corners"; }
tail -1 log
grep -q '| disagreements 0 |' log || fail "disagreements (corners)"
# torch's check of an element judged by interval (seed 6201's g2056 and g3675): the tool read
# the interval at the term count instead of the element's index (IndexError, fixed with this test)
"$ACLCTS_SOURCE_DIR/tools/differential" --corners --seed 6201 --cases 5000 --only g2056,g3675 --aclcts "$ACLCTS" >log 2>&1 || { cat log >&2; fail "differential: interval elements checked by torch"; }
tail -1 log
grep -qE '\| torch checks [1-9][0-9]* \|.*by interval [1-9]' log || fail "no interval element checked by torch"
echo PASS
