#!/usr/bin/env bash
# reference.h and each operator's reference_<op>.h are the reference library's public headers:
# with the include directories the library exports (INCLUDE_DIRS), each compiles on its own and
# every other header of reference/ is not found, whichever path a consumer spells it with.
# Usage: test_public_header.sh CC SOURCE_DIR INCLUDE_DIRS (a ;-separated CMake list)
set -euo pipefail
cc=$1 src=$2
flags=()
IFS=';' read -r -a dirs <<<"$3"
for d in "${dirs[@]}"; do flags+=(-I"$d"); done
# Quoted includes are looked up in the current directory too: probe from an empty one.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
compiles() { printf '#include "%s"\nint main(void) { return 0; }\n' "$1" |
             "$cc" -std=c11 -fsyntax-only "${flags[@]}" -x c - 2>/dev/null; }
# Found, even when its own includes then fail: the compiler's not-found message (gcc, clang)
# does not name it.
found() {
    local err
    err=$(printf '#include "%s"\n' "$1" | "$cc" -E "${flags[@]}" -x c - 2>&1 >/dev/null) || true
    ! grep -qF -e "$1: No such file" -e "'$1' file not found" <<<"$err"
}
public=(reference.h)
while IFS= read -r h; do public+=("$(basename "$h")"); done \
    < <(find "$src/reference" -mindepth 2 -name 'reference_*.h' | sort)
for h in "${public[@]}"; do
    if ! compiles "$h"; then
        echo "$h does not compile from the exported include dirs"
        exit 1
    fi
done
reachable=0 n=0
while IFS= read -r h; do
    rel=${h#"$src/reference/"}
    for spelling in "$(basename "$rel")" "$rel" "reference/$rel"; do
        n=$((n + 1))
        if found "$spelling"; then
            echo "private header reachable as \"$spelling\""
            reachable=$((reachable + 1))
        fi
    done
done < <(find "$src/reference" -name '*.h' ! -path "$src/reference/reference.h" \
           ! -name 'reference_*.h' | sort)
[[ $n -gt 0 ]] || { echo "no private header found under $src/reference"; exit 1; }
echo "${public[*]} compile; $reachable of $n spellings of the private headers are reachable"
[[ $reachable -eq 0 ]]
