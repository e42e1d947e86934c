#!/usr/bin/env bash
# certify + verify-package on the canonical suite set (one product, run once as a shard and
# packaged with --results). A clean package verifies (directory and .tar.gz; sha256sum -c agrees;
# a manifest re-serialised by Python's json module, same content, still verifies). Refused, each
# with a line naming the file: byte flips in results.jsonl, a suite and manifest.json; an added
# file; a dropped result line or a PASS turned FAIL with every hash re-sealed as a forger would;
# a NOT CONFORMANT package carrying a CONFORMANT package's report.html, summary.md, junit.xml and
# audit files (re-sealed); a manifest with "verdict" twice; results.jsonl a symlink out of the
# package; a packaged suite edited and re-sealed; archives holding a symlink, a '..' path or a
# device (and no temporary directory left behind, also when stopped by SIGTERM). certify refuses: scheduler shard variables,
# an incomplete shard (no package written), records of another backend, an unknown --contract
# (nothing left behind); a subset of the suites packages as NOT CONFORMANT naming each missing
# canonical suite.
source "$(dirname "$0")/e2e_lib.sh"
S=$ACLCTS_SOURCE_DIR/suites
P=ascend910
export TMPDIR=$T/tmp; mkdir -p "$TMPDIR"

"$ACLCTS" run --product $P --jobs 2 --quiet --out run "$S" >run.log 2>&1 || { tail run.log; fail "run"; }
expect_rc 0 "$ACLCTS" certify --product $P --out pkg --results run/results.jsonl "$S"
grep -q "^$P: CONFORMANT" out || fail "no verdict line"
grep -q "^suite set: canonical" out || fail "suite set not reported canonical"
for f in manifest.json results.jsonl junit.xml summary.md report.html audit.md audit.csv \
         SHA256SUMS suites/avgpool2d_backward/errors.yaml suites/grid_sampler2d_backward/errors.yaml; do [[ -s pkg/$f ]] || fail "package lacks $f"; done
[[ -s pkg.tar.gz ]] || fail "no tar.gz"
(cd pkg && sha256sum -c --quiet SHA256SUMS) || fail "sha256sum -c disagrees"
python3 - pkg/manifest.json "$S" "$ACLCTS_SOURCE_DIR/conformance/ops" <<'PY' || fail "manifest fields"
import glob, hashlib, json, os, sys
m = json.load(open(sys.argv[1]))
# the operators' suite folders: one per operator folder with a driver (conformance/ops/<op>/)
ops = [os.path.basename(os.path.dirname(d)) for d in glob.glob(sys.argv[3] + "/*/driver.c")]
assert m["verdict"] == "CONFORMANT" and m["complete"] is True and m["counts"]["total"] > 300
assert m["contract"] == "doc" and m["backend"] == "emu"
# the canonical digest, recomputed here as `sha256sum` would list the shipped suites
listing = "".join(f"{hashlib.sha256(open(f,'rb').read()).hexdigest()}  {os.path.relpath(f, sys.argv[2])}\n"
                  for f in sorted(sum((glob.glob(f"{sys.argv[2]}/{op}/*.yaml") for op in ops), [])))
assert m["suite_set"]["canonical_digest"] == hashlib.sha256(listing.encode()).hexdigest()
assert m["suite_set"]["canonical"] is True
s = m["shards"][0]
for k in ("host", "soc", "backend", "contract", "aclcts_version", "start", "end", "command", "shard"):
    assert s[k], k
assert s["soc"] == "Ascend910A" and s["shard"] == "0/1" and s["cases"] == m["counts"]["total"]
assert {l["name"] for l in s["backend_libs"]} >= {"libascendcl.so", "libopapi.so"}
assert {f["role"] for f in m["files"]} == {"suite", "result", "report"}
PY
expect_rc 0 "$ACLCTS" verify-package pkg
grep -q '^suites/: canonical' out || fail "verify does not say canonical"
expect_rc 0 "$ACLCTS" verify-package pkg.tar.gz
digest=$(sha256sum pkg/SHA256SUMS | cut -c1-64)
expect_rc 0 "$ACLCTS" verify-package --digest "$digest" pkg.tar.gz
other=$([[ ${digest:0:1} == 0 ]] && echo 1 || echo 0)   # a different first digit, always
expect_rc 1 "$ACLCTS" verify-package --digest "$other${digest:1}" pkg

# reseal: what a forger does after an edit: every manifest hash and SHA256SUMS recomputed.
cat >reseal.py <<'PY'
import hashlib, json, os
h = lambda p: hashlib.sha256(open(p, "rb").read()).hexdigest()
m = json.load(open("manifest.json"))
for f in m["files"]:
    if os.path.isfile(f["path"]): f["sha256"] = h(f["path"])
