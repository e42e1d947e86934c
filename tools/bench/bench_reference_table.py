"""Table of tools/bench-reference: pools the lines of its processes (one op each, several
rounds) and prints per op the reference's cold and warm time (one streamed ref_case call, its
chunks read and dropped as the judge does), pure MPFR's rate, the emulated
kernel's time, and the ratios reference/kernel: warm per pair (a warm reference call and a
kernel call next to each other, so a burst of load on a shared machine hits both), cold against
the median kernel time of its own process, and cold against cold: the reference's first call
against the kernel's first call, each in a fresh process of its own (the kernel's pays its own
OpenMP threads' start and fresh output pages, as the reference's does). Ratios are given as the median and the minimum over
the samples (the minimum: the least disturbed one), in wall time and in CPU seconds (all
threads; steadier than wall time on a loaded machine).
Usage: bench_reference_table.py <lines file>."""
import statistics
import sys
from collections import defaultdict


def med_min(xs):
    return f"{statistics.median(xs):7.2f}x median {min(xs):6.2f}x min"


def main():
    fast, pairs, mpfr, kcold = defaultdict(list), defaultdict(list), {}, defaultdict(list)
    with open(sys.argv[1]) as f:
        for line in f:
            w = line.split()
            if w[0] == "fast":  # fast OP ELEMS COLD ; every process starts with one
                fast[w[1]].append((int(w[2]), float(w[3]), len(pairs[w[1]])))
            elif w[0] == "pair":  # pair OP KWALL KCPU REFWALL REFCPU
                pairs[w[1]].append(tuple(float(x) for x in w[2:6]))
            elif w[0] == "kcold":  # kcold OP WALL: a process's first kernel call
                kcold[w[1]].append(float(w[2]))
            elif w[0] == "mpfr":  # mpfr OP ELEMS WALL CPU
                mpfr[w[1]] = (int(w[2]), float(w[3]), float(w[4]))
    for op in sorted(fast):
        elems = fast[op][0][0]
        ps, colds = pairs[op], [c for _, c, _ in fast[op]]
        warm = [p[2] for p in ps]
        print(f"{op}: {elems} output elements, {len(colds)} processes, {len(ps)} warm pairs")
        print(f"  ref_case   warm {statistics.median(warm):.3f} s median ({elems / statistics.median(warm):.3g} elem/s), "
              f"cold {statistics.median(colds):.3f} s median ({elems / statistics.median(colds):.3g} elem/s)")
        if op in mpfr:
            me, mw, mc = mpfr[op]
            print(f"  pure MPFR  {me / mw:.3g} elem/s ({me} elements of a batch subset); fast/MPFR "
                  f"{(elems / statistics.median(warm)) / (me / mw):.1f}x per wall second, "
                  f"{(elems / statistics.median([p[3] for p in ps])) / (me / mc):.1f}x per CPU second")
        if not ps or ps[0][0] == 0:
            continue
        kt = [p[0] for p in ps]
        print(f"  emulated FP32 kernel {statistics.median(kt):.4f} s median, {min(kt):.4f} s min")
        print(f"  reference/kernel warm, wall: {med_min([p[2] / p[0] for p in ps])}")
        print(f"  reference/kernel warm, CPU:  {med_min([p[3] / p[1] for p in ps])}")
        cold = []
        for i, (_, c, start) in enumerate(fast[op]):
            end = fast[op][i + 1][2] if i + 1 < len(fast[op]) else len(ps)
            cold.append(c / statistics.median(kt[start:end]))
        print(f"  reference/kernel cold, wall: {med_min(cold)}  (reference's first call / kernel warm)")
        if kcold[op]:
            kc = kcold[op]
            print(f"  emulated FP32 kernel's first call {statistics.median(kc):.4f} s median, "
                  f"{len(kc)} processes")
            print(f"  reference/kernel cold/cold, wall: "
                  f"{statistics.median(colds) / statistics.median(kc):7.2f}x of the medians")


if __name__ == "__main__":
    main()
