#!/usr/bin/env bash
# `aclcts audit --standard`: the vendor's precision standards (standards/*.yaml) beside the
# proven bound, on a case whose numbers are known by hand: avg-pool's document example, every
# grad_input element exactly 1/16 (FLOAT32, 256 elements). Clean, every standard passes with
# margin 0. Under ACLNN_EMU_FAULT=ulp:3 (every third element, 86 of 256, moved 3 ULPs of 2^-4,
# i.e. 3 x 2^-27, away from zero) the bound fails while ATK single_bm, msprobe's ULP and
# benchmark methods and the mixed tolerance pass with the numbers derived below; msprobe's
# error balance (86 elements above the golden, none below, against the torch backend's 0:
# 86/256 over FLOAT32's floor 2^-14) is reported, not judged (benchmark_compare.py@4c1f8e9
# leaves it out of the verdict). Malformed standard files and unknown names exit 2.
source "$(dirname "$0")/e2e_lib.sh"
STDS=atk-single-bm,msprobe-benchmark,msprobe-ulp,mixed-tolerance,aclcts
# the benchmark device: the torch backend where this build has it, else a recorded clean run
# of the emulated device (the same exact answers on this case)
BENCH=()
[[ -d $(dirname "$ACLCTS")/../ascend-torch ]] || BENCH=(--benchmark emu-bench)
{ printf 'suite: e2e.standards\nop: avgpool2d_backward\nproduct: [ascend910b]\nseed: 11\ncases:\n'
  doc_example_case doc_example 0; } >d.yaml