json.dump(m, open("manifest.json", "w"), indent=2)
files = sorted(os.path.relpath(os.path.join(d, n)) for d, _, ns in os.walk(".") for n in ns)
open("SHA256SUMS", "w").write("".join(f"{h(p)}  {p}\n" for p in files if p != "SHA256SUMS"))
PY
tamper() { # NAME EDIT FILE [RC]: copy PKG to t_NAME, edit there, verify must fail naming FILE
  rm -rf "t_$1"; cp -r "${PKG:-pkg}" "t_$1"
  (cd "t_$1" && eval "$2")
  expect_rc "${4:-1}" "$ACLCTS" verify-package "t_$1"
  grep -q "^$3: " out || { cat out; fail "$1: no line naming $3"; }
}
resealed() { tamper "$1" "$2; python3 ../reseal.py" "$3"; }

# Python's json re-serialisation of the manifest (same content): still verifies.
rm -rf t_py; cp -r pkg t_py
(cd t_py && python3 -c 'import json; m=json.load(open("manifest.json")); json.dump(m, open("manifest.json","w"))' &&
 sha256sum $(find . -type f ! -name SHA256SUMS | sed 's|^\./||' | sort) >SHA256SUMS)
expect_rc 0 "$ACLCTS" verify-package t_py

flip='printf X | dd of=FILE bs=1 seek=40 conv=notrunc 2>/dev/null'
tamper results "${flip/FILE/results.jsonl}" results.jsonl
tamper suite "${flip/FILE/suites/avgpool2d_backward/errors.yaml}" suites/avgpool2d_backward/errors.yaml
tamper manifest "${flip/FILE/manifest.json}" manifest.json
tamper added 'echo extra >notes.txt' notes.txt
resealed dropped "sed -i 1d results.jsonl" results.jsonl
grep -q "has no result" out || fail "dropped case not named"
resealed verdict "sed -i '1s/\"status\":\"PASS\"/\"status\":\"FAIL\"/' results.jsonl" manifest.json
grep -q "says CONFORMANT, the results give NOT CONFORMANT" out || fail "verdict not recomputed"
resealed edited_suite 'echo "# edited" >>suites/grid_sampler2d_backward/errors.yaml' \
  suites/grid_sampler2d_backward/errors.yaml
grep -q "^suites/grid_sampler2d_backward/errors.yaml: differs from the canonical suite" out || fail "edited suite"
tamper dup_key "sed -i '0,/\"verdict\": /s//\"verdict\": \"NOT CONFORMANT\", \"verdict\": /' manifest.json; sha256sum \$(find . -type f ! -name SHA256SUMS | sed 's|^\./||' | sort) >SHA256SUMS" manifest.json
grep -q "duplicate" out || { cat out; fail "duplicate key not named"; }
tamper symlink 'mv results.jsonl ../outside.jsonl && ln -s "$PWD/../outside.jsonl" results.jsonl' results.jsonl
grep -q "symbolic link" out || fail "symlink not named"

# A NOT CONFORMANT package (one record turned FAIL before packaging) with the CONFORMANT
# package's human-facing files copied in and everything re-sealed.
mkdir -p bad && sed '1s/"status":"PASS"/"status":"FAIL"/' run/results.jsonl >bad/results.jsonl
cp run/results.provenance.jsonl bad/
expect_rc 1 "$ACLCTS" certify --product $P --out badpkg --results bad/results.jsonl "$S"
grep -q "^$P: NOT CONFORMANT" out || fail "bad package verdict"
PKG=badpkg resealed swapped 'for f in report.html summary.md junit.xml audit.md audit.csv; do cp ../pkg/$f .; done' report.html
# (audit.md and audit.csv come from the element statistics, which the flipped status leaves alone)
for f in summary.md junit.xml; do grep -q "^$f: differs" out || fail "swapped $f not named"; done

# Archives that try to leave the package or hold links or devices: refused, nothing left behind.
python3 - <<'PY'
import io, tarfile
def make(name, extra):
    with tarfile.open(name, "w:gz") as t:
        for path in ("pkg/manifest.json",):
            t.add(path)
        t.addfile(extra, io.BytesIO(b"x") if extra.isreg() else None)
link = tarfile.TarInfo("pkg/results.jsonl"); link.type = tarfile.SYMTYPE; link.linkname = "/etc/passwd"
make("link.tar.gz", link)
up = tarfile.TarInfo("pkg/../../evil"); up.size = 1
make("dotdot.tar.gz", up)
dev = tarfile.TarInfo("pkg/dev"); dev.type = tarfile.CHRTYPE; dev.devmajor, dev.devminor = 1, 3
make("device.tar.gz", dev)
hard = tarfile.TarInfo("pkg/results.jsonl"); hard.type = tarfile.LNKTYPE; hard.linkname = "pkg/manifest.json"
make("hardlink.tar.gz", hard)
PY
for a in link:link dotdot:leaves device:device hardlink:link; do
  expect_rc 2 "$ACLCTS" verify-package "${a%%:*}.tar.gz"
  grep -q "not a package archive: entry .*${a##*:}" out || { cat out; fail "${a%%:*} archive"; }
