#!/usr/bin/env bash
# The stage libraries of conformance/ (conformance/README.md): a file reaches another stage only
# through its one public header <stage>/<stage>.h, only a stage its library links (directly or
# through a public dependency, conformance/CMakeLists.txt), and the links form no cycle.
set -euo pipefail
python3 - "$ACLCTS_SOURCE_DIR/conformance" <<'PY'
import os, re, sys
root = sys.argv[1]
cmake = open(os.path.join(root, "CMakeLists.txt")).read()
deps, public = {}, {}
for m in re.finditer(r"^cts_stage\((\w+)(.*?)\)\s*$", cmake, re.S | re.M):
    name, args = m.group(1), m.group(2)
    pub = args.split("PRIVATE")[0]
    deps[name] = set(re.findall(r"\bcts_(\w+)", args))
    public[name] = set(re.findall(r"\bcts_(\w+)", pub))
assert deps, "no cts_stage() in conformance/CMakeLists.txt"

def reach(s, seen=None):
    """Stages whose headers s may include: its links and, through them, their public links."""
    seen = set() if seen is None else seen
    for d in deps.get(s, ()):
        if d not in seen:
            seen.add(d)
            seen |= public_closure(d)
    return seen

def public_closure(s):
    out = set()
    for d in public.get(s, ()):
        out |= {d} | public_closure(d)
    return out

def cycle():
    state = {}
    def visit(s, path):
        if state.get(s) == 1:
            return path[path.index(s):] + [s]
        if state.get(s) == 2:
            return None
        state[s] = 1
        for d in sorted(deps.get(s, ())):
            c = visit(d, path + [s])
            if c:
                return c
        state[s] = 2
        return None
    for s in sorted(deps):
        c = visit(s, [])
        if c:
            return c
    return None

c = cycle()
if c:
    sys.exit("FAIL: cycle of stage libraries: " + " -> ".join(c))
bad = []
stages = set(deps) | {"cli"}
for stage in sorted(stages):
    folder = os.path.join(root, stage)
    allowed = stages if stage == "cli" else reach(stage) | {stage}
    for f in sorted(os.listdir(folder)):
        if not f.endswith((".c", ".h", ".in")):
            continue
        for n, line in enumerate(open(os.path.join(folder, f)), 1):
            m = re.match(r'#include "(\w+)/(\w+)\.h"', line)
            if not m or not os.path.isdir(os.path.join(root, m.group(1))):
                continue
            where = f"conformance/{stage}/{f}:{n}"
            if m.group(2) != m.group(1):
                bad.append(f"{where}: {m.group(1)}/{m.group(2)}.h is private to {m.group(1)}/ "
                           f"(its public header is {m.group(1)}/{m.group(1)}.h)")
            elif m.group(1) not in allowed:
                bad.append(f"{where}: {stage}/ does not link cts_{m.group(1)}")
for b in bad:
    print("FAIL:", b)
if bad:
    sys.exit(1)
print(f"stage headers: {len(deps)} libraries, acyclic, every cross-stage include public and linked")
PY
