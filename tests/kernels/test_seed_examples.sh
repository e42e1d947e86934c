#!/usr/bin/env bash
# Each vendor operator document's calling example, copied verbatim, compiles unmodified with g++
# against build/ascend-emu and prints exactly the values worked out with PyTorch float64
# (docs/operators.md, "Worked results of the vendor examples"):
#   AvgPool: all 256 values 0.0625.
#   GridSampler: dx = [0.25,0,0,0.25,0.25,0,0,0.25, 0 x8, 0.5,0,0,0.5,0.5,0,0,0.5, 0 x8,
#                      0.25,0,0,0.25,0.25,0,0,0.25];
#   dgrid = [2,1.25, 2,11.25, -16,10, 68,10, 4,20, -96,10, 66,-41.25, 2,-91.25, -80,-50].
set -euo pipefail
# ctest names the source tree; run by hand, it is the repository this file is in.
root=${ACLCTS_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
# The documents are not part of this repository: ACLCTS_SPEC_DIR names them, else a checkout of
# the steering repository beside this one. Without either the test is skipped (ctest
# SKIP_RETURN_CODE 77), never failed; an ACLCTS_SPEC_DIR that does not exist is an error.
if [[ -n ${ACLCTS_SPEC_DIR:-} ]]; then
  [[ -d $ACLCTS_SPEC_DIR ]] || { echo "FAIL ACLCTS_SPEC_DIR=$ACLCTS_SPEC_DIR is not a directory"; exit 1; }
elif [[ -d $root/../shared/spec ]]; then
  export ACLCTS_SPEC_DIR=$root/../shared/spec
else
  echo "SKIP vendor document examples: set ACLCTS_SPEC_DIR to the directory of the operator documents (000_*.txt, 003_*.txt) to run this check"
  exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
ASCEND_HOME_PATH=$ACLCTS_EMU_DIR "$root/tools/run-examples" "$out" > "$out/all.log"

fail=0
check() { # name expected-values-file printed-prefix
  local got want
  got=$(grep -E "^$3\[[0-9]+\] is: " "$out/$1.out" | sed -E 's/.* is: //')
  want=$(cat "$2")
  if [[ "$got" != "$want" ]]; then
    echo "FAIL $1 $3:"; diff <(echo "$want") <(echo "$got") | head -20; fail=1
  else
    echo "ok   $1 $3: $(echo "$got" | wc -l) values"
  fi
}
for i in $(seq 256); do printf '0.062500\n'; done > "$out/avg.want"
check aclnnAvgPool2dBackward "$out/avg.want" "out result"

dx=(0.25 0 0 0.25 0.25 0 0 0.25 0 0 0 0 0 0 0 0 0.5 0 0 0.5 0.5 0 0 0.5 0 0 0 0 0 0 0 0
    0.25 0 0 0.25 0.25 0 0 0.25)
dgrid=(2 1.25 2 11.25 -16 10 68 10 4 20 -96 10 66 -41.25 2 -91.25 -80 -50)
for v in "${dx[@]}"; do printf '%f\n' "$v"; done > "$out/dx.want"
for v in "${dgrid[@]}"; do printf '%f\n' "$v"; done > "$out/dgrid.want"
check aclnnGridSampler2DBackward "$out/dx.want" "inputGradResultData"
check aclnnGridSampler2DBackward "$out/dgrid.want" "gridGradResultData"
exit $fail
