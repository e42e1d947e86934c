/* The grid sampler's bicubic mode (interpolationMode 2; vendor releases from 9.1, PyTorch's
 * grid_sampler_2d_backward): Keys' cubic convolution, A = −3/4, on the 4×4 taps around
 * (floor(cx), floor(cy)).
 *
 * Semantics. c = unnormalize(x) exactly (align_corners: (x+1)/2·(size−1), else
 * ((x+1)·size − 1)/2), with NO clip or reflection of c itself; i0 = floor(c), t = c − i0. Tap k
 * (k = 0..3) is index i0 − 1 + k with weight K(t+1), K(t), K(1−t), K(2−t),
 *   K(s) = 5/4·s³ − 9/4·s² + 1 (|s| ≤ 1),  K(s) = −3/4·s³ + 15/4·s² − 6·s + 3 (1 ≤ |s| ≤ 2),
 * and its index is bounded per padding mode: zeros drops a tap outside the input, border clamps
 * it, reflection reflects the integer index (period 2·size, or 2·(size−1) with align_corners)
 * and clamps. input_grad[tap_y][tap_x] += g·wx·wy; grid_grad x = mult_x·Σ g·val·wx'·wy (y
 * likewise), wx' = dwx/dt, mult = (size−1)/2 or size/2. A non-finite coordinate contributes
 * nothing (docs/contract.md). Only in-bounds taps are terms (as for bilinear).
 *
 * Exactness. c is a dyadic rational of prec(c) bits (the bilinear stage's bound); the weights
 * and their derivatives are cubics of t, exact in MPFR at 3·prec + 80 bits, and every term is an
 * exact product; each element is mpfr_sum's correctly rounded sum (hi, lo of reference.h).
 * Outside force_mpfr the same c, floor(c), t and coefficients come from integers where they fit
 * (coord_int, int_weights: |x| < 2^20 with no bit below 2^-70, t of at most 38 bits after the
 * point, so 4·K·2^3q lies in an __int128), MPFR elsewhere.
 *
 * Fast path (Ziv). The same value from double-doubles with a rigorous bound, decided by
 * ref_decide, else MPFR's sum of the exact terms (force_mpfr: always): a point's products wx·wy
 * and dw·w·mult as double-doubles within 2^-102 (point_eval); input_grad Σ g·wx·wy term by term
 * (bc_dx_element, grid_bicubic_dx.c); grid_grad Σ_k D_k·S_k from each tap's exact channel sum S_k = Σ_c g·val, both
 * components of a point in one pass (bc_dgrid_point). The bound data (Σ|terms|, coordinate and
 * underflow terms, classes) are the same IEEE operations in the same order on either path, so
 * every output is bitwise pure MPFR's; under_mag's subnormal products are formed in units of
 * 2^-1074 (unit_mul), as the multiplier rounds them but without its microcode assist.
 *
 * Branches. K is C¹ with K(±1) = K(±2) = K'(±2) = 0, so with the tap index a function of the
 * integer tap position alone, the value Σ_i K(c − i)·val(map(i)) and its derivative are
 * continuous in c across every cell edge, for every padding mode: a device whose coordinate
 * c' = c ± δ takes another floor sees the same function, and its difference is bounded by
 * Lipschitz constants (|K'| ≤ 3/2, |K''| ≤ 9/2) times δ, added to coord_err. The tap the other
 * floor adds (i0 − 2 when t ≤ δ, i0 + 3 when 1 − t ≤ δ, a "ghost" of exact weight 0) is
 * counted in that element's bound. Not continuous are the non-finite classes: a non-finite
 * factor times a weight the device may compute as 0 (|w| within its error), a product its format
 * flushes to 0, or a ghost tap, leaves the element REF_FLAG_UNCHECKABLE. A point whose δ ≥ 1/2
 * (several floors) has taps we do not list: the elements it may reach, and its grid_grad, are
 * judged within intervals (REF_FLAG_INTERVAL: Σ_k |w_k| ≤ 1.375, Σ_k |w'_k| ≤ 6 on any branch),
 * unless every tap it can reach is out of bounds (zeros: nothing) or clamped to one edge
 * (border): then its taps all land on one element, where Σ_k K = 1 and Σ_k K' = 0 for any t, so
 * only the coefficients' own rounding errors count ("pinned").
 *
 * Device error of a coefficient (FP32, u = 2^-24, or double): t' = c' − floor(c') errs by
 * δ + u; Horner's evaluation of the cubic on s ≤ 2 errs by ≤ γ(6)·Σ|a_i|s^i ≤ 36·6.01u and
 * its argument (t+1, 1−t, 2−t, rounded) by 2u·3/2 more: e_w = 3/2·(δ + u) + 256u. The
 * derivatives (quadratics, Σ|a_i|s^i ≤ 30, |K''| ≤ 9/2): e_dw = 9/2·(δ + u) + 192u. Each term
 * then errs by |g|·(e_x|wy| + |wx|e_y + e_x·e_y) (dgrid: |g·val·mult| likewise), summed into
 * coord_err; nops counts the products' roundings (input_grad: wy·wx and g·w; grid_grad: three
 * products and the final scale).
 *
 * Underflow (ref_bound): a product below the working format's normal range errs by η absolutely,
 * and the factors after it magnify that (under_mag, as for bilinear): input_grad's wy·wx then ×g
 * (Σ max(1, |g|)), grid_grad's val·w' then ×g. For input_grad that term lies far inside the
 * coefficient term today: a device's weights are 0 and 1 exactly (e_w = 0) or carry e_w ≥ 256u,
 * so each term's |g|·e_x·e_y ≥ |g|·2^-32 (FP32) passes its |g|·η·nops by 2^115; it is kept so
 * the bound does not rest on that margin. */
#include <stdlib.h>

#include "grid_bicubic.h"


static int bitlen(int64_t v)
{
    int b = 0;
    while (v > 0) { b++; v >>= 1; }
    return b;
}

/* PyTorch's reflect_coordinates then clip on an integer coordinate, as integers. */
static int64_t reflect_index(int64_t i, int64_t size, bool align)
{
    if (align && size == 1)
        return 0;
    int64_t per = align ? 2 * (size - 1) : 2 * size, m = i % per;
    if (m < 0)
        m += per;
    if (align)
        return m <= size - 1 ? m : per - m;
    return m < size ? m : per - 1 - m;
}

/* Tap index i bounded per padding mode, −1 when zeros drops it. */
static int64_t bound_index(int64_t i, int64_t size, const ref_grid_params *p)
{
    if (p->padding == REF_PAD_ZEROS)
        return i >= 0 && i < size ? i : -1;
    if (p->padding == REF_PAD_BORDER)
        return i < 0 ? 0 : i >= size ? size - 1 : i;
    return reflect_index(i, size, p->align_corners);
}

