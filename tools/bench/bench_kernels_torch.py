"""PyTorch CPU side of tools/bench-kernels: times aten's avg_pool2d_backward and
grid_sampler_2d_backward on the inputs bench_kernels wrote, at the given thread counts.
Usage: bench_kernels_torch.py <dir> <repeats> <threads>...
Output: one line per timed call, "<case> <threads> <ms> <minor page faults>".

Same work as the C driver: avg-pool writes into a preallocated gradInput through the native
out= overload (the functional call allocates 25.7 MB per call, which glibc maps fresh, so every
call paid ~6300 first-touch page faults: 130-230 ms at 1 thread on this VM instead of ~15 ms).
The grid sampler stays functional, since its out= overload is a generated copy wrapper; its
4 MB dx and 256 KB dgrid come back warm from the allocator (the fault column shows it)."""
import resource
import sys
import time

import torch

# Warm-up calls per case: the thread pool starts, and the allocator settles (torch's bilinear
# call paid 1024 first-touch faults, a fresh 4 MB dx, on each of its first ~4 calls).
WARMUP = 6


def load(d, name, shape):
    return torch.from_file(f"{d}/{name}.f32", size=torch.Size(shape).numel(),
                           dtype=torch.float32).reshape(shape)


def samples(name, threads, fn, reps):
    for _ in range(WARMUP):
        fn()
    for _ in range(reps):
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        t0 = time.perf_counter()
        fn()
        ms = (time.perf_counter() - t0) * 1e3
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0
        print(f"{name} {threads} {ms:.4f} {faults}", flush=True)


def main():
    d, reps, threads = sys.argv[1], int(sys.argv[2]), [int(t) for t in sys.argv[3:]]
    torch.use_deterministic_algorithms(True)
    ap_go = load(d, "avgpool.grad_output", (32, 64, 28, 28))
    ap_self = load(d, "avgpool.self", (32, 64, 56, 56))
    ap_gi = torch.zeros_like(ap_self)  # touched once, like the C driver's output
    g_go = load(d, "grid.grad_output", (8, 32, 64, 64))
    g_in = load(d, "grid.input", (8, 32, 64, 64))
    g_grid = load(d, "grid.grid", (8, 64, 64, 2))

    def avgpool():
        torch.ops.aten.avg_pool2d_backward.grad_input(ap_go, ap_self, [3, 3], [2, 2], [1, 1],
                                                      False, True, None, grad_input=ap_gi)

    def grid(mode):
        return lambda: torch.ops.aten.grid_sampler_2d_backward(g_go, g_in, g_grid, mode, 0, False,
                                                               [True, True])

    with torch.no_grad():
        for t in threads:
            torch.set_num_threads(t)
            samples("avgpool2d_backward", t, avgpool, reps)
            samples("grid_sampler2d_backward.bilinear", t, grid(0), reps)
            samples("grid_sampler2d_backward.nearest", t, grid(1), reps)


if __name__ == "__main__":
    main()
