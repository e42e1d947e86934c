#!/usr/bin/env bash
# aclcts detect-contract names the contract each setting of the emulated device follows (on the
# emulated backend and on a copy of the libraries driven as a real install) with two probes,
# naming the one that decided; vendor@9.1 and vendor@9.2 (the same rules) are named together;
# --confirm names a device that follows none with the probe that rules each contract out; a
# product that cannot tell the contracts apart says so.
source "$(dirname "$0")/e2e_lib.sh"
V92='vendor@9.2 (the same rules as vendor@9.1)'
declare -A WANT=([doc]=doc [vendor]="$V92" [vendor@9.2]="$V92" [vendor@9.1]="$V92"
                 [vendor@9.0]=vendor@9.0 [vendor-old]=vendor@8.5)
for e in doc vendor vendor@9.2 vendor@9.1 vendor@9.0 vendor-old; do
  for p in ascend910 ascend910b ascend310p ascend950; do
    expect_rc 0 env ACLNN_EMU_SPEC="$e" "$ACLCTS" detect-contract --product "$p"
    grep -qF "the device follows contract ${WANT[$e]}, decided by " "$T/out" ||
      fail "$e on $p: $(cat "$T/out")"
    grep -q '^2 of 9 probes run$' "$T/out" || fail "$e on $p: not 2 probes: $(cat "$T/out")"
  done
done
# The deciding probe: cubeMathType 4 parts 9.0 (161002) from 8.5 (161001).
expect_rc 0 env ACLNN_EMU_SPEC=vendor-old "$ACLCTS" detect-contract --product ascend910b
grep -q 'vendor@8.5, decided by cube_math_type_4$' "$T/out" || fail "$(cat "$T/out")"
# Unset, the emulation follows the documents.
expect_rc 0 "$ACLCTS" detect-contract
grep -q '^the device follows contract doc, decided by ' "$T/out" || fail "default: $(cat "$T/out")"
# The 950DT's SoC version is the ascend950 profile.
expect_rc 0 env ACLCTS_SOC=Ascend950DT_9591 ACLNN_EMU_SPEC=vendor@9.1 "$ACLCTS" detect-contract \
  --product ascend950
grep -qF "follows contract $V92" "$T/out" || fail "950DT: $(cat "$T/out")"

# The same through --backend cann:DIR (a real install's discovery); the device reports the SoC
# version Ascend910_9362, which the harness maps to ascend910_93.
cp -r "$(dirname "$ACLCTS")/../ascend-emu" "$T/install"
expect_rc 0 env ACLCTS_SOC=Ascend910_9362 ACLNN_EMU_SPEC=vendor@9.0 "$ACLCTS" detect-contract \
  --backend "cann:$T/install/lib64" --product ascend910_93
grep -q '^the device follows contract vendor@9.0, decided by ' "$T/out" || fail "cann: $(cat "$T/out")"
# Evidence per probe run: the device's status and each contract's expectation.
grep -q 'mask_off_null_input.ascend910_93 *device 0 .*doc expects 161001: FAIL' "$T/out" ||
  fail "no evidence line: $(cat "$T/out")"

# The documents' checks with the vendor's null-mask shortcut: no contract fits (--confirm runs
# the probes the decision skipped).
expect_rc 1 env ACLNN_EMU_SPEC=doc ACLNN_EMU_NULL_MASK=success "$ACLCTS" detect-contract --confirm
grep -q '^the device follows none of the contracts:$' "$T/out" || fail "none: $(cat "$T/out")"
grep -q '^  doc is ruled out by null_output_mask$' "$T/out" || fail "doc rule-out: $(cat "$T/out")"
grep -q '^  vendor@9.0 is ruled out by ' "$T/out" || fail "$(cat "$T/out")"

# A product without either operator tells 9.1/9.2 apart from the others, but not 9.0 from 8.5
# (cubeMathType is never reached).
expect_rc 1 env ACLNN_EMU_SPEC=vendor@9.0 "$ACLCTS" detect-contract --product ascend310b
grep -q 'cannot tell apart on this product: vendor@9.0 vendor@8.5' "$T/out" || fail "$(cat "$T/out")"

expect_rc 2 "$ACLCTS" detect-contract --product nowhere
echo "detect-contract e2e: ok"
