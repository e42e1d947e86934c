#!/usr/bin/env bash
# examples/ (our own C and C++ calling programs) compile as a CANN user compiles them, with
# warnings as errors, against the toolkit tree ACLCTS_EMU_DIR, and each prints every output
# beside its hand-derived value and exits 0 only when all agree (the derivations are in the
# programs' comments).
set -euo pipefail
root=${ACLCTS_SOURCE_DIR:?}
home=${ACLCTS_EMU_DIR:?}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
flags=(-Wall -Wextra -Werror -I"$home/include" -L"$home/lib64" -Wl,-rpath,"$home/lib64")
# A toolkit built with sanitizers (the asan preset) needs its callers built with them too.
source "$root/tools/lib/common.sh"
mapfile -t -O ${#flags[@]} flags < <(toolkit_sanitizer_flags "$home")
libs=(-lascendcl -lnnopbase -lopapi)
gcc -std=c11 "${flags[@]}" -o "$out/avgpool" "$root/examples/avgpool2d_backward.c" "${libs[@]}"
g++ -std=c++11 "${flags[@]}" -o "$out/grid" "$root/examples/grid_sampler2d_backward.cpp" "${libs[@]}"
fail=0
for prog in avgpool grid; do
  if "$out/$prog" > "$out/$prog.out" 2>&1; then
    tail -1 "$out/$prog.out"
  else
    echo "FAIL examples/$prog:"; cat "$out/$prog.out"; fail=1
  fi
done
exit $fail
