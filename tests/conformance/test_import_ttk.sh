#!/usr/bin/env bash
# `aclcts import-ttk` on the vendor's own TTK file (tests/conformance/ttk/README.md names its
# source) and on a hand-written one: every row of the real file imports, with the parameters
# derived below by hand from its cells the way the vendor's golden reads them; columns the
# suite cannot express are reported by name (absolute_precision, NHWC, precision_tolerances,
# soc_series, an unknown column) and listed in the suite's header; rows no aclnn call can
# express are left out and named (exit 1); a file that is not a TTK file exits 2. The imported
# cases run, and the emulated device's answers equal the TTK kernel's semantics computed here
# in NumPy from the dumped gradient (windows, SAME padding, divisors as the golden has them).
source "$(dirname "$0")/e2e_lib.sh"
D=$ACLCTS_SOURCE_DIR/tests/conformance/ttk
SRC='hicann/ops-nn:pooling/avg_pool_v2_grad/tests/st/arch35/ttk_kernel_avg_pool_v2_grad_st.csv@e5c3fa9327ea95ba26d06227e746923580d10921'
mkdir real mixed
expect_rc 0 "$ACLCTS" import-ttk --out real --source "$SRC" "$D/ttk_kernel_avg_pool_v2_grad_st.csv"
grep -q 'ttk_kernel_avg_pool_v2_grad_st.csv:2: absolute_precision = 1e-08: not expressed .*; 5 rows$' out ||
  fail "absolute_precision not reported"
grep -q ':3: data_format = NHWC: imported as NCHW .*; 2 rows$' out || fail "NHWC not reported"
grep -q "^#   $SRC\$" real/avgpool2d_backward.yaml || fail "source not in the header"
grep -q '^#   absolute_precision = 1e-08: .*; 5 rows; line 2$' real/avgpool2d_backward.yaml ||
  fail "unexpressed column not in the header"
python3 - real/avgpool2d_backward.yaml <<'PY' || fail "the real file's parameters"
import sys, yaml
s = yaml.safe_load(open(sys.argv[1]))
assert (s["suite"], s["op"], s["product"]) == ("vendor_ttk.avgpool2d_backward", "avgpool2d_backward", "ascend950")
c = {x["name"]: x for x in s["cases"]}
assert len(c) == 5
# row 1: global_pooling -> the window is the whole 10 x 71 input, stride the same, no padding
r = c["AvgPoolV2_bf16_NCHW_random_000020"]
assert (r["dtype"], r["self_shape"], r["grad_output_shape"]) == ("bfloat16", [33, 60, 10, 71], [33, 60, 1, 1])
assert (r["kernel_size"], r["stride"], r["padding"], r["divisor_override"]) == ([10, 71], [10, 71], [0, 0], 192)
assert r["count_include_pad"] is False and r["data"]["grad_output"] == {"values": [-1.1754943508e-38]}
# row 2: NHWC (2, 153, 1, 7089) -> NCHW (2, 7089, 153, 1); SAME: (7 - 1) x 25 + 95 - 153 = 92
# rows of padding, 46 on top; exclusive False -> count_include_pad
r = c["AvgPoolV2_fp32_NHWC_random_000013"]
assert (r["self_shape"], r["grad_output_shape"]) == ([2, 7089, 153, 1], [2, 7089, 7, 1])
assert (r["kernel_size"], r["stride"], r["padding"], r["ceil_mode"]) == ([95, 1], [25, 2], [46, 0], True)
assert r["count_include_pad"] is True and r["data"]["grad_output"] == {"uniform": [10, 1000]}
# row 3: global over a 1316 x 1 input; row 5: CALCULATED pads [1, 1, 1, 0] -> top 1, left 1
assert c["AvgPoolV2_bf16_NHWC_random_000038"]["kernel_size"] == [1316, 1]
r = c["AvgPoolV2_fp32_NCHW_random_000226"]
assert (r["kernel_size"], r["stride"], r["padding"], r["divisor_override"]) == ([69, 2], [22, 2], [1, 1], 80)
PY

