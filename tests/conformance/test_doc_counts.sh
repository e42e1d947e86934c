#!/usr/bin/env bash
# The case counts quoted in README.md and suites/README.md are those `aclcts list` gives for
# suites/ (all cases, and the --quick subset): tools/doc-counts recomputes and compares them.
source "$(dirname "$0")/e2e_lib.sh"
ACLCTS_BIN=$(dirname "$ACLCTS") "$ACLCTS_SOURCE_DIR/tools/doc-counts"
