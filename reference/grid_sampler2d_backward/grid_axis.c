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
 * Branches. Every branch boundary of PyTorch's algorithm lies on the lattice ½ℤ in t: clip limits 0
 * and hi (size−1, or on 950's SIMT kernel its rounding to the dtype: clip_bound), folds min +
 * k·span (min ∈ {0, −½}, span ∈ {size−1, size}), floor edges and nearest ties (c = ±t + b integer
 * or half-integer). So the branches a device with |t' − t| ≤ δ can take are exactly those at the
 * lattice points p within δ of t, approached from below, at, or from above (side σ ∈ {−1, 0, +1});
 * decide() evaluates the algorithm's comparisons at p + σ·ε symbolically. Far outside the relevant
 * range (zeros: [−1, size], border: [0, hi]) every branch gives the same (all out of bounds, or
 * clipped) result. One more legal branch: below a fold k·span (k ≥ 2) floor(in/span) may round up
 * to k while fmod(in, span) ≈ span, landing the coordinate on the far side ("far"; the FP
 * quotient's rounding, not a coordinate error).
 *
 * Two exact representations of t: MPFR (always possible), or t = T / 2^S with T a 128-bit
 * integer (x = X / 2^K with |x| < 2^60 and K ≤ 80, so |T| < 2^112): the fast path's, with no
 * allocation. Every question the stage asks of t (RN(t), floor(2t) and whether 2t is an
 * integer, |t − q| ≤ δ, the weights) is answered exactly by both, so the outcomes agree. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grid_internal.h"

typedef struct { int a, mult; double b; int64_t i0; bool far; } branch;

/* floor and ceil, the same doubles (signed zeros too) without libm's call where |v| < 2^52: the
 * conversion to int64 truncates exactly (the baseline x86-64 has no rounding instruction). */
static inline double floor_(double v)
{
    if (!(fabs(v) < 0x1p52))
        return floor(v);
    double t = (double)(int64_t)v;
    t = t > v ? t - 1 : t;
    return t == 0 ? copysign(0, v) : t;
}
static inline double ceil_(double v) { return -floor_(-v); }

/* Clip of value v at side s to [0, hi] (PyTorch: in <= 0 → 0; in >= hi → hi; gradient 0). */
static void clip(branch *r, double v, int s, double hi)
{
    if (v < 0 || (v == 0 && s <= 0)) {
        r->a = 0; r->b = 0; r->mult = 0;
    } else if (v > hi || (v == hi && s >= 0)) {
        r->a = 0; r->b = hi; r->mult = 0;
    }
}

/* The branch at lattice point p approached from side s; hi the clip bound (clip_bound). */
static branch decide(double p, int s, int64_t size, double hi, const ref_grid_params *gp,
                     bool far)
{
    branch r = {1, 1, 0, 0, false};
    if (gp->padding == REF_PAD_BORDER) {
        clip(&r, p, s, hi);
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
            clip(&r, c, r.a * s, hi);
        }
    } else if (far) {
        return (branch){0, 0, 0, INT64_MIN, true};
    }
    double c = r.a * p + r.b;
    int cs = r.a * s;
    if (gp->interpolation == REF_INTERP_BILINEAR) {
        double f = floor_(c);
        r.i0 = (int64_t)((c == f && cs < 0) ? f - 1 : f);
    } else {
        double f = floor_(c);
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

__extension__ typedef unsigned __int128 u128;

/* The exact t: mp, or (mp NULL) T / 2^S with 1 ≤ S ≤ 81. */
typedef struct { mpfr_ptr mp; i128 T; int S; } tval;

#define W_LIMIT ((i128)1 << 106) /* |w|·2^S below this: w = RN(w) + RN(w − RN(w)) exactly */

/* 2^e, |e| ≤ 1000, from its bits */
static double pow2(int e)
{
    uint64_t u = (uint64_t)(1023 + e) << 52;
    double r;
    memcpy(&r, &u, sizeof r);
    return r;
}

/* RN(T / 2^S): the conversion of a 128-bit integer rounds correctly; the scaling is exact. */
static double i128_over_pow2(i128 T, int S)
{
    return (T == (int64_t)T ? (double)(int64_t)T : (double)T) * pow2(-S); /* both round to nearest */
}

bool grid_coord_int(double x, int64_t size, bool align, double max_abs, int max_k, i128 *T,
                    int *S)
{
    if (size >= ((int64_t)1 << 31) || !(fabs(x) < max_abs))
        return false;
    int64_t M = 0;
    int E = 0;
    if (x != 0) {
        uint64_t u = ref_bits_of(x), m = u & ((UINT64_C(1) << 52) - 1);
        int be = (int)(u >> 52 & 0x7ff);
        if (be)
            m |= UINT64_C(1) << 52;
        int tz = __builtin_ctzll(m);
        E = (be ? be : 1) - 1075 + tz;
        M = (u >> 63) ? -(int64_t)(m >> tz) : (int64_t)(m >> tz);
    }
    int K = E < 0 ? -E : 0;
    if (K > max_k)
        return false;
    i128 X = (i128)M * ((i128)1 << (E > 0 ? E : 0)), one = (i128)1 << K; /* x = X / 2^K */
    *S = K + 1;
    *T = align ? (X + one) * (size - 1) : (X + one) * size - one;
    return true;
}

/* |x| < 2^60 with no bit below 2^-80: |X + 2^K| < 2^81, |T| < 2^112 (S ≤ 81, as tval has it) */
static bool int_form(tval *tv, double x, int64_t size, bool align)
{
    tv->mp = NULL;
    return grid_coord_int(x, size, align, 0x1p60, 80, &tv->T, &tv->S);
}

static void mp_form(tval *tv, double x, int64_t size, bool align, mpfr_ptr t)
{
    int e = x != 0 ? ilogb(x) : 0;
    long width = (e > 0 ? e : 0) - (x != 0 && e - 52 < 0 ? e - 52 : 0) + 2;
    mpfr_set_prec(t, width + 2 * bitlen(size) + 64);
    mpfr_set_d(t, x, MPFR_RNDN);
    mpfr_add_ui(t, t, 1, MPFR_RNDN);
    if (align) {
        mpfr_div_2ui(t, t, 1, MPFR_RNDN);
        mpfr_mul_si(t, t, (long)(size - 1), MPFR_RNDN);
    } else {
        mpfr_mul_si(t, t, (long)size, MPFR_RNDN);
        mpfr_sub_ui(t, t, 1, MPFR_RNDN);
        mpfr_div_2ui(t, t, 1, MPFR_RNDN);
    }
    tv->mp = t;
}

/* floor(2t) and whether 2t is an integer. */
static double floor2(const tval *tv, bool *integer)
{
    if (tv->mp) {
        mpfr_t f;
        mpfr_init2(f, mpfr_get_prec(tv->mp) + 2);
        mpfr_mul_2ui(f, tv->mp, 1, MPFR_RNDN);
        *integer = mpfr_integer_p(f);
        mpfr_floor(f, f);
        double r = mpfr_get_d(f, MPFR_RNDN);
        mpfr_clear(f);
        return r;
    }
    i128 T = tv->T;
    u128 low = (u128)T & ((((u128)1) << (tv->S - 1)) - 1);
    *integer = low == 0;
    i128 f = (T - (i128)low) >> (tv->S - 1); /* exact: a multiple of 2^(S−1), shifted arithmetically */
    /* rounded as mpfr_get_d: int64's conversion rounds to nearest too, without the 128-bit call */
    return f == (int64_t)f ? (double)(int64_t)f : (double)f;
}

/* |t − q| > delta (q a half-integer). */
static bool farther(const tval *tv, double q, double delta, mpfr_ptr d)
{
    if (tv->mp) {
        mpfr_sub_d(d, tv->mp, q, MPFR_RNDN); /* exact */
        mpfr_abs(d, d, MPFR_RNDN);
        return mpfr_cmp_d(d, delta) > 0;
    }
    i128 D = tv->T - (i128)(int64_t)(2 * q) * ((i128)1 << (tv->S - 1));
    if (D < 0)
        D = -D;
    double lim = floor(delta * pow2(tv->S)); /* exact scaling; D integral: D > δ2^S ⟺ D > ⌊δ2^S⌋ */
    return !(lim >= 0x1p120) && D > (i128)lim;
}

/* |t − q| > δ known from td = RN(t) alone (then farther() says so too; δ < 1 keeps its
 * δ·2^S below its 2^120 limit): |t − td| ≤ |td|·2^-53, and |td − q| is rounded by 2^-53 at most. */
static bool surely_farther(double td, double q, double delta)
{
    return delta < 1 && fabs(td - q) * (1 - 0x1p-52) - fabs(td) * 0x1p-52 > delta * (1 + 0x1p-52);
}

/* w as a double-double from W = w·2^S (|W| < W_LIMIT: the pair is exact). */
static ref_dd dd_of(i128 W, int S)
{
    if (W < ((i128)1 << 53) && W > -((i128)1 << 53)) /* one double, exactly (lo +0 as below) */
        return (ref_dd){(double)(int64_t)W * pow2(-S), 0};
    double hi = (double)W;
    i128 rest = W - (i128)hi;
    return (ref_dd){hi * pow2(-S), (double)rest * pow2(-S)};
}

/* w as a double-double (r scratch, of w's precision); *inexact is set when hi + lo ≠ w. */
static ref_dd dd_split(mpfr_srcptr w, mpfr_ptr r, bool *inexact)
{
    ref_dd d;
    d.hi = mpfr_get_d(w, MPFR_RNDN);
    mpfr_sub_d(r, w, d.hi, MPFR_RNDN); /* exact: r has w's precision and more */
    d.lo = mpfr_get_d(r, MPFR_RNDN);
    mpfr_sub_d(r, r, d.lo, MPFR_RNDN);
    if (!mpfr_zero_p(r))
        *inexact = true;
    return d;
}

/* 0 when the integer form cannot hold the weights exactly (caller redoes the axis in MPFR). */
static int add_outcome(grid_axis *ax, branch br, const tval *tv, const ref_grid_params *p)
{
    if (br.i0 == INT64_MIN)
        return 1;
    for (int i = 0; i < ax->n; i++) {
        grid_outcome *o = &ax->o[i];
        if (o->a == br.a && o->b == br.b && o->mult == br.mult && o->i0 == br.i0)
            return 1;
    }
    if (ax->n == GRID_MAXO) {
        ax->unresolvable = true;
        return 1;
    }
    if (ax->n == 1 && ax->o == &ax->first) { /* a second outcome: room for all of them */
        grid_outcome *all = malloc(GRID_MAXO * sizeof *all);
        if (!all) { /* no room: the point is left uncheckable */
            ax->unresolvable = true;
            return 1;
        }
        all[0] = ax->first;
        ax->o = all;
    }
    bool bil = p->interpolation == REF_INTERP_BILINEAR;
    if (!tv->mp) {
        /* w1·2^S = a·T + (2b − 2i0)·2^(S−1), in wrapping 128-bit arithmetic (the result fits) */
        int64_t B2 = (int64_t)(2 * br.b) - 2 * br.i0;
        i128 W1 = bil ? (i128)((u128)(i128)br.a * (u128)tv->T + ((u128)(i128)B2 << (tv->S - 1))) : 0;
        i128 W0 = ((i128)1 << tv->S) - W1;
        if (!(W1 < W_LIMIT && W1 > -W_LIMIT && W0 < W_LIMIT && W0 > -W_LIMIT))
            return 0;
        grid_outcome *o = &ax->o[ax->n++];
        o->a = br.a; o->b = br.b; o->mult = br.mult; o->i0 = br.i0; o->far = br.far;
        o->mp = false;
        o->dd_inexact = false; /* |W| < 2^106 and S ≤ 81: hi and lo are exact, and normal */
        o->d0 = dd_of(W0, tv->S);
        o->d1 = dd_of(W1, tv->S);
        return 1;
    }
    mpfr_ptr w = malloc(2 * sizeof *w);
    if (!w) { /* no room for the weights: the point is left uncheckable */
        ax->unresolvable = true;
        return 1;
    }
    grid_outcome *o = &ax->o[ax->n++];
    o->a = br.a; o->b = br.b; o->mult = br.mult; o->i0 = br.i0; o->far = br.far;
    o->mp = true;
    o->dd_inexact = false;
    o->w = w;
    mpfr_prec_t pr = mpfr_get_prec(tv->mp) + 64;
    mpfr_init2(&w[0], pr);
    mpfr_init2(&w[1], pr);
    if (bil) {
        /* w1 = c − i0 = a·t + (b − i0); w0 = 1 − w1; both exact at pr */
        mpfr_mul_si(&w[1], tv->mp, br.a, MPFR_RNDN);
        mpfr_add_d(&w[1], &w[1], br.b - (double)br.i0, MPFR_RNDN);
        mpfr_si_sub(&w[0], 1, &w[1], MPFR_RNDN);
    } else {
        mpfr_set_ui(&w[1], 0, MPFR_RNDN);
        mpfr_set_ui(&w[0], 1, MPFR_RNDN);
    }
    mpfr_t r;
    mpfr_init2(r, pr);
    o->d0 = dd_split(&w[0], r, &o->dd_inexact);
    o->d1 = dd_split(&w[1], r, &o->dd_inexact);
    mpfr_clear(r);
    return 1;
}

/* Whether the device's coordinate arithmetic (p-bit, u_dev = 2^-p) is exact for x on an axis of
 * `size`: x = X/2^K, so every intermediate of the unnormalize (x + 1, its product by size or
 * size − 1, the −1, the halving, or the x·size/2 + (size−1)/2 variants) and of the reflection
 * (t − min, extra + min, span − extra + min, the fold quotient's integer part) is a multiple of
 * 2^-(K+1) of magnitude below M = (|x| + 1)·size + 1 (+ |t| + 2·size + 2 with reflection). When
 * M·2^(K+1) < 2^p all of them are p-bit numbers: no rounding anywhere, δ = 0, and the device
 * takes exactly the exact coordinate's branch (a tie follows the contract's rounding). The fold
 * quotient in/span cannot round across an integer then either: its distance to one is at least
 * 2^-(K+1)/span, above half its ULP. */
static bool coord_exact(double x, double td, int64_t size, const ref_grid_params *p,
                        double u_dev)
{
    int K = 0;
    if (x != 0) { /* x = m·2^e with m odd: K = −e when e < 0 */
        uint64_t u = ref_bits_of(x);
        int be = (int)(u >> 52 & 0x7ff);
        uint64_t m = (u & ((UINT64_C(1) << 52) - 1)) | (be ? UINT64_C(1) << 52 : 0);
        int e = (be ? be : 1) - 1075 + __builtin_ctzll(m);
        K = e < 0 ? -e : 0;
    }
    double M = (fabs(x) + 1) * (double)size + 1;
    if (p->padding == REF_PAD_REFLECTION)
        M += fabs(td) + 2 * (double)size + 2;
    M *= 1 + 0x1p-50; /* the sums above rounded, upwards */
    /* M·2^(K+1): exact scaling by a power of two from its bits (K + 1 ≤ 1000) */
    return K < 1000 && M * ref_of_bits((uint64_t)(1023 + K + 1) << 52) * u_dev < 1;
}

/* The stage on one representation of t; 0 when the integer form must give way to MPFR. */
/* The error δ of the device's coordinate against the exact t (td its double). In the working
 * format: 2·u·M for the unnormalisation, more for the reflection's operations. Rounded to a
 * narrower format (u_c, η_c: 950's SIMT kernel from 9.1) the unnormalised coordinate errs by
 * u_c·|c| + η_c more, c within the working error of t, and the reflection's two results in it
 * (t − min, then extra + min or span − extra + min, below 2·size + 1) by u_c of their
 * magnitude; a difference i0 + 1 − c or c − i0 of the bilinear weights in that format by u_c
 * (exact unless the final c lies in [−1, 1): held for every padding but zeros with |t| ≥ 2). */
static double coord_delta(double td, int64_t size, const ref_grid_params *p, double x,
                          const grid_coord_fmt *f)
{
    double sz = (double)size, u = f->u_dev, uc = f->u_coord;
    double M = (fabs(x) + 1) * sz + 1;
    double delta = 2 * u * M;
    if (p->padding == REF_PAD_REFLECTION)
        delta += u * (fabs(td) + 1) + 2 * u * (2 * sz + 1);
    if (uc > 0) {
        double near0 = p->padding != REF_PAD_ZEROS || fabs(td) < 2 ? 1 : 0;
        delta += uc * (fabs(td) + 2 * u * M + near0) + f->eta_coord;
        if (p->padding == REF_PAD_REFLECTION)
            delta += uc * (fabs(td) + 1) + uc * (2 * sz + 1);
    }
    return delta * (1 + 0x1p-40);
}

/* Whether v is a number of f's narrower format (its bits from u_coord, its subnormal quantum
 * 2·eta_coord). */
static bool fits_coord(double v, const grid_coord_fmt *f)
{
    int e;
    (void)frexp(v, &e);
    return v == 0 || fmod(v, ref_fmax(ldexp(2 * f->u_coord, e - 1), 2 * f->eta_coord)) == 0;
}

/* Whether every value 950's SIMT kernel rounds to the narrower format is in it already, for t
 * (td) computed exactly in the working format: t, the clip's size − 1, under reflection t − min
 * and the reflected value, and bilinear's differences c − floor(c) and floor(c) + 1 − c of the
 * coordinate c it ends with (all exact in double here). */
static bool coord_fits(double td, int64_t size, const ref_grid_params *p, const grid_coord_fmt *f)
{
    double c = td, sz = (double)size;
    bool ok = fits_coord(td, f) && fits_coord(sz - 1, f);
    if (p->padding == REF_PAD_REFLECTION) {
        double lo = p->align_corners ? 0 : -0.5, span = p->align_corners ? sz - 1 : sz;
        double in = fabs(td - lo), extra = span > 0 ? fmod(in, span) : 0;
        bool odd = span > 0 && fmod(floor(in / span), 2) != 0;
        c = span > 0 ? (odd ? span - extra : extra) + lo : 0;
        ok = ok && fits_coord(td - lo, f) && fits_coord(c, f);
    }
    if (p->padding != REF_PAD_ZEROS)
        c = c <= 0 ? 0 : c >= sz - 1 ? sz - 1 : c;
    double fl = floor(c);
    return ok && fits_coord(c - fl, f) && fits_coord(fl + 1 - c, f);
}

/* The clip's upper bound hi: size − 1, or on 950's SIMT kernel from 9.1 T(size − 1), size − 1
 * rounded to the dtype under border and reflection alike (ops-cv
 * grid_sampler3_d_grad_simt_base.h:75,165,175@4d57ffe7): FLOAT16's 2049 is 2048, ties to even.
 * An integer, so on the lattice ½ℤ. Past FLOAT16's range (size > 65520) it is +inf and clips
 * nothing: a coordinate there is infinite on the device, then −100, out of the image as t ≥ size
 * is here (border's relevant range then ends at size). */
static double clip_bound(int64_t size, const grid_coord_fmt *f)
{
    double last = (double)(size - 1);
    if (f->u_coord == 0)
        return last;
    double hi = ref_round_bits(last, -ilogb(f->u_coord));
    return hi > f->max_coord ? INFINITY : hi;
}

static int axis_eval(grid_axis *ax, const tval *tv, double x, int64_t size,
                     const ref_grid_params *p, const grid_coord_fmt *f)
{
    grid_axis_clear(ax); /* an abandoned attempt's outcomes */
    ax->unresolvable = false;
    double td = tv->mp ? mpfr_get_d(tv->mp, MPFR_RNDN) : i128_over_pow2(tv->T, tv->S);
    double sz = (double)size, hi = clip_bound(size, f);
    double delta = coord_delta(td, size, p, x, f);
    if (coord_exact(x, td, size, p, f->u_dev) && (f->u_coord == 0 || coord_fits(td, size, p, f)))
        delta = 0;
    ax->delta = delta;
    const double LIM = 0x1p40;
    double rlo = -INFINITY, rhi = INFINITY;
    if (p->padding == REF_PAD_ZEROS) { rlo = -1; rhi = sz; }
    if (p->padding == REF_PAD_BORDER) { rlo = 0; rhi = isinf(hi) ? sz : hi; }
    if (p->padding == REF_PAD_REFLECTION && !(fabs(td) < LIM)) {
        ax->unresolvable = true;
        return 1;
    }
    /* primary: the lattice cell of t (p0 = floor(2t)/2, side + unless t is on the lattice) */
    double p0;
    int s0;
    if (td >= LIM) { p0 = LIM; s0 = 1; }
    else if (td <= -LIM) { p0 = -LIM; s0 = -1; }
    else {
        bool integer;
        p0 = floor2(tv, &integer) / 2;
        s0 = integer ? 0 : 1;
    }
    if (!add_outcome(ax, decide(p0, s0, size, hi, p, false), tv, p))
        return 0;
    /* lattice points within δ of t, inside the relevant range (none when exact) */
    double a = ref_fmax(td - delta, rlo), b = ref_fmin(td + delta, rhi);
    int ok = 1;
    if (a <= b && delta > 0) {
        double q0 = ceil_(2 * a - 1) / 2, q1 = floor_(2 * b + 1) / 2;
        if ((q1 - q0) * 2 > 16) {
            ax->unresolvable = true;
            return 1;
        }
        mpfr_t d;
        if (tv->mp)
            mpfr_init2(d, mpfr_get_prec(tv->mp) + 64);
        for (double q = q0; q <= q1 && ok; q += 0.5) {
            if (q < rlo || q > rhi || surely_farther(td, q, delta) || farther(tv, q, delta, d))
                continue;
            for (int s = -1; s <= 1; s++)
                ok = ok && add_outcome(ax, decide(q, s, size, hi, p, false), tv, p);
            ok = ok && add_outcome(ax, decide(q, -1, size, hi, p, true), tv, p);
        }
        if (tv->mp)
            mpfr_clear(d);
    }
    ax->sens = 0;
    for (int i = 0; i < ax->n; i++)
        ax->sens = ref_fmax(ax->sens, abs(ax->o[i].a));
    return ok;
}

void grid_scratch_clear(grid_scratch *s)
{
    if (s->live)
        mpfr_clear(s->t);
    s->live = false;
}

void grid_axis_eval(grid_axis *ax, double x, int64_t size, const ref_grid_params *p,
                    const grid_coord_fmt *f, grid_scratch *s, bool use_int)
{
    tval tv;
    ax->n = 0;
    ax->o = &ax->first;
    if (use_int && int_form(&tv, x, size, p->align_corners) && axis_eval(ax, &tv, x, size, p, f))
        return;
    if (!s->live)
        mpfr_init2(s->t, 64);
    s->live = true;
    mp_form(&tv, x, size, p->align_corners, s->t);
    (void)axis_eval(ax, &tv, x, size, p, f);
}

void grid_axis_clear(grid_axis *ax)
{
    for (int i = 0; i < ax->n; i++)
        if (ax->o[i].mp) {
            mpfr_clear(&ax->o[i].w[0]);
            mpfr_clear(&ax->o[i].w[1]);
            free(ax->o[i].w);
        }
    if (ax->o != &ax->first)
        free(ax->o);
    ax->o = &ax->first;
    ax->n = 0;
}

void grid_weight_mul(mpfr_ptr t, const grid_outcome *o, int k)
{
    mpfr_prec_t pt = mpfr_get_prec(t);
    if (o->mp) {
        mpfr_srcptr w = &o->w[k ? 1 : 0];
        mpfr_prec_round(t, pt + mpfr_get_prec(w), MPFR_RNDN); /* exact: more bits */
        mpfr_mul(t, t, w, MPFR_RNDN);
        return;
    }
    /* t·(hi + lo): w has ≤ 106 significant bits, so pt + 110 holds every partial result */
    const ref_dd *w = k ? &o->d1 : &o->d0;
    mpfr_t l;
    mpfr_init2(l, pt + 110);
    mpfr_mul_d(l, t, w->lo, MPFR_RNDN);
    mpfr_prec_round(t, pt + 110, MPFR_RNDN);
    mpfr_mul_d(t, t, w->hi, MPFR_RNDN);
    mpfr_add(t, t, l, MPFR_RNDN);
    mpfr_clear(l);
}
