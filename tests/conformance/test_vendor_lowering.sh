#!/usr/bin/env bash
# The vendor's avg-pool lowering (docs/contract.md "Numerics"): the cases of the suite
# vendor_lowering.avgpool2d_backward (suites/avgpool2d_backward/honoured.yaml) pass when the
# emulated device follows the contract they are written for, and every one of them FAILs when
# the device computes on another contract's path: the documents' (ACLNN_EMU_SPEC=doc while judging by the vendor's
# code), or the other vendor release's where the two differ (950).
source "$(dirname "$0")/e2e_lib.sh"
S="$ACLCTS_SOURCE_DIR/suites/avgpool2d_backward/honoured.yaml"
F=(--filter "vendor_lowering.*")
# field FILE KEY: that field of every record, one a line
field() { python3 -c 'import json,sys; [print(json.loads(l)[sys.argv[2]]) for l in open(sys.argv[1])]' "$1" "$2"; }
# statuses FILE: "status check" per record, counted
statuses() { paste <(field "$1" status) <(field "$1" check) | sort | uniq -c; }
# failed FILE: the ids of the FAILs; off_numbers FILE: FAILs not on the expected values or the bound
failed() { paste <(field "$1" status) <(field "$1" id) | awk '$1 == "FAIL" {print $2}'; }
off_numbers() {
  paste <(field "$1" check) <(field "$1" id) |
    awk '$1 != "expected-values" && $1 != "tolerance" {print $2}'
}

for c in vendor@9.0 vendor-old; do
  n=$("$ACLCTS" list --count --contract "$c" --product all "${F[@]}" "$S" 2>/dev/null)
  (( n > 10 )) || fail "$c: only $n cases"
  expect_rc 0 "$ACLCTS" run --quiet --product all --contract "$c" --out "ok-$c" "${F[@]}" "$S"
  [[ $(field "ok-$c/results.jsonl" status | grep -c '^PASS$') == "$n" ]] ||
    fail "$c: not all $n PASS: $(statuses "ok-$c/results.jsonl")"

  # The device on the documents' path: every case FAILs, on its numbers (the expected values
  # or the bound).
  expect_rc 1 env ACLNN_EMU_SPEC=doc "$ACLCTS" run --quiet --product all --contract "$c" \
    --out "doc-$c" "${F[@]}" "$S"
  [[ $(failed "doc-$c/results.jsonl" | wc -l) == "$n" ]] ||
    fail "$c judged on the documents' path: $(statuses "doc-$c/results.jsonl")"
  bad=$(off_numbers "doc-$c/results.jsonl")
  [[ -z $bad ]] || fail "$c: FAILs not on the numbers: $bad"
done

# 950 is where the releases differ: 9.0's regbase vector kernel, 8.5's cube.
expect_rc 1 env ACLNN_EMU_SPEC=vendor-old "$ACLCTS" run --quiet --product ascend950 \
  --contract vendor@9.0 --out old-as-new "${F[@]}" "$S"
failed old-as-new/results.jsonl | grep -q 'global_below_10_regbase' ||
  fail "8.5's cube judged by 9.0: $(statuses old-as-new/results.jsonl)"
expect_rc 1 env ACLNN_EMU_SPEC=vendor@9.0 "$ACLCTS" run --quiet --product ascend950 \
  --contract vendor-old --out new-as-old "${F[@]}" "$S"
failed new-as-old/results.jsonl | grep -q 'cube_950_release_8_5' ||
  fail "9.0's vector kernel judged by 8.5: $(statuses new-as-old/results.jsonl)"
echo PASS
