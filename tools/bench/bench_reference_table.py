"""Table of tools/bench-reference: pools the lines of its processes (one op each, several
rounds) and prints per op the reference's cold and warm time (one streamed ref_case call, its
chunks read and dropped as the judge does), pure MPFR's rate, the emulated kernel's time, and
the ratios reference/kernel at the median (p50) and the 90th percentile (p90) of their samples:
warm per pair (a warm reference call and a kernel call next to each other, so a burst of load on
a shared machine hits both), in wall time and in CPU seconds (all threads; steadier than wall
time on a loaded machine); cold against the median warm kernel time of its own process; and cold
against cold, round by round: the reference's first call against the kernel's first call, each
in a fresh process of its own (the kernel's pays its own OpenMP threads' start and fresh output
pages, as the reference's does). The p90 is the bound a ratio goal is held to: one slow run in
ten may pass it, not more. Usage: bench_reference_table.py <lines file>."""
import statistics
import sys
from collections import defaultdict

OPS = ("avgpool", "grid", "bicubic")


def p50(xs):
    return statistics.median(xs)


def p90(xs):
    """The 90th percentile, interpolated between the samples (the sample itself when one)."""
    return statistics.quantiles(xs, n=10, method="inclusive")[8] if len(xs) > 1 else xs[0]


def read(path):
    fast, pairs, mpfr, kcold = defaultdict(list), defaultdict(list), {}, defaultdict(list)
    with open(path) as f:
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
    return fast, pairs, mpfr, kcold


def ratios(fast, pairs, kcold):
    """The ratio samples of one op: warm wall, warm CPU, cold/kernel warm, cold/kernel cold."""
    kt = [p[0] for p in pairs]
    cold = []
    for i, (_, c, start) in enumerate(fast):
        end = fast[i + 1][2] if i + 1 < len(fast) else len(pairs)
        cold.append(c / p50(kt[start:end]))
    cc = [c / k for (_, c, _), k in zip(fast, kcold)]
    return {"warm wall": [p[2] / p[0] for p in pairs], "warm CPU": [p[3] / p[1] for p in pairs],
            "cold/warm": cold, "cold/cold": cc}


def main():
    fast, pairs, mpfr, kcold = read(sys.argv[1])
    table = []
    for op in [o for o in OPS if o in fast] + sorted(set(fast) - set(OPS)):
        elems = fast[op][0][0]
        ps, colds = pairs[op], [c for _, c, _ in fast[op]]
        warm = [p[2] for p in ps]
        print(f"{op}: {elems} output elements, {len(colds)} processes, {len(ps)} warm pairs")
        print(f"  ref_case   warm {p50(warm):.4f} s p50 {p90(warm):.4f} s p90 "
              f"({elems / p50(warm):.3g} elem/s), cold {p50(colds):.4f} s p50 "
              f"{p90(colds):.4f} s p90")
        if op in mpfr:
            me, mw, mc = mpfr[op]
            print(f"  pure MPFR  {me / mw:.3g} elem/s ({me} elements of a batch subset); fast/MPFR "
                  f"{(elems / p50(warm)) / (me / mw):.1f}x per wall second, "
                  f"{(elems / p50([p[3] for p in ps])) / (me / mc):.1f}x per CPU second")
        if not ps or ps[0][0] == 0:
            continue
        kt = [p[0] for p in ps]
        print(f"  emulated FP32 kernel warm {p50(kt):.4f} s p50 {p90(kt):.4f} s p90", end="")
        if kcold[op]:
            print(f", first call {p50(kcold[op]):.4f} s p50 {p90(kcold[op]):.4f} s p90", end="")
        print()
        table.append((op, ratios(fast[op], ps, kcold[op])))
    if not table:
        return
    kinds = ("warm wall", "warm CPU", "cold/warm", "cold/cold")
    print("\nreference / emulated kernel (p50, p90 of the samples; n = samples):")
    print(f"  {'op':8}" + "".join(f" | {k:>21}" for k in kinds))
    for op, r in table:
        cells = [f"{p50(r[k]):6.2f}x {p90(r[k]):6.2f}x n={len(r[k]):<3}" if r[k] else "-"
                 for k in kinds]
        print(f"  {op:8}" + "".join(f" | {c:>21}" for c in cells))
    print("  warm: pairs of calls in one process; cold/warm: the reference's first call against "
          "its process's warm kernel;\n  cold/cold: against the kernel's first call in a fresh "
          "process of its own, round by round")


if __name__ == "__main__":
    main()