/* Whether the device's coordinate arithmetic is exact for x (grid_axis.c's argument: every
 * intermediate of the unnormalize is a multiple of 2^-(K+1) below M). */
static bool coord_exact(double x, int64_t size, double u)
{
    int K = 0;
    if (x != 0) {
        int e;
        double m = frexp(x, &e); /* x = m·2^e, m·2^53 an integer */
        int64_t mi = (int64_t)ldexp(m, 53);
        int tz = mi ? __builtin_ctzll((uint64_t)(mi < 0 ? -mi : mi)) : 0;
        int lsb = e - 53 + tz;
        K = lsb < 0 ? -lsb : 0;
    }
    double M = ((fabs(x) + 1) * (double)size + 1) * (1 + 0x1p-50);
    return K < 1000 && ldexp(M, K + 1) * u < 1;
}

/* K and its derivative for the four taps at t (exact at w's precision). */
static void coefficients(bc_axis *a, mpfr_srcptr t, mpfr_ptr s, mpfr_ptr r)
{
    /* s = t + 1: K2(s), dK2/ds; s = t: K1, K1'; s = 1 − t: K1, −K1'; s = 2 − t: K2, −K2' */
    for (int k = 0; k < 4; k++) {
        if (k == 0) mpfr_add_ui(s, t, 1, MPFR_RNDN);
        else if (k == 1) mpfr_set(s, t, MPFR_RNDN);
        else mpfr_ui_sub(s, (unsigned long)k - 1, t, MPFR_RNDN);
        bool outer = k == 0 || k == 3;
        /* K1 = (5/4·s − 9/4)·s·s + 1; K2 = ((−3/4·s + 15/4)·s − 6)·s + 3 */
        mpfr_mul_d(r, s, outer ? -0.75 : 1.25, MPFR_RNDN);
        mpfr_add_d(r, r, outer ? 3.75 : -2.25, MPFR_RNDN);
        mpfr_mul(r, r, s, MPFR_RNDN);
        if (outer)
            mpfr_sub_ui(r, r, 6, MPFR_RNDN);
        mpfr_mul(r, r, s, MPFR_RNDN);
        mpfr_add_ui(a->w[k], r, outer ? 3 : 1, MPFR_RNDN);
        /* K1' = (15/4·s − 9/2)·s; K2' = (−9/4·s + 15/2)·s − 6; ds/dt = −1 for k ≥ 2 */
        mpfr_mul_d(r, s, outer ? -2.25 : 3.75, MPFR_RNDN);
        mpfr_add_d(r, r, outer ? 7.5 : -4.5, MPFR_RNDN);
        mpfr_mul(r, r, s, MPFR_RNDN);
        if (outer)
            mpfr_sub_ui(r, r, 6, MPFR_RNDN);
        if (k >= 2)
            mpfr_neg(r, r, MPFR_RNDN);
        mpfr_set(a->dw[k], r, MPFR_RNDN);
        mpfr_prec_round(a->w[k], mpfr_min_prec(a->w[k]) > 1 ? mpfr_min_prec(a->w[k]) : 2,
                        MPFR_RNDN); /* exact: drops trailing zeros only */
        mpfr_prec_round(a->dw[k], mpfr_min_prec(a->dw[k]) > 1 ? mpfr_min_prec(a->dw[k]) : 2,
                        MPFR_RNDN);
    }
}

/* An axis's MPFR coefficients exist from its first mpfr_weights on (int_coefficients' axes
 * need none: 16 allocations a point were a tenth of the points' time) */
static void axis_init(bc_axis *a)
{
    a->mp = false;
}

static void axis_mpfr(bc_axis *a)
{
    for (int k = 0; k < 4 && !a->mp; k++) {
        mpfr_init2(a->w[k], 128);
        mpfr_init2(a->dw[k], 128);
    }
    a->mp = true;
}

static void axis_clear(bc_axis *a)
{
    for (int k = 0; k < 4 && a->mp; k++) {
        mpfr_clear(a->w[k]);
        mpfr_clear(a->dw[k]);
    }
}

/* c·2^S as an integer C (|C| < 2^122), the unnormalize done exactly in integers: false where
 * |x| ≥ 2^20, x has bits below 2^-70 or the size is 2^31 or more (MPFR's coord_mpfr then). */
static bool coord_int(double x, int64_t size, bool align, i128 *C, int *S)
{
    return grid_coord_int(x, size, align, 0x1p20, 70, C, S); /* |x + 1| < 2^21 */
}

/* c exactly in MPFR (pc bits) */
static void coord_mpfr(mpfr_ptr c, double x, int64_t size, bool align)
{
    mpfr_set_d(c, x, MPFR_RNDN);
    mpfr_add_ui(c, c, 1, MPFR_RNDN);
    if (align) {
        mpfr_div_2ui(c, c, 1, MPFR_RNDN);
        mpfr_mul_si(c, c, (long)(size - 1), MPFR_RNDN);
    } else {
        mpfr_mul_si(c, c, (long)size, MPFR_RNDN);
        mpfr_sub_ui(c, c, 1, MPFR_RNDN);
        mpfr_div_2ui(c, c, 1, MPFR_RNDN);
    }
}

/* What the fast path reads of w = v·2^-e (|v| < 2^127, e ≤ 116): d = (RN(w), RN(w − RN(w))) as
 * dd_split forms it and *up = |RU(w)| (the scalings by 2^-e exact, no underflow); an exact 0
 * gets zero_sign, the sign coefficients() gives it. */
static void scaled_fast(i128 v, int e, int zero_sign, ref_dd *d, double *up)
{
    if (v == 0) {
        *d = (ref_dd){zero_sign < 0 ? -0.0 : 0.0, 0};
        *up = 0;
        return;
    }
    double hi = (double)v, ru = hi, sc = ref_of_bits((uint64_t)(1023 - e) << 52); /* 2^-e */
    if ((i128)ru < v) /* RN, integers below 2^127: exact back in i128; nextafter(ru, +∞) */
        ru = ref_of_bits(ref_bits_of(ru) + (ru > 0 ? 1 : -1)); /* ru ≠ 0, finite */
    *d = (ref_dd){hi * sc, (double)(v - (i128)hi) * sc};
    *up = fabs(ru * sc);
}

/* w = v·2^-e exactly in MPFR at its own bits, as coefficients() leaves them (the fallbacks'
 * products are shorter; no reallocation: w has 128 bits, the most), an exact 0 of zero_sign */
