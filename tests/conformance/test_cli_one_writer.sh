#!/usr/bin/env bash
# One writer per output: a second run into the same --out, or a second --resume of the same
# JSONL file, is refused at once (exit 2, the holder's pid named) while the first finishes with
# every case recorded exactly once. Without the lock both ran and the file held interleaved,
# garbled or doubled records.
source "$(dirname "$0")/e2e_lib.sh"
write_suite s.yaml
total=$("$ACLCTS" list --count s.yaml)

# hold --out DIR ARGS...: starts a run with the hang fault (its first case never ends before the
# 30 s timeout), waits until it holds its locks, leaves its pid in $holder. A child alone is not
# enough: the run probes the device's environment in a child before it takes any lock; the
# report file exists from the moment it is locked, and a child seen after that is a worker.
hold() {
  ACLNN_EMU_FAULT=hang "$ACLCTS" run --quiet --jobs 1 --timeout 30 "$@" s.yaml >hold.log 2>&1 &
  holder=$!
  for _ in $(seq 1 400); do
    [[ -e $2/summary.md && -n $(pgrep -P "$holder") ]] && return 0
    sleep 0.05
  done
  fail "the holding run never started a worker: $(cat hold.log)"
}
release() { kill -INT "$holder"; wait "$holder" 2>/dev/null || true; }

# Two runs into one output directory.
hold --out r
expect_rc 2 "$ACLCTS" run --quiet --jobs 2 --out r s.yaml
grep -q "r is in use by another aclcts run (pid $holder)" out || fail "holder not named: $(cat out)"
release
# The lock died with its holder: the next run is not refused.
expect_rc 0 "$ACLCTS" run --quiet --jobs 2 --out r s.yaml
jsonl_ids r/results.jsonl >ids
[[ $(wc -l <ids) == "$total" && -z $(uniq -d ids) ]] || fail "records: $(wc -l <ids) of $total"

# Two --resume of one JSONL from different output directories: the file itself is locked.
hold --out a --resume shared.jsonl
expect_rc 2 "$ACLCTS" run --quiet --jobs 2 --out b --resume shared.jsonl s.yaml
grep -q "shared.jsonl is in use by another aclcts run (pid $holder)" out || fail "$(cat out)"
release
expect_rc 0 "$ACLCTS" run --quiet --jobs 2 --out b --resume shared.jsonl s.yaml
jsonl_ids shared.jsonl >ids
[[ -z $(uniq -d ids) ]] || fail "cases recorded twice: $(uniq -d ids | head -3)"
"$ACLCTS" list s.yaml | sort | diff - ids || fail "resumed ids differ from the suite's"

# A merge into a directory a run is writing is refused too.
hold --out m
expect_rc 2 "$ACLCTS" merge m r/results.jsonl
grep -q "m is in use by another aclcts run (pid $holder)" out || fail "merge: $(cat out)"
release
echo PASS
