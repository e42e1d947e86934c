#!/usr/bin/env bash
# `aclcts import-atk` on hand-written ATK case files (tests/conformance/atk/): every parameter
# the fixtures state arrives in the suite as written there, drawn ones lie in the fixture's
# ranges and repeat for a seed, fields the suite cannot express are reported with their JSON
# path, a case with an unknown distribution is left out (exit 1), malformed files exit 2 and
# write nothing; the suites load and run.
source "$(dirname "$0")/e2e_lib.sh"
A=$ACLCTS_SOURCE_DIR/tests/conformance/atk
mkdir s s2 s3 bad

expect_rc 1 "$ACLCTS" import-atk --out s --source 'vendor:st/avgpool.json@0123abc' \
  "$A/avgpool.json" "$A/grid.json"
grep -q 'avgpool.json: \$\[2\].inputs\[0\].range_values = {"name":"lognormal".*case left out' out ||
  fail "left-out case not named by its JSON path"
grep -q 'avgpool.json: \$\[\*\].inputs\[1\].outlier_values = \[1e30\]: not expressed' out ||
  fail "outlier_values not reported"
grep -q 'avgpool.json: \$\[\*\].owner = "st": not expressed: unknown ATK field' out ||
  fail "unknown field not reported"
grep -q 'grid.json: \$\[\*\].inputs\[2\].backward = true: not expressed' out ||
  fail "backward flag not reported"
grep -q 'avgpool.json: 3 cases, 2 imported' out || fail "summary line"
grep -q '^#   vendor:st/avgpool.json@0123abc$' s/avgpool2d_backward.yaml || fail "source not named"
grep -q '^#   \$\[\*\].inputs\[1\].outlier_values = \[1e30\]' s/avgpool2d_backward.yaml ||
  fail "unexpressed field not listed in the suite header"

# The fixture's own numbers.
python3 - s/avgpool2d_backward.yaml s/grid_sampler2d_backward.yaml <<'PY' || fail "suite content"
import sys, yaml
ap, gs = (yaml.safe_load(open(f)) for f in sys.argv[1:])
assert (ap["suite"], ap["op"], ap["product"], ap["seed"]) == \
    ("vendor_st.avgpool2d_backward", "avgpool2d_backward", "ascend910b", 0), ap
c3, c7 = ap["cases"]
assert c3["name"] == "id3" and c3["dtype"] == "float32", c3
assert c3["self_shape"] == [2, 3, 5, 7] and c3["grad_output_shape"] == [2, 3, 2, 3]
assert (c3["kernel_size"], c3["stride"], c3["padding"]) == ([3, 2], [2, 2], [1, 0])
assert (c3["ceil_mode"], c3["count_include_pad"], c3["cube_math_type"]) == (False, True, 0)
assert 1 <= c3["divisor_override"] <= 100 and isinstance(c3["divisor_override"], int)
mean, std = c3["data"]["grad_output"]["normal"]
assert -100 <= mean <= 100 and 1 <= std <= 25, (mean, std)
assert c3["data"]["self"] == {"uniform": [-5, 5]}
assert c7["dtype"] == "bfloat16" and c7["kernel_size"] == [1] and c7["divisor_override"] == 5
g = c7["data"]["grad_output"]["values"]
assert len(g) == 1 and g[0] != g[0], g                     # NaN
assert c7["data"]["self"] == {"values": [float("-inf"), 2]}
(g0,) = gs["cases"]
assert g0["dtype"] == "float32" and g0["dtypes"] == {"grid": "float16"}
assert (g0["interpolation_mode"], g0["padding_mode"], g0["align_corners"]) == \
    ("bilinear", "reflection", False)
assert g0["output_mask"] == [True, False] and g0["grid_shape"] == [2, 4, 5, 2]
assert g0["data"]["grid"] == {"uniform": [-1.25, 1.25]}
PY

# Draws are a function of the seed: the same seed, the same suite; another seed, other draws.
expect_rc 1 "$ACLCTS" import-atk --out s2 --source 'vendor:st/avgpool.json@0123abc' \
  "$A/avgpool.json"
cmp -s s/avgpool2d_backward.yaml s2/avgpool2d_backward.yaml || fail "same seed, other suite"
expect_rc 1 "$ACLCTS" import-atk --seed 5 --out s3 "$A/avgpool.json"
[[ $(grep -c 'normal: ' s3/avgpool2d_backward.yaml) == 1 ]] || fail "normal generator lost"
! diff <(grep 'normal:' s/avgpool2d_backward.yaml) <(grep 'normal:' s3/avgpool2d_backward.yaml) \
  >/dev/null || fail "seed 5 drew the same mean and std as seed 0"

# The suites load and every case is judged.
expect_rc 0 "$ACLCTS" run --quiet --out res s/
python3 - res/results.jsonl <<'PY' || fail "imported cases not judged"
import json, sys
rows = {json.loads(l)["id"]: json.loads(l)["status"] for l in open(sys.argv[1])}
assert rows == {"vendor_st.avgpool2d_backward.id3.ascend910b": "PASS",
                "vendor_st.avgpool2d_backward.id7.ascend910b": "PASS",
                "vendor_st.grid_sampler2d_backward.id0.ascend910b": "PASS"}, rows
PY

# Not ATK files: the JSON path (or line:column) of the problem, exit 2, no suite written.
expect_rc 2 "$ACLCTS" import-atk --out bad "$A/bad_shape.json"
grep -q 'bad_shape.json: \$\[0\].inputs\[0\].shape: error: a tensor.s shape must be a list' out ||
  fail "bad shape message"
expect_rc 2 "$ACLCTS" import-atk --out bad "$A/bad_json.json"
grep -q 'bad_json.json:2:14: error:' out || fail "JSON syntax error without line:column"
expect_rc 2 "$ACLCTS" import-atk --out bad "$A/dup_id.json"
grep -q 'dup_id.json: \$\[1\].id: error: an id an earlier case has' out || fail "duplicate id"
[[ -z $(ls -A bad) ]] || fail "a malformed file left a suite behind"
expect_rc 2 "$ACLCTS" import-atk --out bad

# ATK's accuracy standard, in both of its forms, is named with the audit that judges by it
mkdir sb
expect_rc 1 "$ACLCTS" import-atk --out sb "$A/avgpool.json"
grep -q 'standard = {"acc":"single_bm"}: not expressed: ATK.s accuracy standard single_bm: `aclcts audit --standard atk-single-bm`' out ||
  fail "single_bm (string form) not named"
sed 's/"standard": {"acc": "single_bm"}/"standard": {"acc": {"single_bm": {"type": "high_precision"}}}/' \
  "$A/avgpool.json" >obj.json
expect_rc 1 "$ACLCTS" import-atk --out sb obj.json
grep -q 'standard = {"acc":{"single_bm":{"type":"high_precision"}}}: not expressed: ATK.s accuracy standard single_bm' out ||
  fail "single_bm (object form) not named"
echo PASS
