"""tools/bound-soundness: the grid sampler's algorithm as devices compute it, for checking that
the reference's error bounds hold (docs/dump.md's rules, the verdict's): PyTorch's CPU kernel
(bilinear, nearest, bicubic) evaluated in the working format of the dtype's path (FP32 for
FLOAT, FLOAT16 and BF16, double for DOUBLE), with and without fused multiply-adds in its
accumulations and its affine steps, unnormalising a coordinate by PyTorch's formula or one of
two algebraically equal ones (whose roundings take the other branch near a lattice point),
then rounded to the output dtype.

Each operation rounds once: FP32 operations are done in double and rounded to FP32 (correctly
rounded for +, −, ×, ÷ of FP32 operands, 53 ≥ 2·24 + 2); a fused multiply-add is computed
exactly (rationals) and rounded once; non-finite operands follow IEEE (double arithmetic)."""
import math
from fractions import Fraction as Q

import numpy as np

A = -0.75


class Arith:
    """One working format (FP32 or double), each operation correctly rounded; fma fused or not."""

    def __init__(self, double, fused):
        self.double, self.fused = double, fused

    def r(self, x):
        if self.double:
            return x
        with np.errstate(over="ignore"):
            return float(np.float32(x))

    def rq(self, q):
        """An exact rational rounded once to the format."""
        if self.double:
            try:
                return float(q)
            except OverflowError:
                return math.inf if q > 0 else -math.inf
        a = abs(q)
        e = a.numerator.bit_length() - a.denominator.bit_length()
        e = e - 1 if Q(2) ** e > a else e
        ulp = Q(2) ** (max(e, -126) - 23)
        n = math.floor(a / ulp)
        d = a / ulp - n
        n = n + 1 if d > Q(1, 2) or (d == Q(1, 2) and n % 2 == 1) else n
        v = n * ulp
        x = math.inf if v >= Q(2) ** 128 else float(v)
        return x if q >= 0 else -x

    def add(self, a, b):
        return self.r(a + b)

    def sub(self, a, b):
        return self.r(a - b)

    def mul(self, a, b):
        return self.r(a * b)

    def div(self, a, b):
        return self.r(a / b)

    def fma(self, a, b, c):
        """a·b + c: fused (one rounding) or a product then a sum."""
        if not self.fused:
            return self.add(self.mul(a, b), c)
        if not all(math.isfinite(x) for x in (a, b, c)):
            return self.r(a * b + c)
        q = Q(a) * Q(b) + Q(c)
        return 0.0 * (a * b + c) if q == 0 else self.rq(q)  # an exact zero keeps IEEE's sign


def unnormalize(F, x, size, align, form=0):
    """grid_sampler_unnormalize_set_grad in F: (coordinate, its multiplier). form 0 is
    PyTorch's ((x + 1)/2)·(size − 1), or ((x + 1)·size − 1)/2 without align_corners; forms 1
    and 2 are the algebraically equal (x + 1)·h (− 1/2) and x·h + c (h = (size − 1)/2 or size/2,
    c = (size − 1)/2) a device may use instead: their roundings put a coordinate near a
    lattice point on either side, the branches the reference's alternatives must cover."""
    h = (size - 1) / 2 if align else size / 2
    if form == 1:
        c = F.mul(F.add(x, 1.0), h)
        return (c if align else F.sub(c, 0.5)), h
    if form == 2:
        return F.fma(x, h, (size - 1) / 2), h
    if align:
        return F.mul(F.div(F.add(x, 1.0), 2.0), float(size - 1)), h
    return F.div(F.fma(F.add(x, 1.0), float(size), -1.0), 2.0), h


def clip(c, size):
    if c <= 0:
        return 0.0, 0
    if c >= size - 1:
        return float(size - 1), 0
    return c, 1


def reflect(F, c, size, align):
    """reflect_coordinates_set_grad in F: (coordinate, gradient sign)."""
    lo2, hi2 = (0, 2 * (size - 1)) if align else (-1, 2 * size - 1)
    if lo2 == hi2:
        return 0.0, 0
    mn, span = lo2 / 2, (hi2 - lo2) / 2
    v, s = F.sub(c, mn), 1
    if v < 0:
        v, s = -v, -1
    extra, flips = math.fmod(v, span), math.floor(F.div(v, span))
    if flips % 2 == 0:
        return F.add(extra, mn), s
    return F.add(F.sub(span, extra), mn), -s


