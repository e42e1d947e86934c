#!/usr/bin/env bash
# aclcts audit --product all: products side by side (one column each) in audit.md, one CSV line
# per op x dtype x cubeMathType x path x product, and the numbers agree with an independent
# float64 computation in NumPy from the kept dump: for non-overlapping 3x3 windows (no padding)
# every grad_input element is exactly grad_output/9, so the correctly rounded FP16 value is
# float16(g/9) (g is FP16, g/9 in float64 carries 53 bits, and FP16 ties cannot occur for /9),
# and the ULP max and torch-default share (|got-exact| <= 1e-5 + 1e-3|exact|) follow.
source "$(dirname "$0")/e2e_lib.sh"
cat >suite.yaml <<'YAML'
suite: audit.avgpool
op: avgpool2d_backward
product: [ascend910b, ascend910]
seed: 3
cases:
  - name: ninths
    dtype: float16
    self_shape: [2, 3, 12, 12]
    kernel_size: [3, 3]
    stride: [3, 3]
    padding: [0, 0]
    cube_math_type: 1
    data: {grad_output: {uniform: [-4, 4]}}
YAML
"$ACLCTS" audit --product all --jobs 2 --out a --keep-dump dump suite.yaml >log 2>&1 || { cat log; fail "audit"; }
head -1 a/audit.md | grep -q '| ascend910 | ascend910b |' || { head -3 a/audit.md; fail "products not side by side"; }
[[ $(grep -c '^avgpool2d_backward,float16,1,' a/audit.csv) == 2 ]] || fail "one CSV line per product"
/usr/bin/python3 - a/audit.csv dump <<'PY' || fail "audit numbers differ from NumPy"
import csv, glob, json, sys, numpy as np
rows = {r["product"]: r for r in csv.DictReader(open(sys.argv[1]))}
for product, r in rows.items():
    d = glob.glob(f"{sys.argv[2]}/audit.avgpool.ninths.{product}")[0]
    g = np.load(f"{d}/grad_output.npy").astype(np.float64)
    got = np.load(f"{d}/grad_input.npy").astype(np.float64)
    exact = np.repeat(np.repeat(g / 9, 3, axis=2), 3, axis=3)
    cr = exact.astype(np.float16).astype(np.float64)
    # ULP of FP16 at the correctly rounded value (normal range here: |g/9| >= 2^-14 mostly;
    # use spacing of float16 which handles subnormals)
    ulp = np.abs(got - cr) / np.spacing(np.abs(cr).astype(np.float16)).astype(np.float64)
    share = np.mean(np.abs(got - exact) <= 1e-5 + 1e-3 * np.abs(exact))
    assert abs(float(r["ulp_max"]) - ulp.max()) < 1e-9, (product, r["ulp_max"], ulp.max())
    assert abs(float(r["share_torch_default"]) - share) < 1e-12, (product, r["share_torch_default"], share)
    assert int(r["elements"]) == got.size
    print(product, "ulp_max", ulp.max(), "torch-default share", share)
PY
grep -q '<svg' a/report.html || fail "no svg in audit report"
echo "audit: side by side, CSV per product, NumPy agrees"
