"""tools/differential --corners: bilinear and nearest grid sampler cases aimed where the oracle's
branches meet the edges of the extended reals: grid values 1-3 units in the last place off the
lattice points of their axis (cell edges, nearest ties, clip limits, reflection folds), so the
device's coordinate may land on either side; non-finite gradOutput on those points; inputs of
±max that cancel across a cell edge; subnormal weights; every outputMask.
The interpolation mode is a parameter (modes): a generator for another mode plugs in here."""
import math
from fractions import Fraction as Q

P_BITS = {"float32": 24, "float16": 11, "bfloat16": 8, "float64": 53}


def ulp_step(x, dt, k, to_dtype, tiny):
    """x moved k units in the last place of dt (k may be negative), in dt."""
    if x == 0:
        return to_dtype(k * tiny, dt)
    e = math.frexp(x)[1] - 1
    ulp = max(Q(2) ** (e - P_BITS[dt] + 1), Q(tiny))
    return to_dtype(float(Q(x) + k * ulp), dt)


def lattice_x(t, size, align):
    """The grid value whose unnormalised coordinate is t on an axis of `size`."""
    if align:
        return 2 * t / (size - 1) - 1 if size > 1 else Q(0)
    return (2 * t + 1) / size - 1


def corner_value(r, dt, size, align, pad, to_dtype, tiny):
    """A grid value a few ULPs off a lattice point of this axis (a fold under reflection)."""
    u = r.random()
    if pad == 2 and u < 0.4:  # reflection folds: min + k·span, k up to 4 either side
        mn, span = (Q(0), Q(size - 1)) if align else (Q(-1, 2), Q(size))
        t = mn + r.randint(-4, 4) * span
    else:  # cell edges, nearest ties, clip limits: the half-integer lattice near the input
        t = Q(r.randint(-4, 2 * size + 2), 2)
    if align and size <= 1:
        return to_dtype(r.choice([0.0, tiny, -tiny]), dt)
    x = to_dtype(float(lattice_x(t, size, align)), dt)
    if u > 0.9:
        return x  # on the point itself
    return ulp_step(x, dt, r.choice([-3, -2, -1, 1, 2, 3]), to_dtype, tiny)


def data_values(r, dt, n, big, tiny, to_dtype):
    """gradOutput or input: small integers, ±max (cancelling pairs), subnormals, some non-finite."""
    out = []
    for _ in range(n):
        u = r.random()
        if u < 0.25:
            v = r.choice([big, -big])
        elif u < 0.35:
            v = r.choice([tiny, -tiny, 3 * tiny])
        elif u < 0.45:
            v = r.choice([math.inf, -math.inf, math.nan])
        elif u < 0.55:
            v = 0.0
        else:
            v = float(r.randint(-4, 4))
        out.append(to_dtype(v, dt))
    return out


def gen_corner(r, i, to_dtype, max_of, tiny_of, modes=(0, 1)):
    product = r.choice(["ascend910b", "ascend950"])
    dt = r.choice(["float32", "float32", "float64", "float64", "float16", "bfloat16"])
    N, C = r.randint(1, 2), r.randint(1, 3)
    Hi, Wi, Ho, Wo = r.randint(1, 4), r.randint(1, 4), r.randint(1, 3), r.randint(1, 3)
    mode, pad, align = r.choice(modes), r.randint(0, 2), r.random() < 0.5
    mask = r.choice([[True, True], [True, False], [False, True]])
    big, tiny = max_of(dt), tiny_of(dt)
    grid = []
    for _ in range(N * Ho * Wo):
        for size in (Wi, Hi):
            grid.append(corner_value(r, dt, size, align, pad, to_dtype, tiny)
                        if r.random() < 0.8 else to_dtype(r.uniform(-1.1, 1.1), dt))
    return {"op": "grid_sampler2d_backward", "name": f"g{i}", "product": product, "dtype": dt,
            "mode": mode, "padding_mode": pad, "align": align, "mask": mask,
            "in_shape": [N, C, Hi, Wi], "grid_shape": [N, Ho, Wo, 2], "go_shape": [N, C, Ho, Wo],
            "grad_output": data_values(r, dt, N * C * Ho * Wo, big, tiny, to_dtype),
            "input": data_values(r, dt, N * C * Hi * Wi, big, tiny, to_dtype), "grid": grid}
