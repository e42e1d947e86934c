#!/usr/bin/python3
"""Checks an `aclcts run --dump DIR` tree against an independent float64 computation in PyTorch:
usage: dump_float64_check.py DIR. Expected numbers come from torch.ops.aten.avg_pool2d_backward /
grid_sampler_2d_backward (CPU, float64) on the dumped inputs as the device saw them; nothing here
uses the code under test. Per case whose expected and got status are 0, per output with
exact_/ref_ files:
 (a) exact_ equals torch float64 within float64 rounding. Bound (Higham): torch forms each term
     with at most a few roundings and sums n terms, so |torch - exact| <= gamma(m) * S with
     S = sum of |terms| (computed below, an upper bound) and m = n + 16 roundings per term
     (division/products/unnormalize) + 8*size (the grid coordinate x carries an absolute error
     ~u*(|x|+size), which moves a weight, not a term, so it is charged to S via size); exact_
     is within u*|exact| <= u*S of the exact value. tol = max(1e-12, 2*m*2^-53) * S; for the
     suites written by tools/random-suite (m < 500) this is 1e-12 * S. Elements where torch and
     the reference differ only because a sample point lies within 1e-9 of a cell edge, tie, fold
     or clip bound (the reference then has several legal values and exact_ holds its primary)
     are tolerated and counted.
 (b) ref_ is exact_ correctly rounded to the output dtype (rounded here by scaling with the
     dtype's quantum and round-half-even; a float64 exact_ at a midpoint of the output format may
     go either way, since the reference rounds the unrounded value: counted).
 (c) the device output is within a loose per-dtype tolerance of torch float64:
     |got - t| <= 4*(n+2*size+4)*u_c*S + u_out*|t| + n*tiny, u_c the compute precision (FP32
     may run at HF32/FP16 on the cube: 2^-11; FP16 2^-11; BF16 2^-8; FP64 2^-50), tiny the
     smallest subnormal of the dtype. Elements near an edge at the device's coordinate precision
     (8*u_c*(2*size+2)) are excluded where the function jumps there (nearest ties: input_grad;
     bilinear edges: grid_grad) and counted.
Prints counts; exits 1 on any mismatch."""
import glob
import json
import math
import os
import sys

import numpy as np
import torch

U64 = 2.0 ** -53
FMT = {"FLOAT16": (11, -14, 15), "BF16": (8, -126, 127), "FLOAT": (24, -126, 127)}
U_OUT = {"FLOAT16": 2.0 ** -11, "BF16": 2.0 ** -8, "FLOAT": 2.0 ** -24, "DOUBLE": 2.0 ** -53}
U_C = {"FLOAT16": 2.0 ** -11, "BF16": 2.0 ** -8, "FLOAT": 2.0 ** -11, "DOUBLE": 2.0 ** -50}
TINY = {"FLOAT16": 2.0 ** -24, "BF16": 2.0 ** -133, "FLOAT": 2.0 ** -149, "DOUBLE": 2.0 ** -1074}
counts = {k: 0 for k in ("cases", "skipped_status", "outputs", "elements", "a_mismatch",
                         "a_edge_tolerated", "b_mismatch", "b_midpoint", "c_mismatch",
                         "c_edge_tolerated")}
worst = {"a": 0.0, "c": 0.0}  # largest |difference| / tolerance seen
failures = []


def round_to(x, dt):
    """x (float64) correctly rounded to dt, half to even, as float64; and a midpoint mask."""
    if dt == "DOUBLE":
        return x.copy(), np.zeros(x.shape, bool)
    p, emin, emax = FMT[dt]
    with np.errstate(all="ignore"):
        _, e = np.frexp(np.abs(x))
        e = np.maximum(e - 1, emin)
        q = np.ldexp(1.0, e - (p - 1))
        s = x / q
        r = np.rint(s) * q
        mid = np.isfinite(s) & (np.abs(s - np.floor(s) - 0.5) == 0)
        top = (2.0 - 2.0 ** (1 - p)) * 2.0 ** emax
        r = np.where(np.abs(r) > top, np.copysign(np.inf, x), r)
        r = np.where(np.isfinite(x) & (x != 0), r, x)
    return r, mid


def load(d, name):
    return np.load(os.path.join(d, name + ".npy")).astype(np.float64)


