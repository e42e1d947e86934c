/* The grid sampler's coordinate stage (facts §4: unnormalize, border clip, reflection with its
 * sign flips, floor / nearbyint), with every branch a device may legally take.
 *
 * Exactness. x is a double, so t = ((x+1)·size − 1)/2 or (x+1)/2·(size−1) is a dyadic rational;
 * MPFR at prec = (bits from x's msb or 1 down to x's lsb) + 2·bitlen(size) + 64 holds it, the
 * affine branch maps c = ±t + b (b a half-integer) and the weights exactly.
 *
 * Device coordinate error δ (u = 2^-24 FP32 path, 2^-53 DOUBLE). x is exact in the working
 * precision. Unnormalize rounds x+1, the product by size (or size−1), and the −1: three
 * roundings of quantities ≤ M = (|x|+1)·size + 1 (×(1+u)^2), halved for the not-align form:
 * |t' − t| ≤ 1.5·u·M·(1+u)^2 ≤ 2u·M (also covers an FMA or x·size/2 + (size−1)/2 variants, which
 * round at most twice). Reflection then rounds t − min (≤ u(|t|+1)), and extra + min or
 * span − extra + min (≤ 2u(span+1)); fmod is exact. Those errors in c move c along the same
 * branch, so they add to δ in t units: δ = 2uM + u(|t|+1) + 2u(2·size+1). Clip and floor are
 * exact. δ is computed in double and scaled by (1 + 2^-40) to stay an upper bound.
 *
 * Branches. Every branch boundary of PyTorch's algorithm lies on the lattice ½ℤ in t: clip
 * limits 0 and size−1, folds min + k·span (min ∈ {0, −½}, span ∈ {size−1, size}), floor edges
 * and nearest ties (c = ±t + b integer or half-integer). So the branches a device with
 * |t' − t| ≤ δ can take are exactly those at the lattice points p within δ of t, approached from
 * below, at, or from above (side σ ∈ {−1, 0, +1}); decide() evaluates the algorithm's
 * comparisons at p + σ·ε symbolically. Far outside the relevant range (zeros: [−1, size],
 * border: [0, size−1]) every branch gives the same (all out of bounds, or clipped) result.
 * One more legal branch: below a fold k·span (k ≥ 2) floor(in/span) may round up to k while
 * fmod(in, span) ≈ span, landing the coordinate on the far side ("far"; the FP quotient's
 * rounding, not a coordinate error). */
#include <stdlib.h>

#include "grid_internal.h"

typedef struct { int a, mult; double b; int64_t i0; bool far; } branch;

/* Clip of value v at side s (PyTorch: in <= 0 → 0; in >= size−1 → size−1; gradient 0). */
static void clip(branch *r, double v, int s, int64_t size)
{
    double hi = (double)(size - 1);
    if (v < 0 || (v == 0 && s <= 0)) {
        r->a = 0; r->b = 0; r->mult = 0;
    } else if (v > hi || (v == hi && s >= 0)) {
        r->a = 0; r->b = hi; r->mult = 0;
    }
}

