#!/usr/bin/env bash
# The tools that take positional arguments only answer --help with their usage line and refuse
# an unknown option (exit 2, naming it) before doing anything: before, bench-reference took
# "--help" as its build directory and configured a build there, bench-suite as a product.
source "$(dirname "$0")/e2e_lib.sh"
for t in bench-decode bench-fill bench-fresh-pages bench-hash bench-reference bench-suite bench-verify \
         snapshot-results; do
  tool=$ACLCTS_SOURCE_DIR/tools/$t
  expect_rc 0 timeout 20 "$tool" --help
  grep -q "^Usage: tools/$t" "$T/out" || { cat "$T/out" >&2; fail "$t --help: no usage"; }
  expect_rc 2 timeout 20 "$tool" --bogus
  grep -q "^$t: unknown option --bogus (usage: tools/$t" "$T/out" || fail "$t: option not named"
  [[ ! -e --bogus && ! -e --help ]] || fail "$t made a directory of an option"
done
echo "tools usage: ok"
