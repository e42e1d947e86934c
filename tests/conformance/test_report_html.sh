#!/usr/bin/env bash
# report.html in headless Chromium: `aclcts audit` on a small suite (a FAIL forced by a 0-ULP
# policy on FP16 averages of 3 values, which cannot all be exact, so the page has a failure, its
# repro line and an error map), then the page must show the verdict-free audit heading, at least
# one <svg>, no console errors, no network request, and a screenshot is saved
# ($ACLCTS_REPORT_SHOT or report.png in the temp dir). Also `certify` on the same suite: its page
# shows the NOT CONFORMANT verdict. For a precision engineer: each op x dtype x cubeMathType's
# first picture is the bound-unit distribution with the pass limit 1 drawn, then the ULP
# histogram with its overflow bin labelled; the audit table has no ULP or relative means, every
# inf is footnoted, and ascend310b (which offers neither operator: every case expects an error
# status, per the documents' product tables) says so in its column.
source "$(dirname "$0")/e2e_lib.sh"
if ! command -v chromium >/dev/null; then
  if command -v apt-get >/dev/null && [[ $(id -u) == 0 ]]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1 || true
  fi
fi
if ! command -v chromium >/dev/null; then
  echo "skipped: chromium not installable (no apt-get or not root)"; exit 0
fi
cat >suite.yaml <<'YAML'
suite: report.avgpool
op: avgpool2d_backward
product: [ascend910b, ascend910, ascend310b]
seed: 5
cases:
  - name: thirds
    matrix:
      dtype: [float16, float32]
    self_shape: [1, 2, 12, 12]
    kernel_size: [3, 3]
    stride: [1, 1]
    padding: [1, 1]
    cube_math_type: 1
    data: {grad_output: {uniform: [-1, 1]}}
  - name: strict
    dtype: float16
    self_shape: [1, 1, 9, 9]
    kernel_size: [3, 3]
    stride: [3, 3]
    padding: [0, 0]
    cube_math_type: 1
    tolerance: {ulp: 0}
    data: {grad_output: {uniform: [-1, 1]}}
YAML
"$ACLCTS" audit --product all --out audit --jobs 2 suite.yaml >audit.log 2>&1 || { cat audit.log; fail "audit failed"; }
grep -q '<svg' audit/report.html || fail "no svg in the page"
# the repro line's quotes and the summary's '<=' must arrive escaped
grep -q "filter &apos;report.avgpool.strict" audit/report.html || grep -q "filter &#39;report.avgpool.strict" audit/report.html || fail "repro line not escaped"
grep -qiE '<script|https?://[a-z]' <(grep -v 'xmlns=' audit/report.html) && fail "page has scripts or network references"
# Markdown's inline marks are rendered, not shown: no backtick or ** outside <pre> (before:
# the audit's notes showed `...` literally)
python3 - audit/report.html <<'PY' || fail "Markdown marks shown literally"
import re, sys
page = re.sub(r"<pre>.*?</pre>", "", open(sys.argv[1]).read(), flags=re.S)
assert "`" not in page and "**" not in page, re.findall(r".{40}[`*].{40}", page)[:3]
assert "<code>" in page, "no inline code rendered"
PY
expect_rc 1 "$ACLCTS" certify --product ascend910 --out pkg --jobs 2 suite.yaml

# Pictures: per group the first <svg> after the heading is the bound-unit chart with the limit.
python3 - audit/report.html <<'PY' || fail "pictures of a group are not bound units first"
import re, sys
html = open(sys.argv[1]).read()
groups = re.findall(r'<div class="group"><h3>(.*?)</h3>(.*?)</div></div>', html, re.S)
assert len(groups) == 2, [g[0] for g in groups]  # the suite has float16 and float32, cubeMathType 1
for title, body in groups:
    svgs = re.findall(r'<svg.*?</svg>', body, re.S)
    assert len(svgs) == 2, title
    assert 'bound units: the default pass criterion' in svgs[0] and '1 = pass limit' in svgs[0], title
    assert 'stroke-dasharray' in svgs[0], title            # the limit line
    assert 'ULP against the correctly rounded value' in svgs[1], title
    assert '>overflow<' in svgs[1], title                  # the >256 bin is labelled
PY
grep -q '| ascend310b: no case compares numbers (all [0-9]* expect an error status) |' audit/audit.md \
  || { head -1 audit/audit.md; fail "ascend310b column does not say why it is empty"; }
grep -qE 'ULP mean|rel mean' audit/audit.md && fail "audit still shows ULP or relative means"
if grep -q 'inf\*' audit/audit.md; then grep -q '^inf\* in ' audit/audit.md || fail "inf* without a footnote"; fi
grep -qE '\| inf \|| inf /' audit/audit.md && fail "an unexplained inf in the audit"