static branch decide(double p, int s, int64_t size, const ref_grid_params *gp, bool far)
{
    branch r = {1, 1, 0, 0, false};
    if (gp->padding == REF_PAD_BORDER) {
        clip(&r, p, s, size);
    } else if (gp->padding == REF_PAD_REFLECTION) {
        /* twice_low, twice_high as integers: 2·min and 2·(min + span) */
        int64_t tl = gp->align_corners ? 0 : -1;
        int64_t th = gp->align_corners ? 2 * (size - 1) : 2 * size - 1;
        if (tl == th) {
            r.a = 0; r.b = 0; r.mult = 0;
        } else {
            double mn = (double)tl / 2;
            int64_t span2 = th - tl;           /* 2·span */
            double span = (double)span2 / 2;
            double in = p - mn;
            int si = s, sg = 1;
            if (in < 0 || (in == 0 && si < 0)) {
                sg = -1; in = -in; si = -si;
            }
            int64_t in2 = (int64_t)(2 * in);  /* in is a half-integer below 2^41 */
            int64_t flips = in2 / span2;
            if (in2 % span2 == 0 && si < 0 && flips > 0)
                flips -= 1;                    /* just below the fold */
            if (far) {
                if (!(in2 % span2 == 0 && si < 0 && flips + 1 >= 2))
                    return (branch){0, 0, 0, INT64_MIN, true}; /* not applicable */
                /* flips rounded up to k = flips+1 while extra = in − (k−1)·span stays ≈ span */
                int64_t k = flips + 1;
                double extra0 = -(double)(k - 1) * span; /* extra = sg·(t − mn) + extra0 */
                if (k % 2 == 0) { r.a = sg; r.b = -sg * mn + extra0 + mn; r.mult = sg; }
                else { r.a = -sg; r.b = span + sg * mn - extra0 + mn; r.mult = -sg; }
                r.far = true;
            } else if (flips % 2 == 0) {
                r.a = sg; r.b = -sg * mn - (double)flips * span + mn; r.mult = sg;
            } else {
                r.a = -sg; r.b = sg * mn + (double)(flips + 1) * span + mn; r.mult = -sg;
            }
            double c = r.a * p + r.b;
            clip(&r, c, r.a * s, size);
        }
    } else if (far) {
        return (branch){0, 0, 0, INT64_MIN, true};
    }
    double c = r.a * p + r.b;
    int cs = r.a * s;
    if (gp->interpolation == REF_INTERP_BILINEAR) {
        double f = floor(c);
        r.i0 = (int64_t)((c == f && cs < 0) ? f - 1 : f);
    } else {
        double f = floor(c);
        if (c - f == 0.5)
            r.i0 = (int64_t)(cs > 0 ? f + 1 : cs < 0 ? f : (fmod(f, 2) == 0 ? f : f + 1));
        else
            r.i0 = (int64_t)nearbyint(c);
    }
    return r;
}

static int bitlen(int64_t v)
{
    int b = 0;
    while (v > 0) { b++; v >>= 1; }
    return b;
}

static void add_outcome(grid_axis *ax, branch br, mpfr_t t, int64_t size, const ref_grid_params *p)
{
    if (br.i0 == INT64_MIN)
        return;
    for (int i = 0; i < ax->n; i++) {
        grid_outcome *o = &ax->o[i];
        if (o->a == br.a && o->b == br.b && o->mult == br.mult && o->i0 == br.i0)
            return;
    }
    if (ax->n == GRID_MAXO) {
        ax->unresolvable = true;
        return;
    }
    grid_outcome *o = &ax->o[ax->n++];
    o->a = br.a; o->b = br.b; o->mult = br.mult; o->i0 = br.i0; o->far = br.far;
    mpfr_prec_t pr = mpfr_get_prec(t) + 64;
    mpfr_init2(o->w0, pr);
    mpfr_init2(o->w1, pr);
    if (p->interpolation == REF_INTERP_BILINEAR) {
        /* w1 = c − i0 = a·t + (b − i0); w0 = 1 − w1; both exact at pr */
        mpfr_mul_si(o->w1, t, br.a, MPFR_RNDN);
        mpfr_add_d(o->w1, o->w1, br.b - (double)br.i0, MPFR_RNDN);
        mpfr_si_sub(o->w0, 1, o->w1, MPFR_RNDN);
    } else {
        mpfr_set_ui(o->w1, 0, MPFR_RNDN);
        mpfr_set_ui(o->w0, 1, MPFR_RNDN);
    }
    mpfr_t r;
    mpfr_init2(r, pr);
    o->d0.hi = mpfr_get_d(o->w0, MPFR_RNDN);
    mpfr_sub_d(r, o->w0, o->d0.hi, MPFR_RNDN);
    o->d0.lo = mpfr_get_d(r, MPFR_RNDN);
    o->d1.hi = mpfr_get_d(o->w1, MPFR_RNDN);
    mpfr_sub_d(r, o->w1, o->d1.hi, MPFR_RNDN);
    o->d1.lo = mpfr_get_d(r, MPFR_RNDN);
    mpfr_clear(r);
    (void)size;
}

