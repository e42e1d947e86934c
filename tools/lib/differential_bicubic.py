"""tools/differential's bicubic part (interpolationMode 2): PyTorch's grid_sampler_2d_backward
bicubic algorithm in exact rationals, and a case generator aimed at its corners.

The oracle follows PyTorch's CPU kernel (and the vendor's op_kernel/grid_sampler2_d_grad_bicubic.h)
step by step, with every value exact: the coordinate only unnormalised (no clip or reflection of
it), t = c − floor(c), Keys' coefficients (A = −3/4) of t + 1, t, 1 − t, 2 − t and their
derivatives, each of the 4×4 taps' index bounded per padding mode: zeros drops the taps outside,
border clamps, reflection applies PyTorch's reflect_coordinates to the tap coordinate (a rational
here) and clips. A non-finite grid value contributes nothing (the contract). Terms are those of
the in-bounds taps, as for bilinear."""
import math
from fractions import Fraction as Q

A = Q(-3, 4)


def k_inner(s):  # |s| ≤ 1
    return (A + 2) * s ** 3 - (A + 3) * s ** 2 + 1


def k_outer(s):  # 1 ≤ |s| ≤ 2
    return A * s ** 3 - 5 * A * s ** 2 + 8 * A * s - 4 * A


def dk_inner(s):
    return 3 * (A + 2) * s ** 2 - 2 * (A + 3) * s


def dk_outer(s):
    return 3 * A * s ** 2 - 10 * A * s + 8 * A


def coefficients(t):
    """Weights of taps floor − 1 .. floor + 2 and their derivatives in t."""
    w = [k_outer(t + 1), k_inner(t), k_inner(1 - t), k_outer(2 - t)]
    dw = [dk_outer(t + 1), dk_inner(t), -dk_inner(1 - t), -dk_outer(2 - t)]
    return w, dw


def reflect_tap(i, size, align):
    """PyTorch's reflect_coordinates, then clip_coordinates, of tap coordinate i, as an index."""
    lo2, hi2 = (0, 2 * (size - 1)) if align else (-1, 2 * size - 1)
    if lo2 == hi2:
        return 0
    mn, span = Q(lo2, 2), Q(hi2 - lo2, 2)
    v = abs(Q(i) - mn)
    flips = math.floor(v / span)
    extra = v - span * flips
    r = extra + mn if flips % 2 == 0 else span - extra + mn
    return int(min(max(r, Q(0)), Q(size - 1)))


def tap_index(i, size, pad, align):
    if pad == 0:
        return i if 0 <= i < size else None
    if pad == 1:
        return min(max(i, 0), size - 1)
    return reflect_tap(i, size, align)


def axis(x, size, pad, align):
    """(tap indices, weights, derivatives, dc/dx) of one axis of finite grid value x."""
    x = Q(x)
    if align:
        c, mult = (x + 1) / 2 * (size - 1), Q(size - 1, 2)
    else:
        c, mult = ((x + 1) * size - 1) / 2, Q(size, 2)
    f = math.floor(c)
    w, dw = coefficients(c - f)
    return [tap_index(f - 1 + k, size, pad, align) for k in range(4)], w, dw, mult


def low_edge_x(size, align):
    """The grid value whose unnormalised coordinate is -100: where the vendor's vector bicubic
    kernels of releases 9.1/9.2 put a NaN or ±inf coordinate under border (docs/contract.md)."""
    return Q(-199, size - 1) - 1 if align and size > 1 else Q(-199, size) - 1


def release_kernel(c, spec):
    """The bicubic kernel of releases 9.1/9.2 a case runs on (docs/contract.md): 910b and 910_93
    the vector kernel (not DOUBLE, C <= 2048); 950 its SIMT kernel (not DOUBLE), the vector one
    for FLOAT without determinism at 32..2048 channels under border, 128..2048 under
    reflection; else None (the AICPU task, the exact model)."""
    C = c["in_shape"][1]
    if spec not in ("vendor@9.1", "vendor@9.2") or c["dtype"] == "float64":
        return None
    if c["product"] in ("ascend910b", "ascend910_93"):
        return "vector" if C <= 2048 else None
    if c["product"] != "ascend950":
        return None
    least = {1: 32, 2: 128}.get(c["padding_mode"])
    vec = (c["dtype"] == "float32" and not c.get("deterministic") and least is not None
           and least <= C <= 2048)
    return "vector" if vec else "simt"


