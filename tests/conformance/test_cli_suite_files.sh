#!/usr/bin/env bash
# What a suites directory can hold besides suites. A FIFO named x.yaml once blocked the loader
# forever, a directory named x.yaml printed "yaml: input error" twice, an unreadable path said
# "cannot open" without the reason, *.yml files were skipped, and one file named twice (two
# spellings, or a file and its directory) was a "duplicate suite". Now: one error per entry
# with what it is or strerror, .yml loads, and a file is loaded once whatever its names.
source "$(dirname "$0")/e2e_lib.sh"
mkdir suites
write_suite suites/a.yaml
sed 's/^suite: e2e.avgpool/suite: e2e.yml/' suites/a.yaml >suites/b.yml
n_yaml=$("$ACLCTS" list --count suites/a.yaml)
expect_rc 0 "$ACLCTS" list --count suites
[[ $(cat out) == $((2 * n_yaml)) ]] || fail ".yml not loaded: $(cat out) cases"

# The same file under three spellings and inside its directory: loaded once, no duplicate.
expect_rc 0 "$ACLCTS" list --count suites/a.yaml ./suites/a.yaml suites/../suites/a.yaml suites
[[ $(cat out) == $((2 * n_yaml)) ]] || fail "a file named twice: $(cat out)"
ln -s a.yaml suites/link.yaml
expect_rc 0 "$ACLCTS" list --count suites
[[ $(cat out) == $((2 * n_yaml)) ]] || fail "a symlink to a loaded file: $(cat out)"
rm suites/link.yaml

# Special files: refused with what they are, no hang (timeout proves it), one error each.
mkfifo suites/fifo.yaml
mkdir suites/dir.yaml
ln -s loop.yaml suites/loop.yaml
expect_rc 2 timeout 20 "$ACLCTS" list suites
grep -qx "suites/fifo.yaml:1:1: error: file: a FIFO, not a suite file (suite directories hold \*.yaml and \*.yml files)" out || fail "fifo: $(cat out)"
grep -qx "suites/dir.yaml:1:1: error: file: a directory, not a suite file (suite directories hold \*.yaml and \*.yml files)" out || fail "dir: $(cat out)"
grep -qx "suites/loop.yaml:1:1: error: file: cannot access: Too many levels of symbolic links" out || fail "loop: $(cat out)"
[[ $(grep -c error out) == 3 ]] || fail "one error per entry expected: $(cat out)"
expect_rc 2 timeout 20 "$ACLCTS" list suites/fifo.yaml
grep -qx "suites/fifo.yaml:1:1: error: file: a FIFO, not a suite file" out || fail "$(cat out)"
expect_rc 2 "$ACLCTS" list missing.yaml
grep -qx "missing.yaml:1:1: error: file: cannot access: No such file or directory" out || fail "$(cat out)"

# An unreadable file: the reason, not just "cannot open". root reads anything, so as root the
# loader runs as nobody (when it can reach the binary); otherwise as ourselves.
cp suites/a.yaml secret.yaml
chmod 000 secret.yaml
chmod 755 "$T"
as_user=()
if [[ $EUID == 0 ]] && command -v setpriv >/dev/null; then
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
if [[ $EUID != 0 ]] || "${as_user[@]}" "$ACLCTS" list --help >/dev/null 2>&1; then
  expect_rc 2 "${as_user[@]}" "$ACLCTS" list secret.yaml
  grep -qx "secret.yaml:1:1: error: file: cannot open: Permission denied" out || fail "$(cat out)"
else
  echo "note: unreadable-file check skipped (root without a user that can run $ACLCTS)"
fi
echo PASS