def source_index(F, x, size, pad, align, k):
    """compute_source_index_set_grad with unnormalisation form k: (coordinate, multiplier)."""
    c, mult = unnormalize(F, x, size, align, k)
    if pad == 1:
        c, g = clip(c, size)
        return c, mult * g
    if pad == 2:
        c, g = reflect(F, c, size, align)
        c, g2 = clip(c, size)
        return c, mult * g * g2
    return c, mult


def coefficients(F, t):
    """Keys' cubic coefficients of t and PyTorch's get_cubic_coefficients_grad, in F."""
    def cc1(x):  # ((A + 2)·x − (A + 3))·x·x + 1
        return F.fma(F.mul(F.fma(A + 2, x, -(A + 3)), x), x, 1.0)

    def cc2(x):  # ((A·x − 5A)·x + 8A)·x − 4A
        return F.fma(F.fma(F.fma(A, x, -5 * A), x, 8 * A), x, -4 * A)
    w = [cc2(F.add(t, 1.0)), cc1(t), cc1(F.sub(1.0, t)), cc2(F.sub(2.0, t))]
    x0, x1, x2, x3 = F.sub(-1.0, t), -t, F.sub(1.0, t), F.sub(2.0, t)
    dw = [F.fma(F.fma(-3 * A, x0, -10 * A), x0, -8 * A),
          F.mul(F.fma(-3 * (A + 2), x1, -2 * (A + 3)), x1),
          F.mul(F.fma(3 * (A + 2), x2, -2 * (A + 3)), x2),
          F.fma(F.fma(3 * A, x3, -10 * A), x3, 8 * A)]
    return w, dw


def device_grid(case, go, inp, grid, F, k, tap_index):
    """input_grad and grid_grad (flat lists in F, before the output's rounding) of a device
    unnormalising by form k; tap_index bounds a bicubic tap per padding mode."""
    N, C, Hi, Wi = inp.shape
    Ho, Wo = grid.shape[1], grid.shape[2]
    pad, align, mode = case["padding_mode"], case["align"], case["mode"]
    dx = [0.0] * (N * C * Hi * Wi)
    dg = [0.0] * (N * Ho * Wo * 2)
    for n in range(N):
        for h in range(Ho):
            for w in range(Wo):
                gx, gy = float(grid[n, h, w, 0]), float(grid[n, h, w, 1])
                base = ((n * Ho + h) * Wo + w) * 2
                if mode == 2:
                    bicubic_point(F, k, (n, h, w, base), gx, gy, case, go, inp, dx, dg, tap_index)
                else:
                    point(F, k, (n, h, w, base), gx, gy, case, go, inp, dx, dg)
    return dx, dg


def point(F, k, at, gx, gy, case, go, inp, dx, dg):
    """One bilinear or nearest grid point, PyTorch's order: corners nw, ne, sw, se."""
    n, h, w, base = at
    _, C, Hi, Wi = inp.shape
    pad, align = case["padding_mode"], case["align"]
    ix, mx = source_index(F, gx, Wi, pad, align, k)
    iy, my = source_index(F, gy, Hi, pad, align, k)
    if case["mode"] == 1:
        xn, yn = round(ix), round(iy)  # nearbyint: half to even, as Python's round
        for ch in range(C):
            if 0 <= xn < Wi and 0 <= yn < Hi:
                e = ((n * C + ch) * Hi + yn) * Wi + xn
                dx[e] = F.add(dx[e], float(go[n, ch, h, w]))
        return
    x0, y0 = math.floor(ix), math.floor(iy)
    dxe, dxw = F.sub(x0 + 1, ix), F.sub(ix, x0)  # east-west distances
    dys, dyn = F.sub(y0 + 1, iy), F.sub(iy, y0)
    corners = [(x0, y0, F.mul(dxe, dys), dys, dxe, -1, -1),
               (x0 + 1, y0, F.mul(dxw, dys), dys, dxw, 1, -1),
               (x0, y0 + 1, F.mul(dxe, dyn), dyn, dxe, -1, 1),
               (x0 + 1, y0 + 1, F.mul(dxw, dyn), dyn, dxw, 1, 1)]
    gix = giy = 0.0
    for ch in range(C):
        g = float(go[n, ch, h, w])
        for xi, yi, wgt, wy, wx, sx, sy in corners:
            if not (0 <= xi < Wi and 0 <= yi < Hi):
                continue
            e = ((n * C + ch) * Hi + yi) * Wi + xi
            dx[e] = F.fma(wgt, g, dx[e])
            val = float(inp[n, ch, yi, xi])
            gix = F.fma(sx * F.mul(val, wy), g, gix)
            giy = F.fma(sy * F.mul(val, wx), g, giy)
    dg[base], dg[base + 1] = F.mul(mx, gix), F.mul(my, giy)


