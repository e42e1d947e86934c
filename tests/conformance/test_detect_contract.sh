#!/usr/bin/env bash
# aclcts detect-contract names the contract each setting of the emulated device follows (on the
# emulated backend and on a copy of the libraries driven as a real install), names a device
# that follows none with the probes that rule each contract out, and says when a product cannot
# tell the contracts apart.
source "$(dirname "$0")/e2e_lib.sh"
declare -A WANT=([doc]=doc [vendor]=vendor@9.0 [vendor-old]=vendor@8.5)
for e in doc vendor vendor-old; do
  for p in ascend910 ascend910b ascend310p ascend950; do
    expect_rc 0 env ACLNN_EMU_SPEC="$e" "$ACLCTS" detect-contract --product "$p"
    grep -q "^the device follows contract ${WANT[$e]}\$" "$T/out" || fail "$e on $p: $(cat "$T/out")"
  done
done
# Unset, the emulation follows the documents.
expect_rc 0 "$ACLCTS" detect-contract
grep -q '^the device follows contract doc$' "$T/out" || fail "default: $(cat "$T/out")"

# The same through --backend cann:DIR (a real install's discovery); the device reports the SoC
# version Ascend910_9362, which the harness maps to ascend910_93.
cp -r "$(dirname "$ACLCTS")/../ascend-emu" "$T/install"
expect_rc 0 env ACLCTS_SOC=Ascend910_9362 ACLNN_EMU_SPEC=vendor "$ACLCTS" detect-contract \
  --backend "cann:$T/install/lib64" --product ascend910_93
grep -q '^the device follows contract vendor@9.0$' "$T/out" || fail "cann: $(cat "$T/out")"
# Evidence per probe: the device's status and each contract's expectation.
grep -q 'null_output_mask.ascend910_93 *device 0 .*doc expects 161001: FAIL' "$T/out" ||
  fail "no evidence line: $(cat "$T/out")"

# The documents' checks with the vendor's null-mask shortcut: no contract fits.
expect_rc 1 env ACLNN_EMU_SPEC=doc ACLNN_EMU_NULL_MASK=success "$ACLCTS" detect-contract
grep -q '^the device follows none of the contracts:$' "$T/out" || fail "none: $(cat "$T/out")"
grep -q '^  doc is ruled out by null_output_mask$' "$T/out" || fail "doc rule-out: $(cat "$T/out")"
grep -q '^  vendor@9.0 is ruled out by .*grad_output_spatial' "$T/out" || fail "$(cat "$T/out")"

# A product without either operator still shows the vendor's null-mask shortcut, but not the
# release (cubeMathType is never reached).
expect_rc 1 env ACLNN_EMU_SPEC=vendor "$ACLCTS" detect-contract --product ascend310b
grep -q 'cannot tell apart on this product: vendor@9.0 vendor@8.5' "$T/out" || fail "$(cat "$T/out")"

expect_rc 2 "$ACLCTS" detect-contract --product nowhere
echo "detect-contract e2e: ok"
