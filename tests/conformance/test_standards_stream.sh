#!/usr/bin/env bash
# `aclcts audit --standard` without --keep-dump judges each case's dump as the case ends and
# removes it, so the disk holds the running cases' dumps, not the run's (a whole run's dump of
# the vendor's system tests would pass 150 GB). Ten avg-pool cases of one size under
# ACLNN_EMU_FAULT=ulp:3 (so the standards and the bound disagree and examples are kept): the
# streamed audit (--jobs 2, cases ending in any order) writes the same standards.csv,
# standards_outputs.csv and standards section of audit.md as the audit of a kept whole dump
# (--jobs 1); the most it held at once is at most 4 of the 10 cases' dumps (two a worker: while
# the parent judges one worker's case, that worker runs the case sent ahead to it, and the other
# may have finished its case, still to be judged, and started its next; conformance/run/worker.c
# WORKER_DEPTH), and its total equals the kept dump's size.
source "$(dirname "$0")/e2e_lib.sh"
STDS=atk-single-bm,mixed-tolerance,aclcts
{ printf 'suite: e2e.stream\nop: avgpool2d_backward\nproduct: ascend910b\nseed: 5\ncases:\n'
  for i in 1 2 3 4 5 6 7 8 9 10; do
    cat <<YAML
  - name: c$i
    dtype: float32
    self_shape: [2, 8, 24, 24]
    kernel_size: [3, 3]
    stride: [2, 2]
    padding: [1, 1]
    data: {grad_output: {uniform: [-$i, $i]}}
YAML
  done; } >s.yaml
export ACLNN_EMU_FAULT=ulp:3
expect_rc 0 "$ACLCTS" audit --product ascend910b --standard $STDS --jobs 2 --out streamed s.yaml
line=$(grep 'judged each case.s dump as the case ended' "$T/out") ||
  fail "the streamed audit did not say what its dump held"
[[ ! -e streamed/dump || -z $(ls -A streamed/dump) ]] || fail "dumps left in streamed/dump"
expect_rc 0 "$ACLCTS" audit --product ascend910b --standard $STDS --jobs 1 --keep-dump kept \
  --out whole s.yaml
for f in standards.csv standards_outputs.csv; do
  cmp streamed/$f whole/$f || fail "$f: the streamed audit differs from the whole dump's"
done
grep -q ',FAIL,' whole/standards_outputs.csv || fail "no FAIL under ulp:3: nothing compared"
section() { sed -n '/^## Precision standards/,/^## Waivers/p' "$1/audit.md"; }
[[ -n $(section whole) ]] || fail "audit.md has no standards section"
diff <(section streamed) <(section whole) || fail "audit.md's standards section differs"
kept=$(find kept -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
python3 - "$line" "$kept" <<'PY' || fail "the dump held at once: $line (kept dump $kept bytes)"
import re, sys
peak, total = map(float, re.search(r"at most ([\d.]+) MB on disk at once, ([\d.]+) MB in all",
                                   sys.argv[1]).groups())
kept = float(sys.argv[2]) / 1e6
assert abs(total - kept) <= 0.1 + 1e-3 * kept, (total, kept)
assert peak <= 4 / 10 * total + 0.1, (peak, total)  # MB printed to 0.1
PY
echo "ok: $line"
