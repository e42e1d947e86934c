#!/usr/bin/env bash
# fuzz/seeds.py rewrites the seed corpora from their descriptions: rerun over the committed
# corpora it must leave them exactly as committed, the findings and regression inputs that are
# no seed of its own (regress-*, vendor-*, json.yaml, ...) included. It deleted every corpus
# folder first, and with it those 12 files.
# Usage: test_seeds_keep_findings.sh FUZZ_SOURCE_DIR
set -euo pipefail
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$src/seeds.py" "$tmp/"
cp -r "$src/corpus" "$tmp/corpus"
printf 'a finding\n' >"$tmp/corpus/fuzz_grid_sampler2d_backward/crash-0123abcd"
python3 "$tmp/seeds.py"
[[ -f $tmp/corpus/fuzz_grid_sampler2d_backward/crash-0123abcd ]] || { echo "a new finding was deleted"; exit 1; }
rm "$tmp/corpus/fuzz_grid_sampler2d_backward/crash-0123abcd"
# each committed file kept and each seed as committed (the corpora are up to date)
diff -r "$src/corpus" "$tmp/corpus" || { echo "seeds.py changed the committed corpora"; exit 1; }
echo "seeds keep findings: ok"