static void scaled_mpfr(mpfr_ptr w, i128 v, int e, int zero_sign)
{
    if (v == 0) {
        mpfr_set_zero(w, zero_sign);
        return;
    }
    unsigned __int128 m = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    uint64_t mlo = (uint64_t)m, mhi = (uint64_t)(m >> 64);
    int tz = mlo ? __builtin_ctzll(mlo) : 64 + __builtin_ctzll(mhi);
    int len = mhi ? 128 - __builtin_clzll(mhi) : 64 - __builtin_clzll(mlo);
    mpfr_set_prec(w, len - tz > 1 ? len - tz : 2);
    if (m >> 64 == 0) {
        mpfr_set_ui_2exp(w, (unsigned long)m, -e, MPFR_RNDN);
    } else {
        mpfr_set_ui(w, (unsigned long)mhi, MPFR_RNDN);
        mpfr_mul_2ui(w, w, 64, MPFR_RNDN);
        mpfr_add_ui(w, w, (unsigned long)mlo, MPFR_RNDN); /* exact: m has len − tz bits */
        mpfr_div_2ui(w, w, (unsigned long)e, MPFR_RNDN);
    }
    if (v < 0)
        mpfr_neg(w, w, MPFR_RNDN);
}

/* Coefficient k of axis a (deriv: its derivative) exactly in MPFR: a->w[k] (a->dw[k]) where
 * MPFR formed them, else formed into tmp (128 bits) from int_coefficients' integers, which only
 * the fallbacks read (forming them for every point took two fifths of the points' time). */
mpfr_srcptr bc_coef(const bc_axis *a, int k, bool deriv, mpfr_ptr tmp)
{
    if (!a->ints)
        return deriv ? a->dw[k] : a->w[k];
    if (deriv) /* ds/dt = −1 for k ≥ 2; a zero derivative (t = 0: k = 1, 3) is −0 there */
        scaled_mpfr(tmp, a->dwi[k], 2 * a->q + 2, k == 1 || k == 3 ? -1 : 1);
    else
        scaled_mpfr(tmp, a->wi[k], 3 * a->q + 2, 1);
    return tmp;
}

/* The taps' weights and derivatives (coefficients()'s values) at t = T·2^-q from integers:
 * 4·K(s)·2^3q and ±4·K'(s)·2^2q, s·2^q ≤ 2^(q+1), lie below 2^122 for q ≤ 38. */
static void int_coefficients(bc_axis *a, i128 T, int q)
{
    i128 Q = (i128)1 << q;
    for (int k = 0; k < 4; k++) {
        i128 s = k == 0 ? T + Q : k == 1 ? T : k == 2 ? Q - T : 2 * Q - T, v, d;
        if (k == 0 || k == 3) { /* K2 = −3/4·s³ + 15/4·s² − 6s + 3, K2' = −9/4·s² + 15/2·s − 6 */
            v = ((-3 * s + 15 * Q) * s - 24 * Q * Q) * s + 12 * Q * Q * Q;
            d = (-9 * s + 30 * Q) * s - 24 * Q * Q;
        } else { /* K1 = 5/4·s³ − 9/4·s² + 1, K1' = 15/4·s² − 9/2·s */
            v = (5 * s - 9 * Q) * s * s + 4 * Q * Q * Q;
            d = (15 * s - 18 * Q) * s;
        }
        a->wi[k] = v;
        a->dwi[k] = k >= 2 ? -d : d; /* ds/dt = −1 for k ≥ 2 */
        scaled_fast(v, 3 * q + 2, 1, &a->wdd[k], &a->wd[k]);
        scaled_fast(a->dwi[k], 2 * q + 2, k == 1 || k == 3 ? -1 : 1, &a->dwdd[k], &a->dwd[k]);
    }
    a->q = q;
    a->ints = true; /* w, dw in MPFR only where bc_coef forms them */
}

/* floor(c), t = c − floor(c) and the coefficients from c = C/2^S (|c| < 2^52): false, nothing
 * set, where t has more than 38 bits after the point. */
static bool int_weights(bc_axis *a, i128 C, int S, int64_t *fl, double *td)
{
    i128 f = C >> S, T = C - f * ((i128)1 << S); /* floor: an arithmetic shift */
    int q = S;
    if (T == 0) {
        q = 0;
    } else {
        uint64_t lo = (uint64_t)T;
        int tz = lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(T >> 64));
        T >>= tz;
        q -= tz;
    }
    if (q > 38)
        return false;
    *fl = (int64_t)f;
    *td = ldexp((double)(int64_t)T, -q);
    int_coefficients(a, T, q);
    a->dd_ok = true;
    return true;
}

/* floor(c), t and the coefficients in MPFR (c of pc bits) */
static void mpfr_weights(bc_axis *a, mpfr_ptr c, mpfr_prec_t pc, const ref_grid_params *p,
                         int64_t size, int64_t *fl, double *td, bool *tzero)
{
    mpfr_t t, s, r;
    mpfr_init2(t, pc);
    mpfr_floor(t, c);
    double cd = mpfr_get_d(c, MPFR_RNDN);
    if (fabs(cd) < 0x1p52) {
        *fl = (int64_t)mpfr_get_d(t, MPFR_RNDN);
    } else { /* reflection far out: floor(c) modulo the reflection's period (exact) */
        mpfr_t per;
        mpfr_init2(per, 64);
        mpfr_set_si(per, p->align_corners ? 2 * (size - 1) : 2 * size, MPFR_RNDN);
        mpfr_init2(s, pc);
        if (mpfr_zero_p(per))
            mpfr_set_zero(s, 1);
        else
            mpfr_fmod(s, t, per, MPFR_RNDN);
        *fl = (int64_t)mpfr_get_d(s, MPFR_RNDN);
        mpfr_clears(per, s, (mpfr_ptr)0);
    }
    mpfr_sub(t, c, t, MPFR_RNDN); /* t = c − floor(c): exact, fewer bits than c */
    mpfr_prec_t pw = 3 * (pc + 2) + 80;
    mpfr_inits2(pw, s, r, (mpfr_ptr)0);
    axis_mpfr(a);
    for (int k = 0; k < 4; k++) {
        mpfr_set_prec(a->w[k], pw);
        mpfr_set_prec(a->dw[k], pw);
    }
    coefficients(a, t, s, r);
    *td = mpfr_get_d(t, MPFR_RNDN);
    *tzero = mpfr_zero_p(t);
    for (int k = 0; k < 4; k++) {
        a->wd[k] = fabs(mpfr_get_d(a->w[k], MPFR_RNDU));
        a->dwd[k] = fabs(mpfr_get_d(a->dw[k], MPFR_RNDU));
    }
    a->dd_ok = a->ints = false;
    mpfr_clears(t, s, r, (mpfr_ptr)0);
}

/* One axis of a finite grid value x; fast: c and the coefficients from integers where they fit
 * (int_weights), the same values as MPFR's. */
