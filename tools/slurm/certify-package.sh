#!/usr/bin/env bash
# Joins the shards of tools/slurm/certify-array.sbatch (or of the Kubernetes Indexed Job) into one
# certification package: tools/slurm/certify-package.sh PRODUCT N [SHARDS_DIR] [OUT]
set -euo pipefail
PRODUCT=${1:?product}; N=${2:?shard count}; DIR=${3:-shards}; OUT=${4:-certification-$PRODUCT}
args=()
for ((k = 0; k < N; k++)); do
  [[ -s $DIR/$k/results.jsonl ]] || { echo "shard $k missing: $DIR/$k/results.jsonl" >&2; exit 2; }
  args+=(--results "$DIR/$k/results.jsonl" --dump "$DIR/$k/dump")
done
exec build/bin/aclcts certify --product "$PRODUCT" --out "$OUT" "${args[@]}" suites/
