#!/usr/bin/env bash
# reference.h is the reference library's only public header: with the include directories the
# library exports (INCLUDE_DIRS), reference.h compiles on its own and every other header of
# reference/ is not found, whichever path a consumer spells it with.
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
if ! compiles reference.h; then
    echo "reference.h does not compile from the exported include dirs"
    exit 1
fi
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
done < <(find "$src/reference" -name '*.h' ! -path "$src/reference/reference.h" | sort)
[[ $n -gt 0 ]] || { echo "no private header found under $src/reference"; exit 1; }
echo "reference.h compiles; $reachable of $n spellings of the private headers are reachable"
[[ $reachable -eq 0 ]]