done
[[ -e $T/evil || -e $TMPDIR/evil ]] && fail "an entry escaped"
[[ -z $(ls "$TMPDIR") ]] || fail "verify-package left $(ls "$TMPDIR")"
# A FIFO named like an archive is refused before any read (it used to block verify-package).
mkfifo fifo.tar.gz
expect_rc 2 timeout 20 "$ACLCTS" verify-package fifo.tar.gz
grep -q "fifo.tar.gz: not a regular file" out || fail "FIFO archive: $(cat out)"
[[ -z $(ls "$TMPDIR") ]] || fail "a refused FIFO archive left $(ls "$TMPDIR")"
# ... nor when it is stopped mid-extraction (it stops itself after writing the unpacked
# results.jsonl), then SIGTERM.
env $(stop_after_records 1 /results.jsonl) "$ACLCTS" verify-package pkg.tar.gz >/dev/null 2>&1 & vp=$!
wait_stopped $vp
[[ -n $(ls "$TMPDIR") ]] || fail "verify-package made no temporary directory"
kill -TERM $vp; kill -CONT $vp; wait $vp || true
[[ -z $(ls "$TMPDIR") ]] || fail "verify-package stopped by SIGTERM left $(ls "$TMPDIR")"

# certify refusals
SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=4 expect_rc 2 "$ACLCTS" certify --product $P --out x "$S"
grep -q "SLURM_ARRAY_TASK_ID is set" out || fail "shard variable not named"
SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=4 expect_rc 2 "$ACLCTS" audit --product $P --out x "$S"
grep -q "audit: SLURM_ARRAY_TASK_ID is set" out || fail "audit: shard variable not named"
mkdir -p part && head -n -5 run/results.jsonl >part/results.jsonl && cp run/results.provenance.jsonl part/
expect_rc 1 "$ACLCTS" certify --product $P --out partpkg --results part/results.jsonl "$S"
grep -q "5 of the .* cases have no result" out || fail "missing cases not counted"
grep -q "no package written" out || fail "no refusal line"
ls -d partpkg* 2>/dev/null && fail "an incomplete certify left files"
expect_rc 1 "$ACLCTS" certify --product $P --backend torch --out torchpkg --results run/results.jsonl "$S"
grep -q "mixed backends" out || fail "backend mismatch not named"
expect_rc 2 "$ACLCTS" certify --product $P --out pkg --results run/results.jsonl "$S"
grep -q "pkg exists" out || fail "existing package overwritten?"

expect_rc 1 "$ACLCTS" certify --product $P --seed 5 --out seedpkg --results run/results.jsonl "$S"
grep -q "was run with another seed" out || fail "seed mismatch not named"

# A subnormal, -0 and infinite statistic (a device producing denormals): packaged and read back
# bit for bit (strtod's ERANGE once made every reader refuse it, and certify half-build).
mkdir -p sub && cp run/results.provenance.jsonl sub/
python3 - run/results.jsonl >sub/results.jsonl <<'PY'
import json, sys
for i, line in enumerate(open(sys.argv[1])):
    r = json.loads(line)
    if i == 0: r.update(worst_rel=1.5e-310, worst_got=-0.0, worst_ulp=float("inf"), t_gen=5e-324)
    print(json.dumps(r).replace("Infinity", "1e999"))
PY
expect_rc 0 "$ACLCTS" certify --product $P --out subnpkg --results sub/results.jsonl "$S"
python3 - sub/results.jsonl subnpkg/results.jsonl <<'PY' || fail "special values changed on the way"
import json, math, struct, sys
a = {r["id"]: r for r in map(json.loads, open(sys.argv[1]))}
bits = lambda x: struct.pack("<d", x)
for r in map(json.loads, open(sys.argv[2])):
    for k in ("worst_rel", "worst_got", "worst_ulp", "t_gen"):
        assert bits(r[k]) == bits(a[r["id"]][k]), (k, r[k], a[r["id"]][k])
PY
expect_rc 0 "$ACLCTS" verify-package subnpkg.tar.gz

# A subset of the suites: packaged, but NOT CONFORMANT, each missing canonical suite named.
"$ACLCTS" run --product $P --quiet --out sub "$S"/*/errors.yaml >/dev/null 2>&1 || true
expect_rc 1 "$ACLCTS" certify --product $P --out subpkg --results sub/results.jsonl "$S"/*/errors.yaml
grep -q "NOT CONFORMANT.*not the canonical" out || fail "subset verdict"
expect_rc 0 "$ACLCTS" verify-package subpkg
grep -q "^suites/avgpool2d_backward/parameters.yaml: a suite of the canonical set is missing" out ||
  fail "missing suite not named"
grep -q "^suites/.*errors.yaml: a suite of the canonical set is missing" out && fail "a run suite called missing"
[[ -s subpkg/suites/grid_sampler2d_backward/errors.yaml ]] || fail "the grid's errors.yaml not packaged in its folder"
# A refused option leaves nothing behind, also when the refusal comes after the temporary
# directory was made (an unknown --contract used to leave certification's .partial-XXXXXX).
expect_rc 2 "$ACLCTS" certify --product $P --out refused --contract bogus "$S"
grep -q "contract bogus" out || fail "unknown contract not named"
[[ -z $(compgen -G 'refused*') ]] || fail "a refused certify left $(compgen -G 'refused*')"
echo "certify/verify-package: canonical package verified; 13 tamperings and 4 archives refused; certify refusals checked"