def avgpool(d, j):
    p = j["params"]
    g, s = load(d, "grad_output"), load(d, "self")
    k, st, pad = p["kernel_size"], p["stride"] or p["kernel_size"], p["padding"]
    div = p["divisor_override"] or None
    tg, ts = torch.from_numpy(g), torch.from_numpy(s)
    t = torch.ops.aten.avg_pool2d_backward(tg, ts, k, st, pad, p["ceil_mode"],
                                           p["count_include_pad"], div).numpy()
    # S: every term |g/div| with nonnegative data is its own absolute value
    sabs = torch.ops.aten.avg_pool2d_backward(tg.abs(), ts, k, st, pad, p["ceil_mode"],
                                              p["count_include_pad"],
                                              abs(div) if div else None).numpy()
    kk, ss = (k * 2)[:2], (st * 2)[:2]
    n = math.ceil(kk[0] / ss[0]) * math.ceil(kk[1] / ss[1])
    none = np.zeros(t.shape, bool)  # no sample points: nothing is ambiguous
    return {"grad_input": (t, sabs, n, 0, none, none)}


def source(c, size, pad, align):
    """Raw (unnormalized), reflected (before the clip) and final sample coordinate, as PyTorch
    defines them."""
    raw = (c + 1) / 2 * (size - 1) if align else ((c + 1) * size - 1) / 2
    x = raw
    if pad == 2:
        lo, hi = (0.0, 2.0 * (size - 1)) if align else (-1.0, 2.0 * size - 1)
        if lo == hi:
            x = np.zeros_like(raw)
        else:
            mn, span = lo / 2, (hi - lo) / 2
            a = np.abs(raw - mn)
            extra, flips = np.fmod(a, span), np.floor(a / span)
            x = np.where(flips % 2 == 0, extra + mn, span - extra + mn)
    return raw, x, (np.clip(x, 0, size - 1) if pad >= 1 else x)


def near(x, step, off, w):
    """|x - (off + m*step)| <= w for some integer m (no points when step is 0: size 1)."""
    if step == 0:
        return np.abs(x - off) <= w
    y = (x - off) / step
    return np.abs(y - np.rint(y)) * step <= w


def edges(raw, refl, fin, size, mode, pad, align, w):
    """Sample points whose result jumps within w: nearest ties; bilinear cell edges and clip
    bounds (integers before the clip) and reflection folds."""
    if mode == 1:
        return near(fin, 1.0, 0.5, w)
    e = near(refl, 1.0, 0.0, w)
    if pad == 2:
        e = e | (near(raw, size - 1.0, 0.0, w) if align else near(raw, float(size), -0.5, w))
    return e


def grid(d, j):
    p = j["params"]
    g, x, gr = load(d, "grad_output"), load(d, "input"), load(d, "grid")
    mode, pad, align = p["interpolation_mode"], p["padding_mode"], p["align_corners"]
    dx, dg = torch.ops.aten.grid_sampler_2d_backward(
        torch.from_numpy(g), torch.from_numpy(x), torch.from_numpy(gr), mode, pad, align,
        [True, True])
    N, C, H, W = x.shape
    ho, wo = gr.shape[1], gr.shape[2]
    rx, qx, fx = source(gr[..., 0], W, pad, align)
    ry, qy, fy = source(gr[..., 1], H, pad, align)
    # S and term counts: every point feeds the 2x2 block at (floor y, floor x) (nearest's
    # rounded index is one of them); dgrid terms are |g| * |input corner| * gradient factor.
    sdx, ndx = np.zeros(x.shape), np.zeros(x.shape[2:])
    sdg = np.zeros(gr.shape)
    fac = [(W - 1) / 2 if align else W / 2, (H - 1) / 2 if align else H / 2]
    ag, ax = np.abs(g), np.abs(x)
    near_f64, near_dev = {}, {}
    w_dev = 8 * U_C[j["dtype"]] * (2 * max(H, W) + 2)
    for w_, dst in ((1e-9, near_f64), (w_dev, near_dev)):
        e = (edges(rx, qx, fx, W, mode, pad, align, w_) |
             edges(ry, qy, fy, H, mode, pad, align, w_))
        dst["grid"] = e
    mdx = {k: np.zeros(x.shape, bool) for k in ("f64", "dev")}
    for n in range(N):
        for h in range(ho):
            for w in range(wo):
                if not (np.isfinite(fx[n, h, w]) and np.isfinite(fy[n, h, w])):
                    continue
                x0, y0 = int(math.floor(fx[n, h, w])), int(math.floor(fy[n, h, w]))
                for yy in (y0, y0 + 1):
                    for xx in (x0, x0 + 1):
                        if 0 <= yy < H and 0 <= xx < W:
                            sdx[n, :, yy, xx] += ag[n, :, h, w]
                            ndx[yy, xx] += 1
                            sdg[n, h, w, 0] += fac[0] * np.sum(ag[n, :, h, w] * ax[n, :, yy, xx])
                            sdg[n, h, w, 1] += fac[1] * np.sum(ag[n, :, h, w] * ax[n, :, yy, xx])
                for key, src in (("f64", near_f64), ("dev", near_dev)):
                    if src["grid"][n, h, w]:
                        mdx[key][n, :, max(y0 - 1, 0):y0 + 3, max(x0 - 1, 0):x0 + 3] = True
    size = max(H, W)
    edge_dg = {k: np.repeat(v["grid"][..., None], 2, axis=3)
               for k, v in (("f64", near_f64), ("dev", near_dev))}
    none_dx, none_dg = np.zeros(x.shape, bool), np.zeros(gr.shape, bool)
    return {
        "input_grad": (dx.numpy(), sdx, int(ndx.max(initial=0)), size, mdx["f64"],
                       mdx["dev"] if mode == 1 else none_dx),
        "grid_grad": (dg.numpy(), sdg, 4 * C, size, edge_dg["f64"],
                      edge_dg["dev"] if mode == 0 else none_dg),
    }


