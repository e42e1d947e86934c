"""Table of tools/bench-kernels: pools the per-call samples of both sides over all rounds and
prints, per case and thread count, the median and minimum time of each side, the ratio
ours/torch of the medians and of the minima (the minimum is the least disturbed call on a shared
machine), and the mean minor page faults per call of each side.
Usage: bench_kernels_table.py <ours samples> <torch samples>."""
import statistics
import sys
from collections import defaultdict


def read(path):
    times, faults = defaultdict(list), defaultdict(list)
    with open(path) as f:
        for line in f:
            name, threads, ms, flt = line.split()
            times[(name, int(threads))].append(float(ms))
            faults[(name, int(threads))].append(int(flt))
    return times, faults


def main():
    ours, ours_f = read(sys.argv[1])
    torch, torch_f = read(sys.argv[2])
    print(f"{'case':<34} {'thr':>3} {'ours_med':>9} {'torch_med':>9} {'ratio':>6} "
          f"{'ours_min':>9} {'torch_min':>9} {'r_min':>6} {'faults o/t':>11}")
    for key in sorted(ours.keys() & torch.keys(), key=lambda k: (k[0], k[1])):
        om, tm = statistics.median(ours[key]), statistics.median(torch[key])
        on, tn = min(ours[key]), min(torch[key])
        fo, ft = statistics.mean(ours_f[key]), statistics.mean(torch_f[key])
        print(f"{key[0]:<34} {key[1]:>3} {om:9.3f} {tm:9.3f} {om / tm:6.2f} "
              f"{on:9.3f} {tn:9.3f} {on / tn:6.2f} {fo:5.0f}/{ft:<5.0f}")


if __name__ == "__main__":
    main()
