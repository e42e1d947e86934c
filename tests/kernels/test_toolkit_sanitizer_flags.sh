#!/usr/bin/env bash
# tools/lib/common.sh's toolkit_sanitizer_flags, which every script compiling a calling program
# uses to match the toolkit's sanitizers, answers from ldd's whole output. An ldd that names
# libasan and then goes on writing, slowly, as the real one does line by line under load, gave
# `ldd | grep -q libasan` under pipefail a false "no sanitizers" (SIGPIPE): the vendor examples
# were then built plain and refused to load the ASan toolkit.
set -euo pipefail
root=${ACLCTS_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
source "$root/tools/lib/common.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/bin" "$T/asan/lib64" "$T/plain/lib64"
touch "$T/asan/lib64/libascendcl.so" "$T/plain/lib64/libascendcl.so"
cat > "$T/bin/ldd" <<'LDD'
#!/usr/bin/env bash
printf '\tlinux-vdso.so.1 (0x1)\n'
[[ $1 == */asan/* ]] && printf '\tlibasan.so.8 => /lib/libasan.so.8 (0x2)\n'
sleep 0.2
printf '\tlibm.so.6 => /lib/libm.so.6 (0x3)\n\tlibc.so.6 => /lib/libc.so.6 (0x4)\n'
LDD
chmod +x "$T/bin/ldd"
fail=0
got=$(PATH="$T/bin:$PATH" toolkit_sanitizer_flags "$T/asan")
[[ $got == "-fsanitize=address,undefined" ]] || { echo "FAIL asan toolkit: got '$got'"; fail=1; }
got=$(PATH="$T/bin:$PATH" toolkit_sanitizer_flags "$T/plain")
[[ -z $got ]] || { echo "FAIL plain toolkit: got '$got'"; fail=1; }
got=$(PATH="$T/bin:$PATH" toolkit_sanitizer_flags "$T/none")
[[ -z $got ]] || { echo "FAIL missing toolkit: got '$got'"; fail=1; }
((fail)) || echo "ok   sanitizer flags from ldd's whole output (asan, plain, missing)"
exit $fail
