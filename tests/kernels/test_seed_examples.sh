#!/usr/bin/env bash
# Each document's calling example, copied verbatim, compiles unmodified with g++ against
# build/ascend-emu and prints exactly the values of spec/facts.md §4:
#   AvgPool: all 256 values 0.0625.
#   GridSampler: dx = [0.25,0,0,0.25,0.25,0,0,0.25, 0 x8, 0.5,0,0,0.5,0.5,0,0,0.5, 0 x8,
#                      0.25,0,0,0.25,0.25,0,0,0.25];
#   dgrid = [2,1.25, 2,11.25, -16,10, 68,10, 4,20, -96,10, 66,-41.25, 2,-91.25, -80,-50].
set -euo pipefail
root=${ACLCTS_SOURCE_DIR:?}
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
