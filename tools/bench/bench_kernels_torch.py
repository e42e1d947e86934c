"""PyTorch CPU side of tools/bench-kernels: times aten's avg_pool2d_backward and
grid_sampler_2d_backward on the inputs bench_kernels wrote, at the given thread counts.
Usage: bench_kernels_torch.py <dir> <repeats> <threads>...  Output: "<case> <threads> <median ms>"."""
import statistics
import sys
import time

import torch


def load(d, name, shape):
    return torch.from_file(f"{d}/{name}.f32", size=torch.Size(shape).numel(),
                           dtype=torch.float32).reshape(shape)


def median_ms(fn, reps):
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main():
    d, reps, threads = sys.argv[1], int(sys.argv[2]), [int(t) for t in sys.argv[3:]]
    torch.use_deterministic_algorithms(True)
    ap_go = load(d, "avgpool.grad_output", (32, 64, 28, 28))
    ap_self = load(d, "avgpool.self", (32, 64, 56, 56))
    g_go = load(d, "grid.grad_output", (8, 32, 64, 64))
    g_in = load(d, "grid.input", (8, 32, 64, 64))
    g_grid = load(d, "grid.grid", (8, 64, 64, 2))

    def avgpool():
        torch.ops.aten.avg_pool2d_backward(ap_go, ap_self, [3, 3], [2, 2], [1, 1], False, True,
                                           None)

    def grid(mode):
        return lambda: torch.ops.aten.grid_sampler_2d_backward(g_go, g_in, g_grid, mode, 0, False,
                                                               [True, True])

    with torch.no_grad():
        for t in threads:
            torch.set_num_threads(t)
            print(f"avgpool2d_backward {t} {median_ms(avgpool, reps):.3f}", flush=True)
            print(f"grid_sampler2d_backward.bilinear {t} {median_ms(grid(0), reps):.3f}",
                  flush=True)
            print(f"grid_sampler2d_backward.nearest {t} {median_ms(grid(1), reps):.3f}",
                  flush=True)


if __name__ == "__main__":
    main()