void grid_axis_eval(grid_axis *ax, double x, int64_t size, const ref_grid_params *p, double u_dev,
                    mpfr_t t)
{
    ax->n = 0;
    ax->unresolvable = false;
    /* exact t */
    int e = x != 0 ? ilogb(x) : 0;
    long width = (e > 0 ? e : 0) - (x != 0 && e - 52 < 0 ? e - 52 : 0) + 2;
    mpfr_set_prec(t, width + 2 * bitlen(size) + 64);
    mpfr_set_d(t, x, MPFR_RNDN);
    mpfr_add_ui(t, t, 1, MPFR_RNDN);
    if (p->align_corners) {
        mpfr_div_2ui(t, t, 1, MPFR_RNDN);
        mpfr_mul_si(t, t, (long)(size - 1), MPFR_RNDN);
    } else {
        mpfr_mul_si(t, t, (long)size, MPFR_RNDN);
        mpfr_sub_ui(t, t, 1, MPFR_RNDN);
        mpfr_div_2ui(t, t, 1, MPFR_RNDN);
    }
    double td = mpfr_get_d(t, MPFR_RNDN), sz = (double)size;
    double M = (fabs(x) + 1) * sz + 1;
    double delta = 2 * u_dev * M;
    if (p->padding == REF_PAD_REFLECTION)
        delta += u_dev * (fabs(td) + 1) + 2 * u_dev * (2 * sz + 1);
    delta *= 1 + 0x1p-40;
    ax->delta = delta;
    const double LIM = 0x1p40;
    double rlo = -INFINITY, rhi = INFINITY;
    if (p->padding == REF_PAD_ZEROS) { rlo = -1; rhi = sz; }
    if (p->padding == REF_PAD_BORDER) { rlo = 0; rhi = sz - 1; }
    if (p->padding == REF_PAD_REFLECTION && !(fabs(td) < LIM)) {
        ax->unresolvable = true;
        return;
    }
    /* primary: the lattice cell of t (p0 = floor(2t)/2, side + unless t is on the lattice) */
    double p0;
    int s0;
    if (td >= LIM) { p0 = LIM; s0 = 1; }
    else if (td <= -LIM) { p0 = -LIM; s0 = -1; }
    else {
        mpfr_t f;
        mpfr_init2(f, mpfr_get_prec(t) + 2);
        mpfr_mul_2ui(f, t, 1, MPFR_RNDN);
        s0 = mpfr_integer_p(f) ? 0 : 1;
        mpfr_floor(f, f);
        p0 = mpfr_get_d(f, MPFR_RNDN) / 2;
        mpfr_clear(f);
    }
    add_outcome(ax, decide(p0, s0, size, p, false), t, size, p);
    /* lattice points within δ of t, inside the relevant range */
    double a = fmax(td - delta, rlo), b = fmin(td + delta, rhi);
    if (a <= b) {
        double q0 = ceil(2 * a - 1) / 2, q1 = floor(2 * b + 1) / 2;
        if ((q1 - q0) * 2 > 16) {
            ax->unresolvable = true;
            return;
        }
        mpfr_t d;
        mpfr_init2(d, mpfr_get_prec(t) + 64);
        for (double q = q0; q <= q1; q += 0.5) {
            if (q < rlo || q > rhi)
                continue;
            mpfr_sub_d(d, t, q, MPFR_RNDN); /* exact */
            if (mpfr_cmpabs_ui(d, 0) != 0 || true) {
                mpfr_abs(d, d, MPFR_RNDN);
                if (mpfr_cmp_d(d, delta) > 0)
                    continue;
            }
            for (int s = -1; s <= 1; s++)
                add_outcome(ax, decide(q, s, size, p, false), t, size, p);
            add_outcome(ax, decide(q, -1, size, p, true), t, size, p);
        }
        mpfr_clear(d);
    }
    ax->sens = 0;
    for (int i = 0; i < ax->n; i++)
        ax->sens = fmax(ax->sens, abs(ax->o[i].a));
}

void grid_axis_clear(grid_axis *ax)
{
    for (int i = 0; i < ax->n; i++) {
        mpfr_clear(ax->o[i].w0);
        mpfr_clear(ax->o[i].w1);
    }
    ax->n = 0;
}
