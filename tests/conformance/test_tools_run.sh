#!/usr/bin/env bash
# tools/run runs what it is given: a suite file (relative to the caller's directory) runs only
# that file's cases, also with options and option values around it; no suite runs suites/.
# Case counts come from `aclcts list` of the same files.
source "$(dirname "$0")/e2e_lib.sh"
export ACLCTS_BIN=$(dirname "$ACLCTS")
run=$ACLCTS_SOURCE_DIR/tools/run
{ cat "$ACLCTS_SOURCE_DIR/suites/avgpool2d_backward/doc_examples.yaml"; echo ---
  cat "$ACLCTS_SOURCE_DIR/suites/grid_sampler2d_backward/doc_examples.yaml"; } >mine.yaml
mkdir results   # an existing directory as an option value must not count as a suite
count() { sed -nE 's/^aclcts: ([0-9]+) cases:.*/\1/p' "$T/out"; }

want=$("$ACLCTS" list --product ascend910b mine.yaml | wc -l)
expect_rc 0 "$run" --quiet --product ascend910b --out results mine.yaml
[[ $(count) == "$want" ]] || fail "tools/run mine.yaml ran $(count) cases, want $want"
[[ -s results/results.jsonl ]] || fail "--out results was not honoured"

want=$("$ACLCTS" list --product ascend910b --filter '*avgpool*' mine.yaml | wc -l)
expect_rc 0 "$run" --filter '*avgpool*' --quiet mine.yaml --product ascend910b --out r2
[[ $(count) == "$want" ]] || fail "options after the suite: $(count) cases, want $want"

want=$("$ACLCTS" list --quick --product ascend310b "$ACLCTS_SOURCE_DIR/suites" | wc -l)
expect_rc 0 "$run" --quiet --quick --product ascend310b --out r3
[[ $(count) == "$want" ]] || fail "no suite: $(count) cases, want all suites' $want"
echo PASS
