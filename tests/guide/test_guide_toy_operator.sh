#!/usr/bin/env bash
# docs/adding-an-operator.md, followed mechanically: in a scratch copy of the source tree, the
# guide's steps marked for the toy operator (<!-- toy: ... --> before a code block) are applied
# as written (new files copied, table lines inserted), the emulated device and the command are
# built, and the guide's check is run: the toy's suite must PASS on the emulated device. Prints
# how many existing files the steps edited and how many lines. Fails when the guide no longer
# adds a working operator, so the guide cannot drift from the code.
set -euo pipefail
src=${ACLCTS_SOURCE_DIR:?}
guide=$src/docs/adding-an-operator.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tree=$tmp/src
mkdir "$tree"
tar -C "$src" --exclude='./build*' --exclude=./.git --exclude=./results -cf - . | tar -C "$tree" -xf -

# The steps: copy DIR (its tree mirrors the source tree), insert before "LINE" in FILE, check.
python3 - "$guide" "$tree" "$tmp/steps" <<'PY'
import os, re, shutil, sys
guide, tree, out = sys.argv[1:]
text = open(guide).read()
edited, lines, copied, check = set(), 0, 0, None
for m in re.finditer(r'^<!-- toy: ([^\n]*?) -->\n(?:```\w*\n(.*?)```)?', text, re.S | re.M):
    step, body = m.group(1), m.group(2) or ""
    if step.startswith("copy "):
        base = os.path.join(tree, step[5:].strip())
        for d, _, files in os.walk(base):
            for f in files:
                rel = os.path.relpath(os.path.join(d, f), base)
                dst = os.path.join(tree, rel)
                if os.path.exists(dst):
                    sys.exit(f"guide step '{step}': {rel} exists already")
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copy(os.path.join(d, f), dst)
                copied += 1
    elif step.startswith("insert "):
        s = re.match(r'insert in (\S+) before "(.*)"$', step)
        if not s:
            sys.exit(f"guide step not understood: {step}")
        path = os.path.join(tree, s.group(1))
        t = open(path).read()
        anchor = s.group(2) + "\n"
        if t.count(anchor) != 1:
            sys.exit(f"guide step '{step}': the line is not in {s.group(1)} once")
        t = t.replace(anchor, body + anchor)
        open(path, "w").write(t)
        edited.add(s.group(1))
        lines += body.count("\n")
    elif step == "check":
        check = body
    else:
        sys.exit(f"guide step not understood: {step}")
if not copied or not edited or check is None:
    sys.exit("the guide has no toy steps (copy, insert, check)")
open(out, "w").write(check)
print(f"guide: {copied} new files, {len(edited)} existing files edited ({lines} lines: "
      f"{', '.join(sorted(edited))})")
PY

cd "$tree"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACLCTS_WERROR=ON -DACLCTS_TORCH=OFF \
      >"$tmp/configure.log" 2>&1 || { tail -30 "$tmp/configure.log"; exit 1; }
cmake --build build -j "$(nproc)" --target aclcts opapi >"$tmp/build.log" 2>&1 ||
    { grep -E 'error|Error' "$tmp/build.log" | head -30; exit 1; }
echo "guide check:"
sed 's/^/  /' "$tmp/steps"
(set -x; source "$tmp/steps")
# Every case ran and passed (a device without the operator would report NOT_SUPPORTED).
total=$(wc -l <"$tmp/results/results.jsonl")
pass=$(grep -c '"status": *"PASS"' "$tmp/results/results.jsonl" || true)
echo "guide: the toy's suite: $pass of $total cases PASS"
[[ $total -gt 0 && $pass -eq $total ]]

# The toy's scale is a parameter of kind double: shown as given, and a non-finite one refused
# at its place in the suite.
id=$(build/bin/aclcts list --product ascend910b suites/toy_scale_backward | grep 'scale=0.25' | head -1)
build/bin/aclcts show "$id" suites/toy_scale_backward | grep -E '^ +scale +0\.25$'
printf 'suite: bad\nop: toy_scale_backward\ncases:\n  - {name: nan, grad_output_shape: [2], scale: .nan}\n' \
    >"$tmp/bad.yaml"
if out=$(build/bin/aclcts list "$tmp/bad.yaml" 2>&1); then echo "FAIL: a NaN scale loaded"; exit 1; fi
grep -E "bad.yaml:4:[0-9]+: error: .*scale.*finite" <<<"$out"