def check_case(d):
    j = json.load(open(os.path.join(d, "case.json")))
    if j["expected_status"] != 0 or j["got_status"] != 0:
        counts["skipped_status"] += 1
        return
    counts["cases"] += 1
    dt = j["dtype"]
    outs = avgpool(d, j) if j["op"] == "avgpool2d_backward" else grid(d, j)
    for name, (t, S, n, size, edge64, edgedev) in outs.items():
        if not os.path.exists(os.path.join(d, f"exact_{name}.npy")):
            continue  # masked off by output_mask
        counts["outputs"] += 1
        exact, ref, got = load(d, "exact_" + name), load(d, "ref_" + name), load(d, name)
        counts["elements"] += exact.size
        both = lambda a, b: (a == b) | (np.isnan(a) & np.isnan(b))
        # (a)
        m = n + 16 + 8 * size
        tol = max(1e-12, 2 * m * U64) * S
        bad = ~(both(exact, t) | (np.abs(exact - t) <= tol))
        counts["a_edge_tolerated"] += int(np.sum(bad & edge64))
        bad &= ~edge64
        if bad.any():
            i = np.argwhere(bad)[0]
            failures.append(f"(a) {d} {name}{list(i)}: exact {exact[tuple(i)]!r} torch "
                            f"{t[tuple(i)]!r} tol {tol[tuple(i)]:.3g} ({int(bad.sum())} elements)")
        counts["a_mismatch"] += int(bad.sum())
        # (b)
        r, mid = round_to(exact, dt)
        rb = ~both(ref, r)
        counts["b_midpoint"] += int(np.sum(rb & mid))
        rb &= ~mid
        if rb.any():
            i = tuple(np.argwhere(rb)[0])
            failures.append(f"(b) {d} {name}{list(i)}: ref {ref[i]!r} != round({exact[i]!r}) "
                            f"= {r[i]!r} ({int(rb.sum())} elements)")
        counts["b_mismatch"] += int(rb.sum())
        # (c)
        tolc = (4 * (n + 2 * size + 4) * U_C[dt] * S + U_OUT[dt] * np.abs(t)
                + (n + 1) * TINY[dt])
        cb = ~(both(got, t) | (np.abs(got - t) <= tolc))
        counts["c_edge_tolerated"] += int(np.sum(cb & (edgedev | edge64)))
        cb &= ~edgedev & ~edge64
        with np.errstate(all="ignore"):
            ra = np.where(tol > 0, np.abs(exact - t) / tol, 0)
            rc = np.where(tolc > 0, np.abs(got - t) / tolc, 0)
        worst["a"] = max(worst["a"], float(np.nanmax(ra, initial=0)))
        worst["c"] = max(worst["c"], float(np.nanmax(rc, initial=0)))
        if cb.any():
            i = tuple(np.argwhere(cb)[0])
            failures.append(f"(c) {d} {name}{list(i)}: device {got[i]!r} torch {t[i]!r} "
                            f"tol {tolc[i]:.3g} ({int(cb.sum())} elements)")
        counts["c_mismatch"] += int(cb.sum())


def main():
    dirs = sorted(os.path.dirname(f) for f in glob.glob(os.path.join(sys.argv[1], "*/case.json")))
    if not dirs:
        sys.exit(f"no case.json under {sys.argv[1]}")
    for d in dirs:
        check_case(d)
    print(" ".join(f"{k}={v}" for k, v in counts.items()))
    print(f"worst (a) |exact-torch|/tol = {worst['a']:.3g}, (c) |device-torch|/tol = {worst['c']:.3g}")
    for f in failures[:20]:
        print("MISMATCH", f)
    sys.exit(1 if failures or counts["outputs"] == 0 else 0)


if __name__ == "__main__":
    main()