/* uc, etac: the unnormalised coordinate then rounded to a narrower format (950's SIMT kernel on
 * FLOAT16 and BF16 from 9.1, ops-cv grid_sampler3_d_grad_simt_base.h:64@4d57ffe7): u_c of its
 * magnitude more in δ; 0: none. */
static void axis_eval(bc_axis *a, double x, int64_t size, const ref_grid_params *p, double u,
                      double uc, double etac, bool fast)
{
    a->none = a->pinned = a->unres = a->ints = false;
    a->ghost = 0;
    a->mult = p->align_corners ? (double)(size - 1) / 2 : (double)size / 2;
    i128 C = 0;
    int S = 0;
    bool ints = fast && coord_int(x, size, p->align_corners, &C, &S);
    int e = x != 0 ? ilogb(x) : 0;
    long width = (e > 0 ? e : 0) - (x != 0 && e - 52 < 0 ? e - 52 : 0) + 2;
    mpfr_prec_t pc = width + 2 * bitlen(size) + 64;
    mpfr_t c;
    double cd; /* RN(c) */
    if (ints) {
        cd = ldexp((double)C, -S);
    } else {
        mpfr_init2(c, pc);
        coord_mpfr(c, x, size, p->align_corners);
        cd = mpfr_get_d(c, MPFR_RNDN);
    }
    double sz = (double)size;
    double M = (fabs(x) + 1) * sz + 1;
    double delta = (2 * u * M + (uc > 0 ? uc * (fabs(cd) + 2 * u * M) + etac : 0)) * (1 + 0x1p-40);
    if (coord_exact(x, size, ref_fmax(u, uc)))
        delta = 0;
    double slack = fabs(cd) * 0x1p-50;
    /* every branch's taps left of 0 or right of size − 1 */
    bool left = cd + slack + delta + 2 < 0, right = cd - slack - delta - 1 > sz;
    if ((left || right) && p->padding != REF_PAD_REFLECTION) {
        a->none = p->padding == REF_PAD_ZEROS;
        a->pinned = !a->none;
        if (a->none) {
            if (!ints)
                mpfr_clear(c);
            return;
        }
    }
    int64_t i0 = 0;
    double td = 0;
    bool tzero;
    if (ints && fabs(cd) < 0x1p52 && int_weights(a, C, S, &i0, &td)) {
        tzero = td == 0;
    } else {
        if (ints) {
            mpfr_init2(c, pc);
            coord_mpfr(c, x, size, p->align_corners);
        }
        mpfr_weights(a, c, pc, p, size, &i0, &td, &tzero);
        mpfr_clear(c);
    }
    if (a->pinned)
        i0 = left ? -8 : size + 8; /* every tap clamps to the same edge */
    bool exact = delta == 0 && tzero; /* weights 0, 1, 0, 0: exact in any format */
    a->ew = exact ? 0 : BC_LW * (delta + u) + BC_CW * u;
    a->edw = exact ? 0 : BC_LD * (delta + u) + BC_CD * u;
    for (int k = 0; k < 4; k++) {
        a->idx[k] = bound_index(i0 - 1 + k, size, p);
        if (a->pinned) {
            a->wd[k] = BC_PIN_W;
            a->dwd[k] = BC_PIN_D;
        }
    }
    a->wd[4] = a->dwd[4] = 0;
    a->idx[4] = -1;
    if (a->pinned) {
        a->ew = BC_CW * u; /* the δ part cancels: Σ_k K = 1, Σ_k K' = 0 on one element */
        a->edw = BC_CD * u;
    } else if (delta >= 0.5) {
        a->unres = true;
        double lo = floor(cd - delta) - 2, hi = floor(cd + delta) + 3;
        a->reach_lo = p->padding == REF_PAD_REFLECTION || lo < 0 ? 0 : (int64_t)lo;
        a->reach_hi = p->padding == REF_PAD_REFLECTION || hi > sz - 1 ? size - 1 : (int64_t)hi;
    } else if (delta > 0 && (td <= delta * (1 + 0x1p-40) || 1 - td <= delta * (1 + 0x1p-40))) {
        a->ghost = td <= 0.5 ? -1 : 1;
        a->idx[4] = bound_index(a->ghost < 0 ? i0 - 2 : i0 + 3, size, p);
    }
}

static void point_init(bc_point *pt)
{
    axis_init(&pt->ax[0]);
    axis_init(&pt->ax[1]);
}

static void point_clear(bc_point *pt)
{
    axis_clear(&pt->ax[0]);
    axis_clear(&pt->ax[1]);
}

/* x as a double-double (hi = RN(x), lo = RN(x − hi): within 2^-106·|x|); false outside the
 * fast range (0 or 2^-900 .. 2^900), where the fast path gives way to MPFR. */
static bool dd_split(mpfr_srcptr x, ref_dd *d, mpfr_ptr r)
{
    d->hi = mpfr_get_d(x, MPFR_RNDN);
    double m = fabs(d->hi);
    if (m != 0 && !(m >= 0x1p-900 && m <= 0x1p900))
        return false;
    mpfr_set_prec(r, mpfr_get_prec(x));
    mpfr_sub_d(r, x, d->hi, MPFR_RNDN); /* exact */
    d->lo = mpfr_get_d(r, MPFR_RNDN);
    return true;
}

/* x·y, and x·y·m, as double-doubles from factors within 2^-106 relative: within 8·2^-106 and
 * 11·2^-106 (dd_mul's 6u², dd_mul_d's 3u²) < 2^-102; false when one is outside the fast range
 * (a product of non-zero factors that is 0 has underflowed). */
static inline __attribute__((always_inline)) bool dd_prod(ref_dd x, ref_dd y, double m,
                                                          ref_dd *z)
{
    *z = ref_dd_mul(x, y);
    if (m != 1)
        *z = ref_dd_mul_d(*z, m);
    double a = fabs(z->hi);
    if (a == 0)
        return x.hi == 0 || y.hi == 0 || m == 0;
    return a >= 0x1p-900 && a <= 0x1p900;
}

/* A point's products wx·wy and dw·w·mult (pt->dd: all in the fast range so far) from its axes'
 * double-double coefficients. Compiled for each target (GRID_CLONES): fma an instruction, not
 * libm's call (the same exact results). */
GRID_CLONES
static void point_products(bc_point *pt, ref_dd w[2][4], ref_dd dw[2][4])
{
    double mx = pt->ax[0].mult, my = pt->ax[1].mult;
    for (int ky = 0; ky < 4 && pt->dd; ky++)
        for (int kx = 0; kx < 4; kx++) {
            int k = ky * 4 + kx;
            pt->dd = dd_prod(w[0][kx], w[1][ky], 1, &pt->Wd[k]) &&
                     dd_prod(dw[0][kx], w[1][ky], mx, &pt->Dd[0][k]) &&
                     dd_prod(w[0][kx], dw[1][ky], my, &pt->Dd[1][k]) && pt->dd;
        }
}