def unnorm(x, size, align):
    x = Q(x)
    return (x + 1) / 2 * (size - 1) if align else ((x + 1) * size - 1) / 2


def axis_kind(x, size, pad, align, kernel):
    """How a release's kernel takes one coordinate: "fin" (as the contract), "nan" or "inf"
    (kept: NaN coefficients), "low" (the vector kernel's -100 under border), "out" (its -100
    under zeros) or "wild" (the vector kernel's undefined cast under reflection)."""
    if math.isnan(x) or (math.isinf(x) and align and size == 1):
        kind = "nan"
    elif math.isinf(x):
        kind = "inf"
    elif kernel == "vector" and abs(unnorm(x, size, align)) > 2**31:
        kind = "past"
    else:
        return "fin"
    if kernel == "vector":
        return {1: "low", 2: "nan" if kind == "nan" else "wild"}.get(pad, "out")
    return kind


def grid_bicubic_exact(c, go, inp, grid, ext_sum, kernel=None):
    """input_grad and grid_grad as lists of ext_sum() (the differential's extended-real sums).
    kernel: the vendor's kernel of releases 9.1/9.2 (docs/contract.md "Non-finite grid
    coordinates in the vendor's kernels"), or None for the contract (a non-finite coordinate
    contributes nothing). "vector": under border a non-finite coordinate, or one past 2^31, goes
    to -100; under reflection such a point's taps are undefined (its batch's input_grad is
    unjudged by the reference; its grid_grad NaN for NaN). "simt": a non-finite coordinate's
    coefficients are NaN: grid_grad NaN, and under border NaN at a ±inf coordinate's edge."""
    N, C, Hi, Wi = inp.shape
    Ho, Wo = grid.shape[1], grid.shape[2]
    pad, align = c["padding_mode"], c["align"]
    dx = [ext_sum() for _ in range(N * C * Hi * Wi)]
    dg = [ext_sum() for _ in range(N * Ho * Wo * 2)]
    for n in range(N):
        for h in range(Ho):
            for w in range(Wo):
                gx, gy = float(grid[n, h, w, 0]), float(grid[n, h, w, 1])
                base = ((n * Ho + h) * Wo + w) * 2
                kx = axis_kind(gx, Wi, pad, align, kernel) if kernel else "fin"
                ky = axis_kind(gy, Hi, pad, align, kernel) if kernel else "fin"
                gx = low_edge_x(Wi, align) if kx == "low" else gx
                gy = low_edge_x(Hi, align) if ky == "low" else gy
                kinds = (kx, ky)
                if kinds != ("fin", "fin") and "low" not in kinds or "out" in kinds:
                    if C > 0 and ("nan" in kinds or (kernel == "simt" and "inf" in kinds)):
                        dg[base].add(math.nan)
                        dg[base + 1].add(math.nan)
                    if kernel == "simt" and pad == 1 and "nan" not in kinds:
                        simt_edge(dx, (n, C, Hi, Wi), gx, gy, kinds, align)
                    continue
                if not (math.isfinite(gx) and math.isfinite(gy)):
                    continue
                ix, wx, dwx, mx = axis(gx, Wi, pad, align)
                iy, wy, dwy, my = axis(gy, Hi, pad, align)
                for ch in range(C):
                    g = float(go[n, ch, h, w])
                    for j in range(4):
                        for i in range(4):
                            if ix[i] is None or iy[j] is None:
                                continue
                            dx[((n * C + ch) * Hi + iy[j]) * Wi + ix[i]].add(g, wx[i], wy[j])
                            val = float(inp[n, ch, iy[j], ix[i]])
                            dg[base].add(val, g, dwx[i] * wy[j] * mx)
                            dg[base + 1].add(val, g, wx[i] * dwy[j] * my)
    out = {}
    if c["mask"][0]:
        out["input_grad"] = dx
    if c["mask"][1]:
        out["grid_grad"] = dg
    return out


