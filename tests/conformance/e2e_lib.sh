# Shared by the end-to-end tests of the aclcts command (test_cli_*.sh); sourced, not run.
# ctest sets ACLCTS (the binary) and ACLCTS_SOURCE_DIR. Each test works in its own temp dir.
# shellcheck shell=bash
set -euo pipefail
: "${ACLCTS:?path to build/bin/aclcts}"
T=$(mktemp -d /tmp/aclcts-e2e.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T"
# Under the asan preset, let a worker's SIGSEGV kill it (CRASH) instead of ASan turning it
# into an exit code.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
unset ACLNN_EMU_FAULT ACLNN_EMU_SHUFFLE ACLNN_EMU_SPEC SLURM_ARRAY_TASK_ID JOB_COMPLETION_INDEX \
      GTEST_SHARD_INDEX GTEST_TOTAL_SHARDS

fail() { echo "FAIL: $*" >&2; exit 1; }
# expect_rc N CMD...: runs CMD, which must exit with N; its output is in $T/out.
expect_rc() {
  local want=$1 rc=0; shift
  "$@" >"$T/out" 2>&1 || rc=$?
  [[ $rc == "$want" ]] || { cat "$T/out" >&2; fail "exit $rc, expected $want: $*"; }
}
# jsonl_table FILE: "id status check output_hash" per record, sorted (what two runs must share).
jsonl_table() {
  python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
for r in sorted(rows, key=lambda r: r["id"]):
    print(r["id"], r["status"], r["check"], r["output_hash"])' "$1"
}
# jsonl_ids FILE: the ids, one per line, sorted, duplicates kept.
jsonl_ids() { python3 -c 'import json,sys; [print(json.loads(l)["id"]) for l in open(sys.argv[1])]' "$1" | sort; }

# A suite of avg-pool cases whose answers the reference knows exactly (small integers; the
# window sums are exact in every dtype), on two products.
write_suite() {
  { printf 'suite: e2e.avgpool\nop: avgpool2d_backward\nproduct: [ascend910b, ascend910]\n'
    printf 'seed: 11\ncases:\n'
    doc_example_case doc_example 1
    echo '    expect: {values: {grad_input: 0.0625}}'
    cat <<'YAML'
  - name: windows
    matrix:
      dtype: [float32, float16]
      kernel_size: [[2, 2], [3, 3]]
      stride: [[1, 1], [2, 2]]
    ceil_mode: true
    self_shape: [2, 3, 9, 9]
    padding: [1, 1]
    cube_math_type: 1
    data: {grad_output: {int: [-3, 3]}}
  - name: pad_too_big
    dtype: float32
    self_shape: [1, 1, 4, 4]
    kernel_size: [2, 2]
    stride: [1, 1]
    padding: [2, 2]
    cube_math_type: 1
YAML
  } >"$1"
}
# doc_example_case NAME CUBE_MATH_TYPE: a suite's case (YAML lines under `cases:`) of avg-pool's
# document example, every grad_input element exactly 1/16 (FLOAT32 1x16x4x4, a 4x4 window on
# gradients of ones); a test adds its own keys after it.
doc_example_case() {
  cat <<YAML
  - name: $1
    dtype: float32
    self_shape: [1, 16, 4, 4]
    kernel_size: [4, 4]
    stride: [1, 1]
    padding: [0, 0]
    cube_math_type: $2
    data: {grad_output: ones}
YAML
}

# stop_after_records N SUFFIX: the environment (VAR=value words, for env) under which aclcts
# stops itself (SIGSTOP) right after its N-th write to a file whose path ends in SUFFIX, its
# records, having created $T/stopped (stop_after_records.c): a test that interrupts a run in its
# middle then cannot lose the race to a run that finishes first.
stop_after_records() {
  local so=$T/stop_after_records.so pre asan
  [[ -f $so ]] || cc -shared -fPIC -O1 -o "$so" \
    "${ACLCTS_SOURCE_DIR:?}/tests/conformance/stop_after_records.c" -ldl ||
    fail "cannot build tests/conformance/stop_after_records.c"
  pre=$so
  # A sanitizer build's runtime must be the first library loaded.
  asan=$(ldd "$ACLCTS" 2>/dev/null | awk '/libasan/ { print $3 }')
  [[ -n $asan ]] && pre=$asan:$so
  echo "LD_PRELOAD=$pre STOP_AFTER=$2 STOP_RECORDS=$1 STOP_MARK=$T/stopped"
}
# wait_stopped PID: until that run has stopped itself (stop_after_records); fails if it ends
# first or takes over 60 s.
wait_stopped() {
  local i state
  for ((i = 0; i < 1200; i++)); do
    state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || fail "the run ended before it stopped itself"
    [[ -e $T/stopped && $state == T ]] && return 0
    sleep 0.05
  done
  fail "the run did not stop itself within 60 s"
}