static void point_eval(const bc_ctx *X, int64_t n, int64_t pix, bc_point *pt)
{
    const ref_grid_params *p = X->p;
    const double *g = X->grid + (n * p->h_out * p->w_out + pix) * 2;
    pt->out = !isfinite(g[0]) || !isfinite(g[1]);
    if (pt->out)
        return;
    axis_eval(&pt->ax[0], g[0], p->w_in, p, X->u, X->uc, X->etac, !X->force);
    axis_eval(&pt->ax[1], g[1], p->h_in, p, X->u, X->uc, X->etac, !X->force);
    const bc_axis *ax = &pt->ax[0], *ay = &pt->ax[1];
    pt->out = ax->none || ay->none;
    if (pt->out)
        return;
    bool split = !ax->dd_ok || !ay->dd_ok;
    mpfr_t r;
    if (split)
        mpfr_init2(r, 64);
    ref_dd w[2][4], dw[2][4];
    pt->dd = true;
    for (int a = 0; a < 2; a++)
        for (int k = 0; k < 4; k++) {
            if (pt->ax[a].dd_ok) { /* int_coefficients formed them as dd_split does */
                w[a][k] = pt->ax[a].wdd[k];
                dw[a][k] = pt->ax[a].dwdd[k];
                continue;
            }
            pt->dd = dd_split(pt->ax[a].w[k], &w[a][k], r) &&
                     dd_split(pt->ax[a].dw[k], &dw[a][k], r) && pt->dd;
        }
    if (split)
        mpfr_clear(r);
    point_products(pt, w, dw);
}

/* A weight factor the device may compute as 0 or of the other sign (ghost: exact 0). */
static bool weight_unsure(double mag, double err, bool ghost)
{
    return ghost || (err > 0 && mag <= err);
}

/* Whether the class of a term with a non-finite factor may differ on the device: a NaN factor
 * makes it NaN on every branch that has the term; an infinite one times the finite factors
 * (a, 1 when none, and the weights x, y) may meet a weight rounded to 0, or a finite product
 * that underflows to 0 in the working format (tiny: a bound of its smallest normal; an exact 0
 * stays 0), and give NaN instead. A tap whose weight is within its error of 0 may also be
 * missing on the device (the tap the other floor does not have). The product's magnitude is
 * taken in long double: in double it may underflow to 0 itself (3·2^-1074 · 9/1024), and a
 * weight may be negative. */
bool bc_class_unsure(bool nan, double a, double x, double ex, bool gx, double y, double ey,
                     bool gy, double tiny)
{
    if (gx || gy || weight_unsure(x, ex, false) || weight_unsure(y, ey, false))
        return true; /* a weight near 0: the tap the other floor has not, or a rounded 0 */
    long double fin = fabsl((long double)a * x * y);
    return !nan && fin != 0 && fin < tiny;
}

mpfr_ptr bc_term(bc_terms *T, mpfr_prec_t prec)
{
    if (T->n + 1 >= T->cap) {
        size_t cap = T->cap ? 2 * T->cap : 64;
        mpfr_t *v = malloc(cap * sizeof *v);
        mpfr_ptr *ptr = malloc(cap * sizeof *ptr);
        if (!v || !ptr) {
            free(v);
            free(ptr);
            return NULL;
        }
        if (T->cap) /* an mpfr_t moves with its limbs pointer */
            memcpy(v, T->v, T->cap * sizeof *v);
        for (size_t i = T->cap; i < cap; i++)
            mpfr_init2(v[i], 64);
        for (size_t i = 0; i < T->n; i++) /* the terms so far, at their new places */
            ptr[i] = v[i];
        free(T->v);
        free(T->ptr);
        T->v = v;
        T->ptr = ptr;
        T->cap = cap;
    }
    mpfr_ptr t = T->v[T->n];
    T->ptr[T->n++] = t;
    mpfr_set_prec(t, prec);
    return t;
}

/* An exact term a·b·x·y·… (the doubles f[0..nf−1]) of an MPFR sum into T: 0, −1 out of memory. */
int bc_exact_term(bc_terms *T, mpfr_srcptr a, mpfr_srcptr b, const double *f, int nf)
{
    mpfr_ptr t = bc_term(T, mpfr_get_prec(a) + mpfr_get_prec(b) + 64 * nf);
    if (!t)
        return -1;
    mpfr_mul(t, a, b, MPFR_RNDN);
    for (int i = 0; i < nf; i++)
        mpfr_mul_d(t, t, f[i], MPFR_RNDN);
    return 0;
}

mpfr_ptr bc_tmp(bc_terms *T, int i)
{
    if (!T->tmp_set)
        mpfr_inits2(128, T->tmp[0], T->tmp[1], (mpfr_ptr)0);
    T->tmp_set = true;
    return T->tmp[i];
}

void bc_terms_free(bc_terms *T)
{
    if (T->tmp_set)
        mpfr_clears(T->tmp[0], T->tmp[1], (mpfr_ptr)0);
    for (size_t i = 0; i < T->cap; i++)
        mpfr_clear(T->v[i]);
    free(T->v);
    free(T->ptr);
}

/* The element's value from its exact terms (T->n of them, room for one more). */
void bc_finish(bc_terms *T, ref_value *v, uint8_t *fl, bool unsure, double ovf, double s_pre,
               bool decided)
{
    if (!decided)
        ref_finish_mpfr_sum(T->ptr, (unsigned long)T->n, &v->hi, &v->lo, NULL);
    if (!decided && !isfinite(v->hi) && T->n > 0) {
        mpfr_t h;
        mpfr_init2(h, 64);
        mpfr_sum(h, T->ptr, (unsigned long)T->n, MPFR_RNDN);
        if (mpfr_nan_p(h) || mpfr_inf_p(h))
            *fl |= REF_FLAG_NONFINITE;
        mpfr_clear(h);
    }
    if (unsure) /* the device's class may differ either way (a weight it may round to 0, a
                 * tap only some floor has) */
        *fl |= REF_FLAG_UNCHECKABLE;
    /* a finite exact value past the double range (hi infinite) whose coordinate term is as
     * large: the device's other floor may give any finite value */
    if (!(*fl & REF_FLAG_NONFINITE) && !isfinite(v->hi) && !(v->coord_err < ovf * 0x1p-30))
        *fl |= REF_FLAG_UNCHECKABLE;
    /* the device's terms, each within its coefficient error, may sum past the format's range
     * (a partial sum, or the result itself when |exact| + bound passes it) */
    if ((ref_sum_abs_real(v) + v->coord_err) * (1 + 0x1p-20) > ovf || s_pre * (1 + 0x1p-20) > ovf)
        *fl |= REF_FLAG_RANGE;
}

