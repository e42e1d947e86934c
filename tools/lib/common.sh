# Shared by the tools/ entry points: dependency install and the build.
# shellcheck shell=bash

ACLCTS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# Debian packages the build and the tests need (tools may add their own with need_packages).
# python3-numpy and python3-torch are test oracles only (float64 cross-checks), never linked;
# python3-yaml reads the mutant catalogue of tools/mutation-score.
ACLCTS_BUILD_PACKAGES=(cmake make gcc g++ pkg-config libmpfr-dev libgmp-dev libyaml-dev
                       libcmocka-dev libjansson-dev libssl-dev libarchive-dev python3
                       python3-numpy python3-torch python3-yaml)

log() { printf 'aclcts: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 2; }

# need_packages PKG...: installs with apt-get only what dpkg says is missing.
need_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  ((${#missing[@]} == 0)) && return 0
  log "installing missing Debian packages: ${missing[*]}"
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || die "need root or sudo to install: ${missing[*]} (apt-get install ${missing[*]})"
    sudo=(sudo)
  fi
  command -v apt-get >/dev/null || die "apt-get not found; install these packages by hand: ${missing[*]}"
  "${sudo[@]}" apt-get update -qq >/dev/null 2>&1 || log "warning: apt-get update failed; trying the install anyway"
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install failed for: ${missing[*]} (run it by hand to see why)"
}

# build PRESET: configure (once) and build with a CMake preset.
build() {
  local preset=${1:-default}
  need_packages "${ACLCTS_BUILD_PACKAGES[@]}"
  cd "$ACLCTS_ROOT" || die "cannot enter $ACLCTS_ROOT"
  # The build is silent and the first one takes minutes: say what is happening.
  log "building (CMake preset $preset; up to a few minutes the first time)"
  cmake --preset "$preset" >/dev/null || die "cmake configure failed (preset $preset)"
  cmake --build --preset "$preset" -j "$(nproc)" >/dev/null \
    || { cmake --build --preset "$preset" -j 1 2>&1 | tail -40; die "build failed (preset $preset)"; }
}

# toolkit_sanitizer_flags HOME: the compiler flags a calling program needs to load the toolkit
# at HOME: -fsanitize=address,undefined when its libascendcl was built with them (the asan
# preset), else nothing. ldd's whole output is read before it is searched: `ldd | grep -q` under
# pipefail fails at random, since grep stops at the first match and ldd dies of SIGPIPE on its
# next line.
toolkit_sanitizer_flags() {
  local deps
  deps=$(ldd "$1/lib64/libascendcl.so" 2>/dev/null) || true
  [[ $deps == *libasan* ]] && printf '%s\n' -fsanitize=address,undefined
  return 0
}

# The fuzz target of every operator: fuzz_<op> for each operator folder with a decoder
# (fuzz/ops/<op>/decode.c), in name order.
op_fuzz_targets() {
  local d
  for d in "$ACLCTS_ROOT"/fuzz/ops/*/decode.c; do
    [[ -f $d ]] && d=${d%/decode.c} && printf 'fuzz_%s\n' "${d##*/}"
  done
}