csv_check() { # DIR: the python below reads DIR/standards.csv on stdin
  python3 -c "$2" <"$1/standards.csv" || fail "$3"
}
[[ ${#BENCH[@]} == 0 ]] ||
  expect_rc 0 "$ACLCTS" run --quiet --product ascend910b --dump emu-bench --out emu-run d.yaml
expect_rc 0 "$ACLCTS" audit --product ascend910b --standard $STDS "${BENCH[@]}" --out clean d.yaml
csv_check clean '
import csv, sys
rows = {r["standard"]: r for r in csv.DictReader(sys.stdin)}
assert sorted(rows) == ["aclcts", "atk-single-bm", "mixed-tolerance", "msprobe-benchmark", "msprobe-ulp"], rows
for r in rows.values():
    assert (r["outputs"], r["pass"], float(r["worst_margin"])) == ("1", "1", 0.0), r
' "clean: every standard passes with margin 0"
[[ ! -e clean/dump && ! -e clean/benchmark/dump ]] || fail "the dumps were not removed"
[[ ${#BENCH[@]} != 0 || -s clean/benchmark/results.jsonl ]] || fail "no torch benchmark run"
grep -q '^## Precision standards' clean/audit.md || fail "audit.md has no standards section"
grep -q 'id="standards"' clean/report.html || fail "report.html has no standards section"
grep -q 'hicann/opbase:docs/zh/ops_precision_standard/experimental_standard.md@6049643' clean/audit.md ||
  fail "ATK single_bm's source not cited"

ACLNN_EMU_FAULT=ulp:3 expect_rc 0 "$ACLCTS" audit --product ascend910b --standard $STDS \
  "${BENCH[@]}" --out ulp3 d.yaml
csv_check ulp3 '
import csv, sys
rows = {r["standard"]: r for r in csv.DictReader(sys.stdin)}
m = {k: dict(x.split("=") for x in r["worst_metrics"].split(";")) for k, r in rows.items()}
e = 3 * 2.0**-27                       # the moved elements error, by hand
rel = e / (2.0**-4 + 1e-7)             # ATK: |error| / (|golden| + 1e-7)
close = lambda a, b: abs(float(a) - b) <= 1e-8 * b
assert rows["aclcts"]["pass"] == "0", rows["aclcts"]
assert rows["atk-single-bm"]["pass"] == "1" and close(m["atk-single-bm"]["MARE"], rel)
assert close(m["atk-single-bm"]["MERE"], rel * 86 / 256), m["atk-single-bm"]
assert rows["msprobe-ulp"]["pass"] == "1" and close(m["msprobe-ulp"]["mean_ulp"], 3 * 86 / 256)
assert float(m["msprobe-ulp"]["ulp_err_proportion"]) == 0          # 3 ULP <= 32
assert rows["mixed-tolerance"]["pass"] == "1" and float(m["mixed-tolerance"]["matched_ratio"]) == 1
assert close(m["mixed-tolerance"]["cap_use"], e / 1e-2), m["mixed-tolerance"]
assert rows["msprobe-benchmark"]["pass"] == "1"
assert close(m["msprobe-benchmark"]["error_balance_ratio"], (86 / 256) / 2.0**-14), m
assert close(m["msprobe-benchmark"]["max_rel_err_ratio"], e / (2.0**-4 + 2.0**-52) / 2.0**-14), m
' "ulp:3: the standards' numbers"
# standards_outputs.csv: each standard's verdict on the one output, with its worst element
python3 -c '
import csv, sys
rows = {r["standard"]: r for r in csv.DictReader(open(sys.argv[1]))}
e = 3 * 2.0**-27
a, b = rows["atk-single-bm"], rows["aclcts"]
assert (a["case"], a["output"]) == ("e2e.standards.doc_example.ascend910b", "grad_input"), a
assert (a["verdict"], b["verdict"], rows["msprobe-benchmark"]["verdict"]) == ("PASS", "FAIL", "PASS")
assert a["worst_element"] == "0" and float(a["worst_got"]) == 2.0**-4 + e, a
assert float(a["worst_golden"]) == 2.0**-4 and abs(float(a["worst_metric"]) - e / (2.0**-4 + 1e-7)) < 1e-15
assert rows["msprobe-benchmark"]["worst_element"] == "", rows["msprobe-benchmark"]
assert abs(float(b["bound_units"]) - 2) < 1e-6 and b["worst_element"] == "0", b
' ulp3/standards_outputs.csv || fail "standards_outputs.csv"
grep -q '^- 1 outputs pass atk-single-bm and exceed the bound; 0 fail it within the bound$' ulp3/audit.md ||
  fail "case-level disagreement not reported"
grep -q '^- 86 elements meet its per-element criterion and exceed the bound; 0 the reverse$' ulp3/audit.md ||
  fail "element-level disagreement not reported"
grep -q 'grad_input\[0\]: got 0.0625000224, golden 0.0625, 2 bound units, relative error 3.58e-07' ulp3/audit.md ||
  fail "no example element"

# a recorded benchmark run (its --dump) instead of the torch backend: the same verdicts
BK=torch
[[ ${#BENCH[@]} == 0 ]] || BK=emu
expect_rc 0 "$ACLCTS" run --quiet --backend $BK --product ascend910b --dump bench --out brun d.yaml
ACLNN_EMU_FAULT=ulp:3 expect_rc 0 "$ACLCTS" audit --product ascend910b --standard $STDS \
  --benchmark bench --out ulp3b d.yaml
diff <(cut -d, -f5- ulp3/standards.csv) <(cut -d, -f5- ulp3b/standards.csv) || fail "--benchmark DIR"

# a benchmark whose call was refused (status not 0) has no outputs to compare with, whatever
# its dump's buffers hold: msprobe-benchmark is then not applicable, said so, never judged;
# so is msprobe-ulp, whose verdict the checker forms only from the device's and the
# benchmark's rows together (api_precision_compare.py: an API without a benchmark row is
# skipped)
cp -r bench bench_refused
sed -i 's/"got_status": *0/"got_status": 161002/' bench_refused/*/case.json
expect_rc 0 "$ACLCTS" audit --product ascend910b --standard msprobe-benchmark,msprobe-ulp \
  --benchmark bench_refused --out refused d.yaml
csv_check refused '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert [r["standard"] for r in rows] == ["msprobe-benchmark", "msprobe-ulp"], rows
for r in rows:
    assert (r["outputs"], r["not_judged"]) == ("0", "1"), r
    assert r["not_applicable"].startswith("1: no benchmark output"), r
' "a refused benchmark call used as a benchmark"
grep -q 'not applicable: no benchmark output' refused/audit.md || fail "n/a reason not in audit.md"
grep -q '^e2e.standards.doc_example.ascend910b,grad_input,.*,msprobe-benchmark,.*,n/a,.*"no benchmark output' \
  refused/standards_outputs.csv || fail "n/a reason not in standards_outputs.csv"

# docs/dump.md rule 5's output range: regression case corners_seed2005_g2614 (FLOAT16, an exact
# 65504 of terms of 2^31) has a +inf element the bound accepts (the device's FP32 sum may end
# 16 above 65504 and round to +inf); the audit must read it as the checks do: the bound passes
# every output, and ATK single_bm, which has no inf/NaN rule, leaves that output not applicable
# (before, the audit took the +inf as an infinite error: the bound FAILed an output the run
# PASSed, and ATK judged the +inf as a failure)
expect_rc 0 "$ACLCTS" audit --product ascend910b --standard atk-single-bm,aclcts \
  --filter '*.corners_seed2005_g2614.*' --out range \
  "$ACLCTS_SOURCE_DIR"/suites/grid_sampler2d_backward/regressions_oracle.yaml
grep -q '"status":"PASS"' range/results.jsonl || fail "corners_seed2005_g2614 did not PASS"
csv_check range '
import csv, sys
rows = {r["standard"]: r for r in csv.DictReader(sys.stdin)}
b, a = rows["aclcts"], rows["atk-single-bm"]
assert b["fail"] == "0" and b["pass"] == b["outputs"] != "0", b
assert "non-finite result" in a["not_applicable"], a
' "an infinity the bound accepts by the output range"

# The golden each standard's file names: FLOAT16 avg-pool, a 3x3 window over a 3x3 input with
# a gradient of 2^-24 (FLOAT16's least subnormal): every grad_input element is exactly 2^-24/9,
# below half of 2^-24, so its correctly rounded FLOAT16 is 0, which the device returns. ATK's
# golden is the reference in the dtype (golden: dtype): relative error 0, PASS. Against the exact
# value (--golden exact) each element's relative error is (2^-24/9) / (2^-24/9 + 1e-7) = 0.0621,
# above 2^-10 (MERE) and 10 x 2^-10 (MARE): FAIL, although the bound passes (by hand).
{ printf 'suite: e2e.golden\nop: avgpool2d_backward\nproduct: [ascend910b]\nseed: 11\ncases:\n'
  printf '  - name: subnormal\n    dtype: float16\n    self_shape: [1, 1, 3, 3]\n'
  printf '    kernel_size: [3, 3]\n    stride: [1, 1]\n    padding: [0, 0]\n    cube_math_type: 0\n'
  printf '    data: {grad_output: {values: [5.9604644775390625e-08]}}\n'; } >g.yaml
for golden in file exact; do
  opt=(); [[ $golden == file ]] || opt=(--golden $golden)
  expect_rc 0 "$ACLCTS" audit --product ascend910b --standard atk-single-bm,aclcts "${opt[@]}" \
    --out golden-$golden g.yaml
done
python3 -c '
import csv, sys
rel = (2.0**-24 / 9) / (2.0**-24 / 9 + 1e-7)
def rows(d):
    return {r["standard"]: r for r in csv.DictReader(open(d + "/standards_outputs.csv"))}
f, e = rows("golden-file"), rows("golden-exact")
assert f["aclcts"]["verdict"] == e["aclcts"]["verdict"] == "PASS", (f, e)
a = f["atk-single-bm"]
assert a["verdict"] == "PASS" and float(a["worst_golden"]) == 0 and float(a["worst_got"]) == 0, a
a = e["atk-single-bm"]
assert a["verdict"] == "FAIL" and float(a["worst_golden"]) == 2.0**-24 / 9, a
assert abs(float(a["worst_metric"]) - rel) < 1e-9 * rel, (a["worst_metric"], rel)
' || fail "the golden: dtype passes a correctly rounded FLOAT16 0, exact fails it"
grep -q '^| atk-single-bm@2026-04 | relative | dtype |' golden-file/audit.md ||
  fail "audit.md does not name the golden"
grep -q '^| atk-single-bm@2026-04 | relative | exact |' golden-exact/audit.md ||
  fail "audit.md does not name the --golden override"
expect_rc 2 "$ACLCTS" audit --product ascend910b --standard atk-single-bm --golden rounded --out x g.yaml
grep -q 'audit: --golden rounded: expected dtype or exact' out || fail "bad --golden"

# standard files are data checked like suites; unknown standards are refused before any run
mkdir sd
cp "$ACLCTS_SOURCE_DIR"/standards/*.yaml sd/
sed -i 's/  max_factor: 10/  max_factr: 10/; s/float16: {threshold: 2^-10}/float16: {threshold: 2^-x}/
        s/elements: nonfinite-other-class/elements: nonfinite/; s/^golden: dtype/golden: rounded/' sd/atk-single-bm.yaml
sed -i 's/^method: bound/method: bound\ngolden: dtype/' sd/aclcts.yaml
sed -i '/^golden:/d' sd/msprobe-ulp.yaml
expect_rc 2 "$ACLCTS" audit --product ascend910b --standard atk-single-bm --standards-dir sd --out x d.yaml
grep -q 'sd/atk-single-bm.yaml:[0-9]*:3: error: rule.max_factr: not a parameter of this standard' out ||
  fail "misspelt rule key"
grep -q "sd/atk-single-bm.yaml:[0-9]*:[0-9]*: error: dtypes.float16.threshold: expected a number (decimal or 2^N), got '2^-x'" out ||
  fail "bad number"
grep -q 'error: rule: missing parameter max_factor' out || fail "missing parameter"
grep -q "error: not_applicable.elements: unknown element class 'nonfinite'" out ||
  fail "bad not_applicable entry"
grep -q "sd/atk-single-bm.yaml:6:9: error: golden: expected dtype (the reference rounded to the output dtype) or exact (the exact value rounded to double), got 'rounded'" out ||
  fail "bad golden"
expect_rc 2 "$ACLCTS" audit --product ascend910b --standard aclcts,msprobe-ulp --standards-dir sd --out x d.yaml
grep -q 'sd/aclcts.yaml:[0-9]*:9: error: golden: the bound judges against the exact value itself' out ||
  fail "golden on the bound"
expect_rc 2 "$ACLCTS" audit --product ascend910b --standard msprobe-ulp --standards-dir sd --out x d.yaml
grep -q 'sd/msprobe-ulp.yaml:[0-9]*:[0-9]*: error: golden: expected a string' out ||
  fail "a standard without its golden"
[[ ! -e x ]] || fail "a refused audit wrote $(ls x)"
expect_rc 2 "$ACLCTS" audit --product ascend910b --standard atk-single-bm,nonesuch --out x d.yaml
grep -q "standard 'nonesuch': no .*/nonesuch.yaml" out || fail "unknown standard"
expect_rc 2 "$ACLCTS" audit --product ascend910b --standard mixed-tolerance@1999 --out x d.yaml
echo "standards: clean all pass; ulp:3 numbers as derived by hand; the golden each file names; files checked"