/* hi and lo from the fast sum when it decides them. */
bool bc_fast_done(const bc_fast *f, ref_value *v)
{
    return f->ok && f->nonzero > 0 && ref_decide(f->a.s, f->a.err, &v->hi, &v->lo);
}

/* ---- the stream ---- */

static int64_t lanes_stride(const ref_grid_params *p)
{
    return (p->c + BC_LANES - 1) / BC_LANES * BC_LANES;
}

/* A batch's planes (c of hw elements from src) channel-innermost: dst[i·cs + c], cs the
 * channels rounded up to BC_LANES, the rest 0 (gradOutput for bc_dx_lanes, the input for
 * bc_dgrid_point: a tap's channels then in a row, not one cache miss each). */
static void channels_inner(const double *src, int64_t nc, int64_t hw, double *dst, int64_t cs,
                           int nth)
{
    enum { PB = 64 }; /* a block of points: each plane read a line at a time */
#pragma omp parallel for num_threads(nth) schedule(static)
    for (int64_t b = 0; b < hw; b += PB) {
        int64_t end = b + PB < hw ? b + PB : hw;
        for (int64_t c = 0; c < cs; c++) {
            const double *go = src + c * hw;
            for (int64_t pix = b; pix < end; pix++)
                dst[pix * cs + c] = c < nc ? go[pix] : 0;
        }
    }
}

/* A block of total bytes on a cache line, *raw what to free. From 1 MiB on it is whole huge
 * pages (grid_huge_block, as grid_work_block's from 4 MiB on): malloc maps a block this large
 * afresh each call, and on this VM each fresh 4 KiB page traps at its first touch (the bench
 * shape's points ~2200 traps a call, its reach ~800 and each channel copy ~256 a batch). */
char *bc_block(size_t total, char **raw)
{
    if (total < GRID_HUGE_PAGE / 2)
        return *raw = aligned_alloc(64, (total + 63) & ~(size_t)63);
    return grid_huge_block(total, raw);
}

/* A batch's input channel-innermost (batch_points), a row of BC_LANES a cache line */
static double *inner_alloc(const ref_grid_params *p, char **raw)
{
    int64_t n = p->h_in * p->w_in * lanes_stride(p);
    return (double *)bc_block((size_t)(n > 0 ? n : 8) * sizeof(double), raw);
}

/* Asks for the lines bc_dgrid_point will read of point pix: its struct's (its first reads of
 * it waited), its taps and gradients (X->it, X->gt: channel-innermost), a point ahead: the
 * taps are scattered over the batch's input. */
static void dgrid_prefetch(const bc_ctx *X, const bc_point *pt, int64_t pix)
{
    bc_point_prefetch(pt, pt->Dd, sizeof pt->Dd);
    if (!X->it || pt->out)
        return;
    const bc_axis *ax = &pt->ax[0], *ay = &pt->ax[1];
    size_t bytes = (size_t)X->its * sizeof(double);
    for (int ky = 0; ky < 4; ky++)
        for (int kx = 0; kx < 4 && ay->idx[ky] >= 0; kx++) {
            if (ax->idx[kx] < 0)
                continue;
            const char *r = (const char *)(X->it + (ay->idx[ky] * X->p->w_in + ax->idx[kx]) *
                                                       X->its);
            for (size_t l = 0; l < bytes; l += 64)
                __builtin_prefetch(r + l);
        }
    for (size_t l = 0; X->gt && l < bytes; l += 64)
        __builtin_prefetch((const char *)(X->gt + pix * X->its) + l);
}

/* Whether point pt's grid_grad may need interval offsets (an unresolved axis) */
static bool dgrid_unres(const bc_point *pt)
{
    return !pt->out && (pt->ax[0].unres || pt->ax[1].unres);
}

/* grid_grad of point i into b (iv: b's interval offsets or NULL): the components the fast path
 * decided, or −1 out of memory */
static int dgrid_one(const bc_ctx *X, const bc_point *pts, int64_t n, int64_t i, bc_terms *T,
                     ref_chunkbuf *b, double *iv)
{
    return bc_dgrid_point(X, &pts[i], n, i, T, &b->o.v[2 * i], &b->o.flags[2 * i],
                          iv ? iv + 4 * i : NULL);
}

/* grid_grad of the points with an unresolved axis, once every point is evaluated (any: there
 * is one; the chunk has interval offsets only then): 0, −1 out of memory. */
static int dgrid_unres_points(const bc_ctx *X, const bc_point *pts, int64_t n, int nth,
                              ref_chunkbuf *b, int any, int64_t *hits)
{
    double *iv = any ? ref_chunkbuf_ival(b) : NULL;
    if (!any || !iv)
        return any ? -1 : 0;
    int64_t hw_out = X->p->h_out * X->p->w_out, h = 0;
    int fail = 0;
#pragma omp parallel num_threads(nth) reduction(| : fail) reduction(+ : h)
    {
        bc_terms T = {0};
#pragma omp for schedule(dynamic, 16)
        for (int64_t i = 0; i < hw_out; i++) {
            int r = dgrid_unres(&pts[i]) ? dgrid_one(X, pts, n, i, &T, b, iv) : 0;
            fail |= r < 0;
            h += r > 0 ? r : 0;
        }
        bc_terms_free(&T);
    }
    *hits += h;
    return fail ? -1 : 0;
}

/* Batch n's points; with b (else NULL) their grid_grad into b too, each block's right after
 * its points' evaluation, while their structs are in cache (read back from memory, a point's
 * lines waited even when asked for ahead), from the input copied channel-innermost into it
 * (hw_in·lanes_stride doubles; NULL: read in place) and gradOutput so in gt (the batch's, or
 * NULL: in place); those with an unresolved axis after all (dgrid_unres_points): 0, −1 out of
 * memory. */
