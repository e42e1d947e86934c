#!/usr/bin/env bash
# tools/mutants/kernels.yaml still applies to kernels/: every mutant's text occurs exactly once
# in its file, so tools/mutation-score plants the bug it names (an edit of kernels/ that moves
# or rewrites that text must update the catalogue, or the score would silently shrink).
set -euo pipefail
: "${ACLCTS_SOURCE_DIR:?}"
out=$(python3 "$ACLCTS_SOURCE_DIR/tools/mutation-score" --check 2>&1) || { echo "$out" >&2; exit 1; }
n=$(grep -o '^[0-9]*' <<<"$out")
(( n >= 40 )) || { echo "FAIL: only $n mutants in the catalogue (at least 40)" >&2; exit 1; }
