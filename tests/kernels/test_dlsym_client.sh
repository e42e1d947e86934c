#!/usr/bin/env bash
# A client built only against the real headers' declarations (tests/kernels/dlsym_client.c,
# op-plugin style: no CANN include, dlsym, op-plugin's library discovery) runs unchanged on the
# emulated toolkit, with the operators under each library name op-plugin looks for; and every
# public header of the toolkit compiles as strict C11 on its own.
set -euo pipefail
: "${ACLCTS_SOURCE_DIR:?}" "${ACLCTS_EMU_DIR:?}"
T=$(mktemp -d /tmp/aclcts-dlsym.XXXXXX)
trap 'rm -rf "$T"' EXIT
CC=${CC:-cc}
flags=(-std=c11 -Wall -Wextra -Werror)
# A toolkit built with sanitizers (the asan preset) needs its callers built with them too.
source "$ACLCTS_SOURCE_DIR/tools/lib/common.sh"
mapfile -t -O ${#flags[@]} flags < <(toolkit_sanitizer_flags "$ACLCTS_EMU_DIR")
"$CC" "${flags[@]}" -o "$T/client" "$ACLCTS_SOURCE_DIR/tests/kernels/dlsym_client.c" -ldl
for name in libopapi.so libopapi_nn.so libaclnn_ops_train.so; do
  rm -rf "$T/home" && mkdir -p "$T/home/lib64"
  cp "$ACLCTS_EMU_DIR"/lib64/libascendcl.so "$ACLCTS_EMU_DIR"/lib64/libnnopbase.so "$T/home/lib64/"
  cp "$ACLCTS_EMU_DIR/lib64/libopapi.so" "$T/home/lib64/$name"
  ASCEND_HOME_PATH="$T/home" LD_LIBRARY_PATH="$T/home/lib64" ACLCTS_SOC=Ascend910B2 \
    WANT_SOC=Ascend910B2 "$T/client"
done
# The default profile reports a real SoC version.
ASCEND_HOME_PATH="$T/home" LD_LIBRARY_PATH="$T/home/lib64" WANT_SOC=Ascend910B3 "$T/client"

cd "$ACLCTS_EMU_DIR/include"
for h in $(find . -name '*.h' | sort); do
  printf '#include "%s"\nint main(void) { return 0; }\n' "${h#./}" >"$T/h.c"
  "$CC" -std=c11 -pedantic -Wall -Wextra -Werror -I. -c "$T/h.c" -o "$T/h.o" ||
    { echo "FAIL: $h is not usable from C" >&2; exit 1; }
done
for h in aclnn/opdev/op_errno.h aclnnop/aclnn_util.h acl/error_codes/rt_error_codes.h; do
  [[ -f $h ]] || { echo "FAIL: $h missing from the toolkit" >&2; exit 1; }
done
echo "dlsym client e2e: ok"