static int batch_points(const bc_ctx *X0, bc_point *pts, int64_t n, int nth, ref_chunkbuf *b,
                        double *it, const double *gt, int64_t *hits)
{
    const ref_grid_params *p = X0->p;
    int64_t hw_out = p->h_out * p->w_out, hw_in = p->h_in * p->w_in, h = 0;
    bc_ctx Y = *X0, *X = &Y;
    if (b && it && !X0->force) {
        Y.its = lanes_stride(p);
        channels_inner(X0->in + n * p->c * hw_in, p->c, hw_in, it, Y.its, nth);
        Y.it = it;
        Y.gt = gt;
    }
    if (b)
        ref_chunkbuf_start(b, 2 * hw_out);
    enum { PB = 16 };
    /* blocks claimed in each thread's order (ref_share_next): a thread writes the same points
     * batch after batch, and their 2.2 kB each stay in its core's cache */
    int64_t nblk = (hw_out + PB - 1) / PB, *claim = calloc((size_t)nblk + 1, sizeof *claim);
    if (!claim)
        return -1;
    int fail = 0, any = 0;
#pragma omp parallel num_threads(nth) reduction(| : fail, any) reduction(+ : h)
    {
        bc_terms T = {0};
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        for (int64_t j = 0, k; (k = ref_share_next(claim, nblk, &j, t, nt, 1)) >= 0;) {
            int64_t b0 = k * PB, end = b0 + PB < hw_out ? b0 + PB : hw_out;
            for (int64_t i = b0; i < end; i++)
                point_eval(X, n, i, &pts[i]);
            for (int64_t i = b0; b && i < end; i++) {
                if (i + 1 < end)
                    dgrid_prefetch(X, &pts[i + 1], i + 1);
                any |= dgrid_unres(&pts[i]);
                int r = dgrid_unres(&pts[i]) ? 0 : dgrid_one(X, pts, n, i, &T, b, NULL);
                fail |= r < 0;
                h += r > 0 ? r : 0;
            }
        }
        bc_terms_free(&T);
    }
    free(claim);
    *hits += h;
    return fail ? -1 : b ? dgrid_unres_points(X, pts, n, nth, b, any, hits) : 0;
}

/* Element e of input_grad's chunk of channels c0 .. c0 + nc − 1 (o, iv its interval offsets or
 * NULL), its channels in a row: its entries (~1 kB) are read once from memory, not once a
 * channel (the batch's entries are megabytes); BC_LANES of them at once where at least half as
 * many remain (force_mpfr: one at a time, the lanes' bound data tested against it). The fast
 * answers counted into *h; 1 when out of memory. */
static int dx_channels(const bc_ctx *X, const bc_point *pts, const bc_reach *R, const double *gt,
                       int64_t cs, int64_t n, int64_t c0, int64_t nc, int64_t e, bc_terms *T,
                       ref_output *o, double *iv, int64_t *h)
{
    int64_t hw_in = X->p->h_in * X->p->w_in;
    int fail = 0;
    for (int64_t ci = 0; ci < nc;) {
        int64_t i = ci * hw_in + e, nl = nc - ci < BC_LANES ? nc - ci : BC_LANES;
        bool lanes = 2 * nl >= BC_LANES && !X->force;
        double *ivi = iv ? iv + 2 * i : NULL;
        int r = lanes ? bc_dx_lanes(X, pts, R, gt, cs, n, c0 + ci, (int)nl, e, T, &o->v[i],
                                    &o->flags[i], ivi, hw_in)
                      : bc_dx_element(X, pts, R, n, c0 + ci, e, T, &o->v[i], &o->flags[i], ivi);
        ci += lanes ? nl : 1;
        fail |= r < 0;
        *h += r > 0 ? r : 0;
    }
    return fail;
}

/* input_grad, batch by batch; with kept (one buffer a batch) grid_grad too, from the same
 * points, for the caller to hand on after input_grad's last chunk (slot order). */
static int stream_dx(const bc_ctx *X, bc_point *pts, int nth, const ref_sink *s,
                     ref_chunkbuf *kept, int64_t *hits)
{
    const ref_grid_params *p = X->p;
    int64_t hw_in = p->h_in * p->w_in;
    int64_t step = s->elems > 0 ? s->elems : REF_CHUNK_ELEMS;
    int64_t group = step / hw_in < 1 ? 1 : step / hw_in;
    if (group > p->c)
        group = p->c > 0 ? p->c : 1;
    int64_t cs = lanes_stride(p), hw_out = p->h_out * p->w_out;
    ref_chunkbuf b;
    /* a row of BC_LANES a cache line */
    char *gt_raw, *it_raw = NULL;
    double *gt = (double *)bc_block((size_t)(hw_out * cs > 0 ? hw_out * cs : 8) * sizeof *gt,
                                    &gt_raw);
    double *it = kept ? inner_alloc(p, &it_raw) : NULL;
    enum { EB = 4 }; /* elements a claim (ref_share_next), keyed by the chunk's count */
    int64_t neb = (hw_in + EB - 1) / EB, key = 0, *claim = calloc((size_t)neb + 1, sizeof *claim);
    if (!gt || (kept && !it) || !claim || ref_chunkbuf_init(&b, group * hw_in) != 0) {
        free(gt_raw);
        free(it_raw);
        free(claim);
        return -1;
    }
    int rc = 0;
    bc_reach R = {0}; /* its entries' block kept from batch to batch */
    for (int64_t n = 0; rc == 0 && n < p->n; n++) {
        channels_inner(X->go + n * p->c * hw_out, p->c, hw_out, gt, cs, nth);
        rc = batch_points(X, pts, n, nth, kept ? &kept[n] : NULL, it, gt, hits);
        rc = rc ? rc : bc_reach_build(p, pts, nth, &R);
        for (int64_t c0 = 0; rc == 0 && c0 < p->c; c0 += group) {
            int64_t nc = p->c - c0 < group ? p->c - c0 : group, ne = nc * hw_in;
            ref_chunkbuf_start(&b, ne);
            double *iv = R.nbox ? ref_chunkbuf_ival(&b) : NULL; /* zeroed */
            int fail = R.nbox && !iv;
            int64_t h = 0, chunk_key = ++key;
#pragma omp parallel num_threads(nth) reduction(| : fail) reduction(+ : h)
            {
                bc_terms T = {0};
                int t = omp_get_thread_num(), nt = omp_get_num_threads();
                for (int64_t j = 0, k; (k = ref_share_next(claim, neb, &j, t, nt, chunk_key)) >= 0;)
                    for (int64_t e = k * EB; e < hw_in && e < (k + 1) * EB; e++)
                        fail |= dx_channels(X, pts, &R, gt, cs, n, c0, nc, e, &T, &b.o, iv, &h);
                bc_terms_free(&T);
            }
            *hits += h;
            rc = fail ? -1 : ref_emit(s, 3, (n * p->c + c0) * hw_in, &b);
        }
        bc_reach_reset(&R);
    }
    bc_reach_free(&R);
    ref_chunkbuf_free(&b);
    free(claim);
    free(gt_raw);
    free(it_raw);
    return rc;
}

static int stream_dgrid(const bc_ctx *X, bc_point *pts, int nth, const ref_sink *s,
                        int64_t *hits)
{
    const ref_grid_params *p = X->p;
    int64_t hw_out = p->h_out * p->w_out;
    ref_chunkbuf b;
    char *it_raw;
    double *it = inner_alloc(p, &it_raw);
    if (!it || ref_chunkbuf_init(&b, 2 * hw_out > 0 ? 2 * hw_out : 1) != 0) {
        free(it_raw);
        return -1;
    }
    int rc = 0;
    for (int64_t n = 0; rc == 0 && n < p->n; n++) {
        rc = batch_points(X, pts, n, nth, &b, it, NULL, hits);
        rc = rc ? rc : ref_emit(s, 4, n * 2 * hw_out, &b);
    }
    ref_chunkbuf_free(&b);
    free(it_raw);
    return rc;
}

