# usage_or_refuse SCRIPT ARG...: for tools whose arguments are positional only. -h or --help
# prints SCRIPT's "# Usage:" line and exits 0; any other first argument starting with '-' is
# refused (exit 2), so a typo does not become a build directory or a product's name.
# shellcheck shell=bash
usage_or_refuse() {
  local me=$1 use
  shift
  use=$(sed -n 's/^# Usage: //p' "$me")
  case ${1:-} in
    -h | --help) echo "Usage: $use"; exit 0 ;;
    -*) echo "$(basename "$me"): unknown option $1 (usage: $use)" >&2; exit 2 ;;
  esac
}
