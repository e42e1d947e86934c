#!/usr/bin/env bash
# A full disk in import-atk, merge, run's reports and certify: exit 2, the failing write named,
# no truncated file under a final name (absent, or the previous complete version), no temporary
# file left, no message about a directory that is gone. Before: import-atk exited 0 saying "N
# imported" over a suite cut mid-line; merge exited 1 leaving truncated outputs; certify told
# how to --resume from a directory it had deleted. A full disk is a file size limit (ulimit -f,
# EFBIG), which needs no privileges.
source "$(dirname "$0")/e2e_lib.sh"
A=$ACLCTS_SOURCE_DIR/tests/conformance/atk
write_suite s.yaml
P=ascend910b

# limited KiB CMD...: CMD under a file size limit of KiB; output in $T/out (through a pipe,
# which the limit does not cut), status in $rc.
limited() {
  local kib=$1; shift
  set +e
  (ulimit -f "$kib"; exec "$@") 2>&1 | cat >"$T/out"
  rc=${PIPESTATUS[0]}
  set -e
}
no_temporaries() { # no_temporaries DIR: no .NAME.XXXXXX file left
  local left
  left=$(find "$1" -name '.*.??????' 2>/dev/null)
  [[ -z $left ]] || fail "temporary files left: $left"
}

# import-atk: the suite is ~4 KiB; a 1 KiB limit cuts it. --out is created when missing.
limited 1 "$ACLCTS" import-atk --out new/dir "$A/avgpool.json"
[[ $rc == 2 ]] || { cat out; fail "import-atk on a full disk: exit $rc, expected 2"; }
grep -q "error: writing new/dir/avgpool2d_backward.yaml: File too large" out || fail "$(cat out)"
grep -q "imported" out && fail "import claimed on a full disk: $(cat out)"
[[ ! -e new/dir/avgpool2d_backward.yaml ]] || fail "a truncated suite under the final name"
no_temporaries new
# with room: the same command writes the whole suite, into the directory it created
expect_rc 1 "$ACLCTS" import-atk --out new/dir "$A/avgpool.json"
"$ACLCTS" list --count new/dir/avgpool2d_backward.yaml >/dev/null || fail "imported suite does not load"
cp new/dir/avgpool2d_backward.yaml keep.yaml
# a second import on a full disk keeps the complete first version
limited 1 "$ACLCTS" import-atk --out new/dir "$A/avgpool.json"
[[ $rc == 2 ]] || fail "exit $rc"
cmp -s keep.yaml new/dir/avgpool2d_backward.yaml || fail "the previous suite was damaged"

# merge: each output whole or absent, exit 2 (README: a write error is 2).
expect_rc 0 "$ACLCTS" run --quiet --product $P --jobs 2 --out r s.yaml
limited 1 "$ACLCTS" merge m r/results.jsonl
[[ $rc == 2 ]] || { cat out; fail "merge on a full disk: exit $rc, expected 2"; }
grep -q "error: writing m/results.jsonl: File too large" out || fail "$(cat out)"
for f in results.jsonl junit.xml; do [[ ! -e m/$f ]] || fail "merge left m/$f"; done
[[ ! -s m/summary.md ]] || fail "merge left a summary"
no_temporaries m
expect_rc 0 "$ACLCTS" merge m r/results.jsonl
cmp -s <(jsonl_ids m/results.jsonl) <(jsonl_ids r/results.jsonl) || fail "merge with room"

# run: a report that cannot be written (junit.xml on /dev/full, ENOSPC) is exit 2, named.
expect_rc 2 "$ACLCTS" run --quiet --jobs 2 --out r2 --junit /dev/full s.yaml
grep -q "error: writing /dev/full: No space left on device" out || fail "$(cat out)"
[[ -c /dev/full ]] || fail "/dev/full was replaced"
no_temporaries r2

# certify (run here, and packaging shards): exit 2, the package's file named, nothing left.
for how in "--jobs 2 s.yaml" "--results r/results.jsonl s.yaml"; do
  limited 16 "$ACLCTS" certify --product $P --out pkg $how
  [[ $rc == 2 ]] || { cat out; fail "certify $how on a full disk: exit $rc, expected 2"; }
  grep -q "error: .*File too large" out || fail "no write error: $(cat out)"
  grep -q "partial-.*saved\|--resume\|to continue\|CONFORMANT" out && fail "misleading: $(cat out)"
  left=$(compgen -G 'pkg*' || true)
  [[ -z $left ]] || fail "certify $how on a full disk left $left"
done
echo PASS
