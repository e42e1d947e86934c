#!/usr/bin/env bash
# A grid-sampler case whose inputs would not fit as doubles is answered a few batches at a time
# (conformance/run/run_case.c piece_batches, one output after the other): every record must be
# what the whole case at once gives, field by field (verdicts, worst elements, error maps and
# the audit's statistics and sums), times (wall t_* and CPU c_*) aside. ACLCTS_REFERENCE_PIECE=1 cuts every case of the
# shipped grid-sampler suites on ascend910b into single batches; the cases that compute with
# more than one batch (counted from `aclcts show`) are the ones that take that road.
source "$(dirname "$0")/e2e_lib.sh"
suites=$ACLCTS_SOURCE_DIR/suites/grid_sampler2d_backward
"$ACLCTS" run --quiet --product ascend910b --out whole "$suites" >/dev/null 2>&1 || true
ACLCTS_REFERENCE_PIECE=1 "$ACLCTS" run --quiet --product ascend910b --out pieces "$suites" \
  >/dev/null 2>&1 || true
"$ACLCTS" show --product ascend910b '*' "$suites" >show 2>/dev/null
python3 - whole/results.jsonl pieces/results.jsonl show <<'PY' || fail "pieces differ"
import json, re, sys
times = {p + s for p in ("t_", "c_") for s in ("total", "gen", "device", "ref", "check")}
def load(path):
    return {r["id"]: {k: v for k, v in r.items() if k not in times}
            for r in map(json.loads, open(path))}
whole, pieces = load(sys.argv[1]), load(sys.argv[2])
assert whole.keys() == pieces.keys() and len(whole) > 200, (len(whole), len(pieces))
bad = [i for i in whole if whole[i] != pieces[i]]
assert not bad, bad[:5]
# cases that computed (elements judged) with a batch above 1: answered in pieces
batched, case = set(), None
for line in open(sys.argv[3]):
    if line.strip() and not line[0].isspace(): case = line.strip()  # a case's block starts
    m = re.match(r"\s*input\s+in\s+\S+\s+\S+\s+\[(\d+),", line)
    if m and case and int(m.group(1)) > 1: batched.add(case)
computed = {i for i in batched if whole.get(i, {}).get("nelems", 0) > 0}
assert len(computed) >= 20, (len(batched), len(computed))
print(f"{len(whole)} records identical; {len(computed)} computed with more than one batch")
PY