expect_rc 1 "$ACLCTS" import-ttk --out mixed "$D/mixed.csv"
for line in ':4: other_op: row left out: op_name is not avg_pool_v2_grad' \
            ':5: bad_shape: row left out: its input_grad.s H x W is not the output size' \
            ':2: precision_tolerances = (0.001, 0.001): not expressed' \
            ':2: owner = st: not expressed: a column this importer does not know' \
            ":2: soc_series = ('Ascend950',): the suite's product is --product's"; do
  grep -q "mixed.csv$line" out || fail "not reported: $line"
done
grep -q 'mixed.csv: 4 cases, 2 imported' out || fail "summary"

# the imported cases against the TTK kernel's semantics (the golden's reading, in NumPy)
expect_rc 0 "$ACLCTS" run --quiet --out r1 --dump d1 --filter '*000020*' real/avgpool2d_backward.yaml
expect_rc 0 "$ACLCTS" run --quiet --out r2 --dump d2 mixed/avgpool2d_backward.yaml
/usr/bin/python3 - d1 d2 <<'PY' || fail "device answers differ from the TTK kernel's semantics"
import glob, json, sys, numpy as np
def ttk(g, ih, iw, k, s, pad, excl, div):
    n, c, oh, ow = g.shape
    out = np.zeros((n, c, ih, iw))
    for y in range(oh):
        for x in range(ow):
            h0, w0 = y * s[0] - pad[0], x * s[1] - pad[1]
            h1, w1 = min(h0 + k[0], ih), min(w0 + k[1], iw)
            h0, w0 = max(h0, 0), max(w0, 0)
            cnt = div or ((h1 - h0) * (w1 - w0) if excl else k[0] * k[1])
            out[:, :, h0:h1, w0:w1] += g[:, :, y:y + 1, x:x + 1] / cnt
    return out
n = 0
for d in sys.argv[1:]:
    for case in glob.glob(d + "/*/case.json"):
        p = json.load(open(case))["params"]
        g = np.load(case.replace("case.json", "grad_output.npy")).astype(np.float64)
        got = np.load(case.replace("case.json", "grad_input.npy")).astype(np.float64)
        want = ttk(g, got.shape[2], got.shape[3], p["kernel_size"], p["stride"], p["padding"],
                   not p["count_include_pad"], p.get("divisor_override") or 0)
        assert np.allclose(got, want, rtol=2**-7, atol=2**-133), (case, abs(got - want).max())
        n += 1
assert n == 3, n
PY
# rows no call can have: a size beyond 2^52, an unterminated quote; none imports -> exit 2
printf '%s\n' 'testcase_name,op_name,input_dtypes,input_shapes,output_shapes,attributes' \
  "q,avg_pool_v2_grad,\"('int32', 'float32')\",\"((4,), (1e30, 1, 1, 1))\",\"((1, 1, 2, 2),)\",{}" \
  'u,avg_pool_v2_grad,"unterminated' >rows.csv
mkdir none
expect_rc 2 "$ACLCTS" import-ttk --out none rows.csv
grep -q 'rows.csv:2: q: row left out: input_shapes: the gradient is not 4-D (of sizes 0 to 2^52)' out ||
  fail "huge size"
grep -q 'rows.csv:3: u: row left out: attributes: not a dict' out || fail "unterminated quote"
[[ -z $(ls -A none) ]] || fail "a suite of no case was written"
printf 'name,op\nx,y\n' >bad.csv
expect_rc 2 "$ACLCTS" import-ttk --out mixed bad.csv
grep -q 'bad.csv:1: not a TTK case file' out || fail "not a TTK file"
echo "import-ttk: the vendor's 5 rows imported as derived; unexpressed columns named; 3 runs match"
