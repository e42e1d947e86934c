#!/usr/bin/env bash
# certify stopped by SIGTERM or SIGINT, at any step, exits 143 or 130 and leaves nothing: no OUT,
# OUT.partial-*, OUT.tar.gz, OUT.tar.gz.partial or OUT.lock, and no message about a directory it
# removed (before: "N records are saved in OUT.partial-XXXX ... to continue: ... --resume" about
# the deleted directory, exit 1 when the signal came between steps, and a complete OUT beside
# OUT.tar.gz.partial when it came during the archive). A second certify into an OUT that another
# holds is refused at once, naming the holder's pid (before: both ran; the loser printed
# CONFORMANT, then died on a raw rename error). The moments are made exact by
# stop_after_records (the run stops itself after a write), not by timing.
source "$(dirname "$0")/e2e_lib.sh"
write_suite s.yaml
P=ascend910b

nothing_left() { # nothing_left OUT WHEN
  local left
  left=$(compgen -G "$1*" || true)
  [[ -z $left ]] || fail "$2: certify left $left"
  grep -q "partial-.*saved\|--resume\|to continue" log && fail "$2: told of a removed directory: $(cat log)"
  return 0
}
# stopped_certify SIGNAL WANT_RC SUFFIX N OUT ARGS...: certify stops itself after its N-th write
# to a file ending in SUFFIX; then SIGNAL; it must exit WANT_RC and leave nothing.
stopped_certify() {
  local sig=$1 want=$2 suffix=$3 n=$4 out=$5 rc=0; shift 5
  rm -f "$T/stopped"
  env $(stop_after_records "$n" "$suffix") "$ACLCTS" certify --product $P --out "$out" "$@" \
    >log 2>&1 &
  local pid=$!
  wait_stopped $pid
  kill -"$sig" $pid
  kill -CONT $pid
  wait $pid || rc=$?
  [[ $rc == "$want" ]] || { cat log; fail "SIG$sig after write $n to *$suffix: exit $rc, expected $want"; }
  grep -q "certify: interrupted by SIG$sig: no package written" log || fail "not told: $(cat log)"
  nothing_left "$out" "SIG$sig after *$suffix"
}

# In the middle of the run (the run's JSONL lives in the temporary directory).
stopped_certify TERM 143 /results.jsonl 3 mid --jobs 1 s.yaml
stopped_certify INT 130 /results.jsonl 3 mid --jobs 1 s.yaml
# While the archive is written: OUT is in place already, OUT.tar.gz.partial half written.
stopped_certify TERM 143 .tar.gz.partial 1 tar --jobs 1 s.yaml
expect_rc 0 "$ACLCTS" run --quiet --product $P --jobs 2 --out r s.yaml
stopped_certify INT 130 .tar.gz.partial 1 tar2 --results r/results.jsonl s.yaml

# One certify at a time per OUT: the second is refused at once, naming the first one's pid.
rm -f "$T/stopped"
env $(stop_after_records 1 /results.jsonl) "$ACLCTS" certify --product $P --out one --jobs 1 \
  s.yaml >log 2>&1 &
first=$!
wait_stopped $first
expect_rc 2 "$ACLCTS" certify --product $P --out one --jobs 1 s.yaml
grep -q "error: certify: one is in use by another aclcts run (pid $first)" out || fail "$(cat out)"
kill -CONT $first
rc=0; wait $first || rc=$?
[[ $rc == 1 ]] || fail "the first certify (NOT CONFORMANT: not the canonical set): exit $rc: $(cat log)"
[[ -d one && -s one.tar.gz && ! -e one.lock ]] || fail "the first certify's package: $(ls)"
grep -q "^$P: " log || fail "$(cat log)"
# and a certify after it is refused because OUT exists, not because of a stale lock
expect_rc 2 "$ACLCTS" certify --product $P --out one --jobs 1 s.yaml
grep -q "one exists" out || fail "$(cat out)"
echo PASS
