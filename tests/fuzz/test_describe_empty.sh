#!/usr/bin/env bash
# A fuzzed call with an empty input tensor described as a suite case (ACLCTS_FUZZ_DESCRIBE=1,
# what tools/crash2yaml appends to a regression suite): the tensor has no values, and its
# one-element placeholder list must be a defined 0, the same in every run, not the contents of
# uninitialised memory (which it was: 6.9e-310 one run, another the next).
# Usage: test_describe_empty.sh FUZZ_AVGPOOL2D_BACKWARD_BINARY
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A mutated corpus seed: avg-pool, float64, gradOutput [-1, 3, 2] and self [-1, 1, 2] (a
# negative dim: no elements), so both inputs are empty.
printf '\x01\x00\x00\x7a\x00\x01\x00\x00\x00\x00\x03\x6b\x00\x02\x03\x07\x07\x00\x02\x00\x04\x00\x04\x00\x02\x00\x02\x00\x02\x00\x02\x00\x02\x00\x02\x00\x80\x00\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00' >"$tmp/input"
for run in 1 2 3; do
  ACLCTS_FUZZ_DESCRIBE=1 "$bin" "$tmp/input" >"$tmp/run$run" 2>/dev/null
done
grep -q 'grad_output_shape: \[-1, 3, 2\]' "$tmp/run1" || { echo "not the empty call:"; cat "$tmp/run1"; exit 1; }
values=$(grep -E '^ +(grad_output|self): \{values:' "$tmp/run1")
want=$'      grad_output: {values: [0]}\n      self: {values: [0]}'
if [[ $values != "$want" ]]; then
  printf 'empty inputs described as\n%s\nwant\n%s\n' "$values" "$want"
  exit 1
fi
cmp -s "$tmp/run1" "$tmp/run2" && cmp -s "$tmp/run1" "$tmp/run3" \
  || { echo "the description differs between runs"; diff "$tmp/run1" "$tmp/run2"; exit 1; }
echo "ok: empty inputs described as [0], identically in 3 runs"
