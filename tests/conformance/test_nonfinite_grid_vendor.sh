#!/usr/bin/env bash
# Non-finite grid coordinates under border padding (docs/contract.md "Non-finite grid
# coordinates"): the vendor's AICore kernels (910b/910_93 transposed, 950 SIMT) clip ±inf to the
# edge before their non-finite test, so under a vendor release those cases expect the edge and
# a device that leaves ±inf out of bounds (the documents' reading) FAILs them; on ascend910 (the
# AICPU task) and under zeros or reflection both readings agree. Cases of honoured.yaml.
source "$(dirname "$0")/e2e_lib.sh"
H="$ACLCTS_SOURCE_DIR/suites/grid_sampler2d_backward/honoured.yaml"
F='*nonfinite_one_coordinate*'
fails() {
  python3 -c '
import json, sys
print(" ".join(sorted(".".join(r["id"].split(".")[3:5])
               for r in map(json.loads, open(sys.argv[1])) if r["status"] == "FAIL")))' "$1/results.jsonl"
}
for p in ascend910b ascend910_93 ascend950; do
  for c in vendor@9.1 vendor@9.0 vendor@8.5; do
    # the device of that release: every case PASSes
    expect_rc 0 "$ACLCTS" run --product "$p" --contract "$c" --filter "$F" --out "v-$p-$c" "$H"
    # a device keeping ±inf out of bounds, judged by the release: exactly the border cases FAIL
    expect_rc 1 env ACLNN_EMU_SPEC=doc "$ACLCTS" run --product "$p" --contract "$c" \
      --filter "$F" --out "d-$p-$c" "$H"
    got=$(fails "d-$p-$c")
    want="interpolation_mode=bilinear.padding_mode=border interpolation_mode=bilinear.padding_mode=border interpolation_mode=nearest.padding_mode=border interpolation_mode=nearest.padding_mode=border"
    [[ $got == "$want" ]] || fail "$p $c: FAILs $got"
  done
done
# ascend910 runs the AICPU task: out of bounds under both readings.
expect_rc 0 env ACLNN_EMU_SPEC=doc "$ACLCTS" run --product ascend910 --contract vendor@9.1 \
  --filter "$F" --out d-910 "$H"
# The release's device judged by the documents PASSes: ±inf at the edge and NaN out of bounds
# are both among the documents' readings (test_nonfinite_grid_doc.sh).
expect_rc 0 env ACLNN_EMU_SPEC=vendor@9.1 "$ACLCTS" run --product ascend910b --filter "$F" \
  --out v-doc "$H"
echo "nonfinite grid vendor e2e: ok"
