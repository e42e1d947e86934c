#!/usr/bin/python3
"""Shows that torch's own CPU kernel crashes, without aclcts: calls
torch.ops.aten.grid_sampler_2d_backward (FLOAT, gradOutput and input of ones, input 1x1x3x3) with
one grid point (x, 0) per child process, for x in NaN, ±inf, 1e30 and each mode, padding and
align_corners, and prints the ones whose process died of a signal (docs/torch-vs-cann.md)."""
import itertools
import subprocess
import sys

CHILD = """
import sys, torch
x, mode, pad, align = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
go, inp = torch.ones(1, 1, 1, 1), torch.ones(1, 1, 3, 3)
grid = torch.tensor([[[[x, 0.0]]]])
torch.ops.aten.grid_sampler_2d_backward(go, inp, grid, mode, pad, align, [True, True])
"""

print(f"torch {subprocess.run([sys.executable, '-c', 'import torch; print(torch.__version__)'], capture_output=True, text=True).stdout.strip()}")
print("x\tinterpolation\tpadding\talign_corners\tresult")
crashed = total = 0
for x, mode, pad, align in itertools.product(["nan", "inf", "-inf", "1e30"], [0, 1, 2], [0, 1, 2], [0, 1]):
    r = subprocess.run([sys.executable, "-c", CHILD, x, str(mode), str(pad), str(align)],
                       capture_output=True, text=True)
    total += 1
    if r.returncode < 0:
        crashed += 1
        print(f"{x}\t{['bilinear', 'nearest', 'bicubic'][mode]}\t{['zeros', 'border', 'reflection'][pad]}\t"
              f"{bool(align)}\tsignal {-r.returncode}")
print(f"{crashed} of {total} calls crashed")
