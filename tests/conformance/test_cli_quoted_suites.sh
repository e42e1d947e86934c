#!/usr/bin/env bash
# Suites written by other tools run like hand-written ones: the same two suites written plain,
# with every string quoted, by PyYAML's safe_dump (plain and every scalar quoted, with core
# tags) and as JSON (tests/conformance/quoting/) all run to PASS, with the same case ids,
# statuses and output hashes as the plain file.
source "$(dirname "$0")/e2e_lib.sh"
q=$ACLCTS_SOURCE_DIR/tests/conformance/quoting
run() { # name files...
  local name=$1; shift
  expect_rc 0 "$ACLCTS" run --quiet --jobs 2 --product all --out "$T/$name" "$@"
  grep -q '11 cases: 11 PASS' "$T/out" || { cat "$T/out"; fail "$name: not 11 PASS"; }
  jsonl_table "$T/$name/results.jsonl" > "$T/$name.table"
}
run plain "$q/plain.yaml"
for f in all_quoted safe_dump safe_dump_quoted; do
  run "$f" "$q/$f.yaml"
  diff "$T/plain.table" "$T/$f.table" || fail "$f.yaml runs differently from plain.yaml"
done
run json "$q/json_avg.yaml" "$q/json_grid.yaml"
diff "$T/plain.table" "$T/json.table" || fail "the JSON suites run differently from plain.yaml"
echo "ok: plain, all-quoted, safe_dump, safe_dump(quoted+tags) and JSON suites: 11 PASS each, same results"
