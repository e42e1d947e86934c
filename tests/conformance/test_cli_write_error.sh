#!/usr/bin/env bash
# A write error stops the run at once: exit 2, the error, how many records were saved, the
# --resume line; the JSONL keeps whole records only, no report claims the cases whose records
# were lost, and the printed --resume line finishes the run with every case once. Two ways to
# fill a disk without privileges: a file size limit (ulimit -f, EFBIG) and /dev/full (ENOSPC).
source "$(dirname "$0")/e2e_lib.sh"
write_suite s.yaml
total=$("$ACLCTS" list --count s.yaml)

# A limit of 4 KiB holds a couple of records (each is over 1 KiB), not the suite's 19.
rc=0
(ulimit -f 4; exec "$ACLCTS" run --quiet --jobs 2 --out r s.yaml) >out 2>&1 || rc=$?
[[ $rc == 2 ]] || { cat out; fail "exit $rc under a full disk, expected 2"; }
grep -q "error: writing r/results.jsonl: File too large" out || fail "no write error: $(cat out)"
saved=$(wc -l <r/results.jsonl)
(( saved < total )) || fail "everything was saved; the test proves nothing"
grep -q "stopped at once: $saved records are saved in r/results.jsonl" out \
  || fail "saved count not told: $(cat out)"
grep -q "PASS" out && fail "a status was claimed for unsaved cases: $(cat out)"
[[ ! -e r/junit.xml && ! -e r/summary.md ]] || fail "reports written after a lost record"
python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' r/results.jsonl \
  || fail "the JSONL holds a partial record"
[[ $(tail -c 1 r/results.jsonl | od -An -c | tr -d ' ') == '\n' ]] || fail "last line cut"
line=$(sed -n 's/^aclcts: to continue: //p' out)
[[ $line == *"run --resume r/results.jsonl"* ]] || fail "no resume line: $(cat out)"

# The line it printed, once there is room again, completes the run: every case exactly once.
eval "$line" >out2 2>&1 || { cat out2; fail "the printed resume line failed"; }
jsonl_ids r/results.jsonl >ids
"$ACLCTS" list s.yaml | sort | diff - ids || fail "resumed run: ids differ (lost or doubled)"

# ENOSPC on the first record: nothing saved, nothing claimed.
expect_rc 2 "$ACLCTS" run --quiet --jobs 2 --out full --jsonl /dev/full s.yaml
grep -q "writing /dev/full: No space left on device" out || fail "ENOSPC not told: $(cat out)"
grep -q "stopped at once: 0 records are saved" out || fail "$(cat out)"
echo PASS
