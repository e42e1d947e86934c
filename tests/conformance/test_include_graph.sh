#!/usr/bin/env bash
# The include graph of conformance/ and fuzz/ is the layered DAG conformance/CMakeLists.txt
# draws (tools/check-include-graph), and the check fails on the two kinds of break it exists
# for: an include upwards (an operator's driver header reaching the suite stage, as
# ops/op_driver.h once did) and a folder left out of the drawing.
set -euo pipefail
src=${ACLCTS_SOURCE_DIR:?}
check=$src/tools/check-include-graph
"$check" "$src"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/conformance" "$src/fuzz" "$tmp/"
sed -i 's|#include "cts_case.h"|#include "suite/suite.h"|' "$tmp/conformance/ops/op_driver.h"
if out=$("$check" "$tmp" 2>&1); then
  echo "FAIL: an upward include passed: $out"; exit 1
fi
grep -q 'conformance/ops/op_driver.h:[0-9]*: ops (layer 1) includes suite/suite.h of suite' <<<"$out"
grep -q '^FAIL: cycle of headers: .*suite.h -> .*op_driver.h' <<<"$out"

cp "$src/conformance/ops/op_driver.h" "$tmp/conformance/ops/op_driver.h"
mkdir "$tmp/conformance/extra"
printf '#include "suite/suite.h"\n' >"$tmp/conformance/extra/x.c"
if out=$("$check" "$tmp" 2>&1); then
  echo "FAIL: a folder in no layer passed: $out"; exit 1
fi
grep -q 'extra is in no layer' <<<"$out"
echo "include graph: acyclic and layered; an upward include and an undrawn folder fail"