def simt_edge(dx, shape, gx, gy, kinds, align):
    """The SIMT kernel under border: NaN at a ±inf coordinate's edge, on the other axis's taps."""
    n, C, Hi, Wi = shape

    def taps(x, kind, size):
        if kind == "inf":
            return [size - 1 if x > 0 else 0]
        return sorted({idx for idx in axis(x, size, 1, align)[0]})
    for ch in range(C):
        for yi in taps(gy, kinds[1], Hi):
            for xi in taps(gx, kinds[0], Wi):
                dx[((n * C + ch) * Hi + yi) * Wi + xi].add(math.nan)


def bicubic_grid_value(r, dt, size, align, to_dtype, tiny):
    """A grid value aimed at bicubic's corners: a cell edge (t = 0) or midpoint, a few ULPs off
    an edge (the device's floor may differ), a reflection fold, far out (every tap on one edge
    or outside), tiny, non-finite, or random."""
    u = r.random()
    if u < 0.35:
        t = Q(r.randint(-2 * size - 4, 4 * size + 4), 2)
        x = (2 * t / (size - 1) - 1) if align and size > 1 else ((2 * t + 1) / size - 1)
        x = to_dtype(float(x), dt)
        if u < 0.15 and x != 0:  # 1-3 ULPs of the dtype off
            ulp = math.ldexp(1, math.frexp(x)[1] - {"float32": 24, "float16": 11,
                                                   "bfloat16": 8, "float64": 53}[dt])
            x = to_dtype(x + r.choice([-3, -2, -1, 1, 2, 3]) * ulp, dt)
        return x
    if u < 0.42:
        return to_dtype(r.choice([1e8, -1e8, 3e20, -3e20, 1e4 + 0.5, 4.5, -7.25, 2.75, -3.0]), dt)
    if u < 0.45:
        return r.choice([tiny, -tiny, 0.0, 1.0, -1.0])
    if u < 0.46:
        return r.choice([math.inf, -math.inf, math.nan])
    return to_dtype(r.uniform(-1.4, 1.4), dt)


def gen_bicubic(r, i, values, to_dtype, tiny_of):
    """One random bicubic case (the differential's case dict)."""
    product = r.choice(["ascend910b", "ascend950", "ascend910_93", "ascend910"])
    dts = ["float32", "float32", "float64", "float16", "bfloat16"]
    dt = r.choice(dts if product != "ascend910" else dts[:4])
    N, C = r.randint(1, 2), r.randint(1, 3)
    Hi, Wi, Ho, Wo = r.randint(1, 7), r.randint(1, 7), r.randint(1, 4), r.randint(1, 4)
    pad, align = r.randint(0, 2), r.random() < 0.5
    mask = r.choice([[True, True], [True, True], [True, False], [False, True]])
    kind = r.choice(["uniform", "uniform", "int", "special"])
    grid = []
    for _ in range(N * Ho * Wo):
        grid += [bicubic_grid_value(r, dt, Wi, align, to_dtype, tiny_of(dt)),
                 bicubic_grid_value(r, dt, Hi, align, to_dtype, tiny_of(dt))]
    return {"op": "grid_sampler2d_backward", "name": f"b{i}", "product": product, "dtype": dt,
            "mode": 2, "padding_mode": pad, "align": align, "mask": mask,
            "in_shape": [N, C, Hi, Wi], "grid_shape": [N, Ho, Wo, 2], "go_shape": [N, C, Ho, Wo],
            "grad_output": values(r, dt, N * C * Ho * Wo, kind),
            "input": values(r, dt, N * C * Hi * Wi, kind), "grid": grid}