# The audit page has a header table as a package's has (before: none): what ran, where, by whom.
products=$(grep -o '<tr><th>products</th><td>[^<]*' audit/report.html | sed 's/.*<td>//')
[[ $(tr -d ' ' <<<"$products" | tr ',' '\n' | sort | paste -sd,) == ascend310b,ascend910,ascend910b ]] ||
  fail "the audit's header names the products $products"
for row in '<tr><th>backend</th><td>emu</td></tr>' '<tr><th>contract</th><td>doc</td></tr>' \
           '<tr><th>cases</th><td>9</td></tr>'; do
  grep -qF "$row" audit/report.html || fail "the audit's header lacks $row"
done

# Each group's title names the products (and paths) its pictures add up: a one-product package
# does not say "all products" (before: "(all products and paths)" on every page).
grep -q 'all products' audit/report.html pkg/report.html && fail "a title says all products"
grep -q '<h3>avgpool2d_backward &middot; float16 &middot; cube_math_type=1 <small>(ascend910;' \
  pkg/report.html || fail "the package's titles do not name its product"
grep -o '<div class="group"><h3>[^/]*</small>' audit/report.html | grep -q 'ascend910b, ascend910\|ascend910, ascend910b' ||
  fail "the audit's titles do not name its products"

shot=${ACLCTS_REPORT_SHOT:-$T/report.png}
flags=(--headless --no-sandbox --disable-gpu --disable-background-networking
       --disable-component-update --disable-sync --no-first-run --user-data-dir="$(mktemp -d)")
for page in audit/report.html pkg/report.html; do
  timeout 120 chromium "${flags[@]}" --enable-logging=stderr --v=0 --dump-dom \
    "file://$T/$page" >dom.html 2>console.log || { tail console.log; fail "chromium failed on $page"; }
  grep -c '<svg' dom.html | grep -qv '^0$' || fail "$page: no <svg> in the rendered DOM"
  # console messages of the page itself (not chromium's own startup noise about dbus etc.)
  if grep -E 'CONSOLE|Uncaught|Refused to|Failed to load' console.log; then fail "$page: console errors"; fi
done
grep -q 'id="verdict" class="verdict bad">NOT CONFORMANT<' dom.html || fail "verdict not shown"
# A package whose page lists a waiver with a long reason (its message: reason, then the check's).
sed -e '/^  - name: strict/,$d' -e 's/^product: .*/product: [ascend910b]/' suite.yaml >waived.yaml
{ doc_example_case waived 1
  cat <<'YAML'
    expect: {values: {grad_input: 0.5}}   # wrong on purpose: the exact value is 1/16
    waiver: {reason: "a known deviation of the device's average-pooling gradient on this dtype, as agreed with the vendor's operator team"}
YAML
} >>waived.yaml
rc=0; "$ACLCTS" certify --product ascend910b --out wpkg --jobs 2 waived.yaml >wcert 2>&1 || rc=$?
[[ $rc == 1 ]] || { cat wcert; fail "certify of the waived suite: exit $rc"; }
grep -q '<td class="msg">a known deviation of the device&apos;s average-pooling' wpkg/report.html ||
  fail "no waiver row"

# Layout at 1400 px (tests/conformance/report_layout.html measures it in the page): no sideways
# scrolling (before: a waiver's reason, which did not wrap), no SVG text box over another
# (before: the ULP chart's ">256" over "overflow").
for page in audit/report.html pkg/report.html wpkg/report.html; do
  probe=$T/$(dirname "$page")/layout.html
  python3 - "$page" "$ACLCTS_SOURCE_DIR/tests/conformance/report_layout.html" >"$probe" <<'PY'
import re, sys
html, probe = open(sys.argv[1]).read(), open(sys.argv[2]).read()
html = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', '', html)
print(html.replace('</body>', probe + '</body>'))
PY
  timeout 120 chromium "${flags[@]}" --window-size=1400,2000 --virtual-time-budget=5000 \
    --dump-dom "file://$probe" 2>/dev/null >layout.dom || fail "chromium failed on $probe"
  layout=$(grep -o 'data-layout="[^"]*"' layout.dom) || fail "$page: the layout probe did not run"
  [[ $layout == 'data-layout="overflow=0;overlaps=0;"' ]] || fail "$page at 1400 px: $layout"
done
grep -q 'Precision audit' dom.html || fail "audit section missing"
timeout 120 chromium "${flags[@]}" --screenshot="$shot" --window-size=1280,2000 \
  "file://$T/pkg/report.html" >/dev/null 2>&1 || fail "screenshot failed"
[[ -s $shot ]] || fail "no screenshot"
echo "report.html rendered; screenshot $shot ($(stat -c %s "$shot") bytes)"
