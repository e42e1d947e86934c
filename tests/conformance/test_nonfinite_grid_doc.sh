#!/usr/bin/env bash
# Non-finite grid coordinates under border and reflection padding, read by the documents
# (docs/contract.md "Non-finite grid values"): out of bounds (nothing) and PyTorch's clamp into
# the border are both legal, so a device that clamps like PyTorch's CPU kernel
# (ACLNN_EMU_NONFINITE_GRID=clamp) PASSes honoured.yaml's nonfinite_one_coordinate cases on
# every product (8 of its 12 cases FAILed when only "nothing" was legal), while a vendor
# release, whose kernels keep NaN and every reflection coordinate out, still FAILs it on
# exactly the border and reflection cases.
source "$(dirname "$0")/e2e_lib.sh"
H="$ACLCTS_SOURCE_DIR/suites/grid_sampler2d_backward/honoured.yaml"
F='*nonfinite_one_coordinate*'
fails() {
  python3 -c '
import json, sys
print(" ".join(sorted(".".join(r["id"].split(".")[3:5])
               for r in map(json.loads, open(sys.argv[1])) if r["status"] == "FAIL")))' "$1/results.jsonl"
}
for p in ascend910 ascend910b ascend910_93 ascend950; do
  expect_rc 0 env ACLNN_EMU_NONFINITE_GRID=clamp "$ACLCTS" run --product "$p" --filter "$F" \
    --out "c-$p" "$H"
  expect_rc 0 env ACLNN_EMU_NONFINITE_GRID=out "$ACLCTS" run --product "$p" --filter "$F" \
    --out "o-$p" "$H"
done
expect_rc 1 env ACLNN_EMU_NONFINITE_GRID=clamp "$ACLCTS" run --product ascend910b \
  --contract vendor@9.1 --filter "$F" --out c-vendor "$H"
b=interpolation_mode=bilinear n=interpolation_mode=nearest
want="$b.padding_mode=border $b.padding_mode=border $b.padding_mode=reflection $b.padding_mode=reflection $n.padding_mode=border $n.padding_mode=border $n.padding_mode=reflection $n.padding_mode=reflection"
[[ $(fails c-vendor) == "$want" ]] || fail "clamp under vendor@9.1: FAILs $(fails c-vendor)"
# an unknown value of the switch is refused before anything runs
expect_rc 2 env ACLNN_EMU_NONFINITE_GRID=edge "$ACLCTS" run --product ascend910b --filter "$F" \
  --out bad "$H"
echo "nonfinite grid doc e2e: ok"