def bicubic_point(F, k, at, gx, gy, case, go, inp, dx, dg, tap_index):
    """One bicubic grid point: the coordinate only unnormalised, 4×4 taps bounded per padding;
    case["kernel"]: the release's kernel (differential_bicubic.release_kernel) or None."""
    n, h, w, base = at
    _, C, Hi, Wi = inp.shape
    pad, align = case["padding_mode"], case["align"]
    ix, mx = unnormalize(F, gx, Wi, align, k)
    iy, my = unnormalize(F, gy, Hi, align, k)
    if case.get("kernel") == "vector":
        # releases 9.1/9.2's vector kernel sends a coordinate past 2^31 to -100 (docs/contract.md)
        ix, iy = (-100.0 if abs(v) > 2**31 else v for v in (ix, iy))
    fx, fy = math.floor(ix), math.floor(iy)
    wx, dwx = coefficients(F, F.sub(ix, fx))
    wy, dwy = coefficients(F, F.sub(iy, fy))
    tx = [tap_index(fx - 1 + i, Wi, pad, align) for i in range(4)]
    ty = [tap_index(fy - 1 + j, Hi, pad, align) for j in range(4)]
    gix = giy = 0.0
    for ch in range(C):
        g = float(go[n, ch, h, w])
        for j in range(4):
            for i in range(4):
                if tx[i] is None or ty[j] is None:
                    continue
                e = ((n * C + ch) * Hi + ty[j]) * Wi + tx[i]
                dx[e] = F.fma(F.mul(wx[i], wy[j]), g, dx[e])
                val = float(inp[n, ch, ty[j], tx[i]])
                gix = F.fma(-F.mul(F.mul(val, dwx[i]), wy[j]), g, gix)
                giy = F.fma(-F.mul(F.mul(val, dwy[j]), wx[i]), g, giy)
    dg[base], dg[base + 1] = F.mul(mx, gix), F.mul(my, giy)


def judge(got, hi, lo, bound, rounded, flags, ival, alts, reaches_inf):
    """(legal, ratio): got against the element's legal values; ratio = its distance over the
    bound (0 for an equal or class-legal value, inf for an illegal non-finite one)."""
    if flags & 4:
        return None, 0.0  # UNCHECKABLE
    rows = alts if flags & 1 and alts else [(hi, lo, bound, rounded)]
    if flags & 32 and math.isfinite(got):
        d = max(ival[0] - got, got - ival[1], 0.0)
        r = 0.0 if d == 0 else d / bound if bound > 0 else math.inf
        return r <= 1, r
    if flags & 32 and math.isinf(got):
        # as the verdict: the interval's end nearest got, within the bound, may round past the
        # output's range (an FP16 end of 168813 makes inf legal)
        end = ival[1] if got > 0 else ival[0]
        ok = bool(flags & (8 | 16)) or reaches_inf(got, end, 0.0, bound)
        return ok, 0.0 if ok else math.inf
    best = math.inf
    for h, l, b, rd in rows:
        if got == rd or (math.isnan(got) and math.isnan(rd)):
            return True, 0.0
        if not math.isfinite(h) or not math.isfinite(got):
            ok = ((math.isnan(got) and math.isnan(h)) or got == h or got == rd
                  or (math.isnan(h) and not math.isfinite(got))
                  or (not math.isfinite(got) and flags & (8 | 16))
                  or reaches_inf(got, h, l, b))
            best = min(best, 0.0 if ok else math.inf)
            continue
        d = abs((got - h) - l)
        best = min(best, 0.0 if d == 0 else d / b if b > 0 else math.inf)
    return best <= 1, best