/* Both outputs in one pass over the batches (each point evaluated once) when grid_grad has at
 * most REF_GRID_STASH_MAX elements, as for bilinear: kept until input_grad's last chunk. */
static int stream_both(const bc_ctx *X, bc_point *pts, int nth, const ref_sink *s,
                       int64_t *hits)
{
    const ref_grid_params *p = X->p;
    int64_t hw_out = p->h_out * p->w_out;
    ref_chunkbuf *kept = calloc((size_t)(p->n > 0 ? p->n : 1), sizeof *kept);
    int rc = kept ? 0 : -1;
    for (int64_t n = 0; rc == 0 && n < p->n; n++)
        rc = ref_chunkbuf_init(&kept[n], 2 * hw_out > 0 ? 2 * hw_out : 1);
    rc = rc ? rc : stream_dx(X, pts, nth, s, kept, hits);
    for (int64_t n = 0; rc == 0 && n < p->n; n++)
        rc = ref_emit(s, 4, n * 2 * hw_out, &kept[n]);
    for (int64_t n = 0; kept && n < p->n; n++)
        ref_chunkbuf_free(&kept[n]);
    free(kept);
    return rc;
}

int grid_bicubic_stream(const ref_grid_params *p, const double *grad_output, const double *input,
                        const double *grid, ref_options *opt, bool dx, bool dgrid,
                        const ref_sink *s)
{
    bool dbl = opt->path.name && strstr(opt->path.name, "double");
    bc_ctx X = {p, grad_output, input, grid, dbl ? 0x1p-53 : 0x1p-24,
                ref_path_overflow_at(&opt->path), dbl ? 0x1p-1020 : 0x1p-124, opt->force_mpfr,
                opt->path.coord_u, opt->path.coord_eta, NULL, NULL, 0};
    int64_t hw_out = p->h_out * p->w_out;
    int nth = opt->threads > 0 ? opt->threads : omp_get_max_threads();
    char *raw; /* 2.2 kB a point: megabytes (bc_block) */
    bc_point *pts = (bc_point *)bc_block((size_t)(hw_out > 0 ? hw_out : 1) * sizeof *pts, &raw);
    if (!pts)
        return -1;
    for (int64_t i = 0; i < hw_out; i++)
        point_init(&pts[i]);
    int64_t hits = 0;
    int rc;
    if (dx && dgrid && 2 * hw_out * p->n <= REF_GRID_STASH_MAX) {
        rc = stream_both(&X, pts, nth, s, &hits);
    } else {
        rc = dx ? stream_dx(&X, pts, nth, s, NULL, &hits) : 0;
        rc = rc == 0 && dgrid ? stream_dgrid(&X, pts, nth, s, &hits) : rc;
    }
    for (int64_t i = 0; i < hw_out; i++)
        point_clear(&pts[i]);
    free(raw);
    int64_t all = (dx ? p->n * p->c * p->h_in * p->w_in : 0) + (dgrid ? 2 * p->n * hw_out : 0);
    opt->fast_hits += hits;
    opt->mpfr_fallbacks += all - hits;
    return rc;
}

int grid_bicubic_element_mpfr(const ref_grid_params *p, const double *grad_output,
                              const double *input, const double *grid, int which, int64_t index,
                              mpfr_ptr out)
{
    int64_t hw_out = p->h_out * p->w_out, hw_in = p->h_in * p->w_in;
    ref_path vec = ref_grid_path(REF_DT_FLOAT);
    bc_ctx X = {p, grad_output, input, grid, 0x1p-24, ref_path_overflow_at(&vec), 0x1p-124, true,
                0, 0, NULL, NULL, 0};
    bc_terms T = {0};
    bc_point pt;
    point_init(&pt);
    int rc = 0;
    mpfr_set_zero(out, 1);
    if (which == 1 && index >= 0 && index < p->n * hw_out * 2) {
        int64_t n = index / 2 / hw_out, pix = index / 2 % hw_out;
        point_eval(&X, n, pix, &pt);
        rc = pt.out ? 0 : bc_dgrid_terms(&X, &pt, n, pix, (int)(index % 2), &T);
        if (rc == 0 && T.n)
            mpfr_sum(out, T.ptr, (unsigned long)T.n, MPFR_RNDN);
    } else if (which == 0 && index >= 0 && index < p->n * p->c * hw_in) {
        int64_t e = index % hw_in, c = index / hw_in % p->c, n = index / hw_in / p->c;
        int64_t xi = e % p->w_in, yi = e / p->w_in;
        bc_terms all = {0};
        for (int64_t pix = 0; rc == 0 && pix < hw_out; pix++) {
            point_eval(&X, n, pix, &pt);
            if (pt.out)
                continue;
            double g = grad_output[(n * p->c + c) * hw_out + pix];
            for (int ky = 0; ky < 4 && rc == 0; ky++)
                for (int kx = 0; kx < 4 && rc == 0; kx++) {
                    if (pt.ax[1].idx[ky] != yi || pt.ax[0].idx[kx] != xi)
                        continue;
                    rc = bc_exact_term(&all, pt.ax[0].w[kx], pt.ax[1].w[ky], &g, 1);
                }
        }
        if (rc == 0 && all.n)
            mpfr_sum(out, all.ptr, (unsigned long)all.n, MPFR_RNDN);
        bc_terms_free(&all);
    } else {
        rc = -1;
    }
    point_clear(&pt);
    bc_terms_free(&T);
    return rc;
}

/* Per point its struct and the limbs of its 16 coefficients of ~3·100 bits (an FP32 grid
 * value's coordinate has ~100 bits; wider ones, rare, take more), 25 reach entries and its
 * gradOutput's channels (channels_inner); per input element its reach offset and mark and its
 * channels (batch_points); per thread an element's terms (every point's 25 taps at worst,
 * products of two coefficients and up to three doubles, 120 bytes each). */
uint64_t ref_grid_bicubic_work_bytes(const ref_grid_params *p, int threads)
{
    uint64_t hw_out = (uint64_t)p->h_out * (uint64_t)p->w_out;
    uint64_t hw_in = (uint64_t)p->h_in * (uint64_t)p->w_in;
    return hw_out * (sizeof(bc_point) + 16 * 64 + 25 * sizeof(bc_entry)) + hw_in * 9 +
           (hw_out + hw_in) * (uint64_t)lanes_stride(p) * sizeof(double) +
           (uint64_t)(threads > 0 ? threads : 1) * (hw_out * 25 + 64) * 120;
}
