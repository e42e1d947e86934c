#!/usr/bin/env bash
# Packages the shards of tools/slurm/certify-array.sbatch (or of the Kubernetes Indexed Job)
# into one certification:
#   tools/slurm/certify-package.sh PRODUCT OUT [SHARDS_DIR [CERTIFY OPTION...]]
# As a Slurm job after the array (whatever its tasks' exit codes: a FAIL verdict exits 1):
#   sbatch --dependency=afterany:JOBID tools/slurm/certify-package.sh ascend910b cert-910b shards
# Prints, for each shard that is missing or incomplete, the sbatch line that recovers it; then
# `aclcts certify --results` refuses (exit 1, no package) unless every case is there once, so a
# recovery and a second run of this script is all it takes. Environment: ACLCTS, ACLCTS_SUITES
# as for certify-array.sbatch.
set -euo pipefail
PRODUCT=${1:?usage: certify-package.sh PRODUCT OUT [SHARDS_DIR [CERTIFY OPTION...]]}
OUT=${2:?usage: certify-package.sh PRODUCT OUT [SHARDS_DIR [CERTIFY OPTION...]]}
DIR=${3:-shards}
shift $(($# < 3 ? $# : 3))
ACLCTS=${ACLCTS:-build/bin/aclcts}
SUITES=${ACLCTS_SUITES:-suites/}
[[ -s $DIR/layout ]] || { echo "aclcts: error: $DIR/layout missing: no shard of $DIR ever started" >&2; exit 2; }
read -r -a layout <"$DIR/layout"
N=${#layout[@]}
args=()
for ((k = 0; k < N; k++)); do
  want=$("$ACLCTS" list --product "$PRODUCT" --shard "$k/$N" "$SUITES" | wc -l)
  got=0
  [[ -s $DIR/$k/results.jsonl ]] && got=$(grep -c . "$DIR/$k/results.jsonl" || true)
  if ((got < want)); then
    echo "aclcts: shard $k/$N has $got of $want cases; recover it with:" \
         "sbatch --array=${layout[$k]} tools/slurm/certify-array.sbatch $PRODUCT $DIR [the same RUN OPTIONs]" >&2
  fi
  [[ -e $DIR/$k/results.jsonl ]] && args+=(--results "$DIR/$k/results.jsonl")
done
((${#args[@]})) || { echo "aclcts: error: no shard of $DIR has results" >&2; exit 1; }
exec "$ACLCTS" certify --product "$PRODUCT" --out "$OUT" "${args[@]}" "$@" "$SUITES"
