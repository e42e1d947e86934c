/* ref_avgpool2d_backward and its one-element MPFR form. Per grad_input element (gathered, so
 * OpenMP over elements needs no reduction): the terms gradOutput[oh][ow] / div(oh, ow) of every
 * window that covers it (facts §4), in (oh, ow) order, gathered from per-axis window tables.
 * Elements go in blocks of whole rows (their coordinates advance, no divisions), streamed by
 * one team (ref_team_run) through a ring of chunk buffers (pool_pipe), divisors
 * as doubles when every one of the call is at most 2^53. Within a row, columns of one residue
 * modulo the stride whose windows are the same shifted by one go four at a time
 * (avgpool_lanes.c) when the gradOutput plane is regular. Fast path: with one divisor d (the
 * common case) and Σg exact (error-free sums show it, or a plane's float32 values of a narrow
 * exponent range: avgpool_plane_kind) the answer is decided directly: hi is
 * the correctly rounded quotient Σg/d, lo the exact remainder's quotient (ref_decide_quotient);
 * else Σg exactly then one exact-remainder division, or each quotient as an exact-remainder
 * double-double summed with a running error bound, then Ziv's test. MPFR otherwise:
 * with D = lcm|div|, S = Σ g·(D/div) is exact at a precision fitted to the exponents, and S/D is
 * rounded once. */
#include <gmp.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "avgpool_internal.h"

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static int params_ok(const ref_avgpool_params *p)
{
    return p->n >= 0 && p->c >= 0 && p->h >= 0 && p->w >= 0 && p->oh >= 0 && p->ow >= 0 &&
           p->kh > 0 && p->kw > 0 && p->sh > 0 && p->sw > 0 && p->ph >= 0 && p->pw >= 0;
}

static int axis_tab_build(axis_tab *t, int64_t in, int64_t on, int64_t s, int64_t pad, int64_t k)
{
    t->cap = k / s + (k % s != 0); /* ceil(k/s) without overflow (s may be near INT64_MAX) */
    t->cap = min64(t->cap, max64(on, 1));
    t->cnt = calloc((size_t)(in > 0 ? in : 1), sizeof *t->cnt);
    t->w = malloc((size_t)(in > 0 ? in : 1) * (size_t)t->cap * sizeof *t->w);
    if (!t->cnt || !t->w)
        return -1;
    for (int64_t o = 0; o < on; o++) {
        int64_t a, b, full;
        ref_avgpool_window(o, s, pad, k, in, &a, &b, &full);
        for (int64_t i = a; i < b; i++)
            if (t->cnt[i] < t->cap) /* always: ≤ cap windows contain i */
                t->w[i * t->cap + t->cnt[i]++] = (axis_win){o, full, b - a};
    }
    for (int64_t i = 0; i < in; i++)
        for (int64_t j = t->cnt[i]; j < t->cap; j++)
            t->w[i * t->cap + j] = (axis_win){0, 0, 0};
    return 0;
}

static void axis_tab_free(axis_tab *t)
{
    free(t->cnt);
    free(t->w);
}

/* The divisor factor every window of slots w[0..n) shares (full or len), NaN when they differ
 * or n is 0. */
static double shared_factor(const axis_win *w, int n, bool include_pad)
{
    double f = n > 0 ? (double)(include_pad ? w[0].full : w[0].len) : NAN;
    for (int j = 1; j < n; j++)
        if ((double)(include_pad ? w[j].full : w[j].len) != f)
            return NAN;
    return f;
}

/* Whether columns iw + k·sw (k < 4) form an affine group, and which (AFF_*, pool_tabs.aff):
 * lane k's windows those of iw shifted by k, the last lane's all of them or (n ≥ 2) all but
 * the last. */
static uint8_t affine_group(const axis_tab *t, int64_t iw, int64_t sw)
{
    const axis_win *w0 = t->w + iw * t->cap;
    int n = t->cnt[iw], last = t->cnt[iw + 3 * sw];
    bool ok = n > 0 && (last == n || (n >= 2 && last == n - 1));
    for (int k = 1; k < 4 && ok; k++) {
        const axis_win *wk = t->w + (iw + k * sw) * t->cap;
        int nk = k < 3 ? n : last;
        ok = t->cnt[iw + k * sw] == nk;
        for (int j = 0; j < nk && ok; j++)
            ok = wk[j].o == w0[j].o + k;
    }
    return !ok ? AFF_NONE : last == n ? AFF_FULL : AFF_SHORT;
}

static int pool_tabs_build(pool_tabs *T, const ref_avgpool_params *p)
{
    int rh = axis_tab_build(&T->h, p->h, p->oh, p->sh, p->ph, p->kh);
    int rw = axis_tab_build(&T->w, p->w, p->ow, p->sw, p->pw, p->kw);
    T->dh = malloc((size_t)(p->h > 0 ? p->h : 1) * sizeof *T->dh);
    T->dw = malloc((size_t)(p->w > 0 ? p->w : 1) * sizeof *T->dw);
    T->aff = calloc((size_t)(p->w > 0 ? p->w : 1), 1);
    T->row = p->w <= POOL_BLOCK ? malloc(sizeof *T->row) : NULL;
    if (rh || rw || !T->dh || !T->dw || !T->aff || (p->w <= POOL_BLOCK && !T->row))
        return -1;
    for (int64_t i = 0; i < p->h; i++)
        T->dh[i] = shared_factor(T->h.w + i * T->h.cap, T->h.cnt[i], p->count_include_pad);
    for (int64_t i = 0; i < p->w; i++)
        T->dw[i] = shared_factor(T->w.w + i * T->w.cap, T->w.cnt[i], p->count_include_pad);
    for (int64_t i = 0; p->sw <= p->w / 3 && i + 3 * p->sw < p->w; i++)
        T->aff[i] = affine_group(&T->w, i, p->sw);
    if (T->row)
        avgpool_lanes_plan(T, p->sw, 0, p->w, T->row);
    return 0;
}

static void pool_tabs_free(pool_tabs *T)
{
    axis_tab_free(&T->h);
    axis_tab_free(&T->w);
    free(T->dh);
    free(T->dw);
    free(T->aff);
    free(T->row);
}

/* The terms of element `index`: g[i] / d[i], i < returned count (T->h.cap·T->w.cap is enough).
 * d is 128-bit: with countIncludePad two padded window lengths of 2^32 and more multiply past
 * int64. */
static int64_t element_terms(const ref_avgpool_params *p, const pool_tabs *T, const double *go,
                             int64_t index, double *g, i128 *d)
{
    int64_t iw = index % p->w, ih = (index / p->w) % p->h, plane = index / (p->w * p->h);
    const double *gp = go + plane * p->oh * p->ow;
    const axis_win *wh = T->h.w + ih * T->h.cap, *ww = T->w.w + iw * T->w.cap;
    int nh = T->h.cnt[ih], nw = T->w.cnt[iw];
    int64_t n = 0;
    for (int i = 0; i < nh; i++)
        for (int j = 0; j < nw; j++) {
            g[n] = gp[wh[i].o * p->ow + ww[j].o];
            d[n] = p->divisor_override ? p->divisor_override
                   : p->count_include_pad ? (i128)wh[i].full * ww[j].full
                                          : (i128)wh[i].len * ww[j].len;
            n++;
        }
    return n;
}

/* |d| without overflow: divisorOverride INT64_MIN is legal where no range check applies. */
static u128 magnitude(i128 d) { return d < 0 ? 0 - (u128)d : (u128)d; }

static void mpz_set_u128(mpz_t z, u128 v)
{
    mpz_set_ui(z, (unsigned long)(uint64_t)(v >> 64));
    mpz_mul_2exp(z, z, 64);
    mpz_add_ui(z, z, (unsigned long)(uint64_t)v);
}

/* Exact divisors: |d| ≤ 2^53 converts to double without rounding (the fast path's condition). */
#define EXACT_DIVISOR ((u128)1 << 53)

/* Exact S = Σ g·(D/d) and D, as MPFR/GMP numbers (S at a precision that holds it exactly). */
static void exact_fraction(const double *g, const i128 *d, int64_t n, mpfr_t S, mpz_t D)
{
    mpz_t m;
    mpz_init(m);
    mpz_set_ui(D, 1);
    for (int64_t i = 0; i < n; i++) {
        mpz_set_u128(m, magnitude(d[i]));
        mpz_lcm(D, D, m);
    }
    int emax = INT_MIN, emin = INT_MAX;
    for (int64_t i = 0; i < n; i++)
        if (g[i] != 0) {
            int e = ilogb(g[i]);
            emax = e > emax ? e : emax;
            emin = e < emin ? e : emin;
        }
    long bitsD = (long)mpz_sizeinbase(D, 2);
    mpfr_prec_t prec = (emax == INT_MIN ? 0 : emax - emin) + 53 + 2 * bitsD + 70;
    mpfr_set_prec(S, prec);
    mpfr_set_zero(S, 1);
    mpfr_t t;
    mpz_t di;
    mpfr_init2(t, 53 + bitsD + 2);
    mpz_init(di);
    for (int64_t i = 0; i < n; i++) {
        mpz_set_u128(di, magnitude(d[i]));
        mpz_divexact(m, D, di);
        if (d[i] < 0)
            mpz_neg(m, m);
        mpfr_set_z(t, m, MPFR_RNDN);           /* exact: bitsD bits */
        mpfr_mul_d(t, t, g[i], MPFR_RNDN);      /* exact: 53 + bitsD bits */
        mpfr_add(S, S, t, MPFR_RNDN);           /* exact: prec covers the exponent span */
    }
    mpfr_clear(t);
    mpz_clears(m, di, (mpz_ptr)0);
}

/* (hi, lo) of reference.h by MPFR. */
static void mpfr_value(const double *g, const i128 *d, int64_t n, double *hi, double *lo)
{
    mpfr_t S, q, r;
    mpz_t D;
    mpfr_init2(S, 64);
    mpz_init(D);
    exact_fraction(g, d, n, S, D);
    mpfr_init2(q, REF_ODD_PREC);
    ref_mpfr_round_odd(q, mpfr_div_z(q, S, D, MPFR_RNDZ));
    *hi = mpfr_get_d(q, MPFR_RNDN);     /* one rounding, subnormals included */
    if (!isfinite(*hi)) {
        *lo = 0;
        mpfr_clears(S, q, (mpfr_ptr)0);
        mpz_clear(D);
        return;
    }
    mpfr_set_d(q, *hi, MPFR_RNDN);
    mpfr_init2(r, mpfr_get_prec(S) + 53 + (mpfr_prec_t)mpz_sizeinbase(D, 2) + 8);
    mpfr_mul_z(r, q, D, MPFR_RNDN);     /* exact */
    mpfr_sub(r, S, r, MPFR_RNDN);       /* exact: S − hi·D */
    mpfr_set_prec(q, REF_LO_BITS);
    mpfr_div_z(q, r, D, MPFR_RNDN);
    *lo = ref_mpfr_lo(q);
    mpfr_clears(S, q, r, (mpfr_ptr)0);
    mpz_clear(D);
}

/* The exponent of the least significant set bit of g ≠ 0 (g finite). */
static int lsb_exp(double g)
{
    uint64_t u;
    memcpy(&u, &g, sizeof u);
    int be = (int)(u >> 52 & 0x7ff);
    uint64_t m = (u & ((UINT64_C(1) << 52) - 1)) | (be ? UINT64_C(1) << 52 : 0);
    return (be ? be : 1) - 1075 + __builtin_ctzll(m);
}

/* Σg by plain double additions when that is provably exact: every g is a multiple of 2^L (L the
 * least lsb exponent) and every partial sum is below Σ|g| < 2^(L+53) in magnitude, so each is a
 * representable multiple of 2^L. sabs_g is Σ|g| as computed (n − 1 roundings: the factor covers
 * them: n·2^-52 over their (n − 1)·2^-53 growth). 0 when the test fails. */
static int plain_sum_exact(const double *g, int64_t n, double sabs_g, double *sum)
{
    int L = INT_MAX;
    double s = 0;
    for (int64_t i = 0; i < n; i++) {
        if (g[i] != 0) {
            int e = lsb_exp(g[i]);
            L = e < L ? e : L;
        }
        s += g[i];
    }
    if (L == INT_MAX) {
        *sum = 0;
        return 1;
    }
    if (L + 53 > 1000 || L < -1000)
        return 0;
    uint64_t bits = (uint64_t)(1023 + L + 53) << 52; /* 2^(L+53) */
    double lim;
    memcpy(&lim, &bits, sizeof lim);
    if (!(sabs_g * (1 + (double)n * 0x1p-52) < lim))
        return 0;
    *sum = s;
    return 1;
}

/* Fast path (same: every d[i] equal, sabs_g = Σ|g|); 0 when Ziv's test cannot decide. The
 * caller guarantees |d| ≤ 2^53 (exact as a double) and no quotient near the subnormal range
 * (the remainders below are exact only without underflow). */
static int fast_value(const double *g, const double *d, int64_t n, bool same, double sabs_g,
                      double *hi, double *lo)
{
    ref_acc a = {{0, 0}, 0};
    double sum;
    if (n > 0 && same) { /* one divisor: Σg exactly, then one division */
        if (plain_sum_exact(g, n, sabs_g, &sum))
            a.s = (ref_dd){sum, 0};
        else
            for (int64_t i = 0; i < n; i++) /* error-free sums */
                ref_acc_add(&a, (ref_dd){g[i], 0}, 0);
        if (a.err == 0) {
            double dv = d[0];
            double q1 = a.s.hi / dv;
            ref_dd r = ref_two_sum(fma(-q1, dv, a.s.hi), a.s.lo); /* exact remainder */
            double q2 = (r.hi + r.lo) / dv;  /* ≤ 2 roundings: relative error ≤ 2^-52 */
            ref_dd s = ref_two_sum(q1, q2);
            if (ref_decide(s, fabs(q2) * 0x1p-51 + (q2 != 0 ? REF_DD_TINY : 0), hi, lo))
                return 1;
        }
        a = (ref_acc){{0, 0}, 0};
    }
    for (int64_t i = 0; i < n; i++) {
        double dv = d[i];
        double q = g[i] / dv, r = fma(-q, dv, g[i]); /* r exact: division remainder */
        double q2 = r / dv;
        if (q2 == 0)
            ref_acc_add(&a, (ref_dd){q, 0}, 0); /* exact quotient */
        else
            ref_acc_add(&a, ref_fast_two_sum(q, q2), fabs(q2) * 0x1p-53 + REF_DD_TINY);
    }
    return ref_decide(a.s, a.err, hi, lo);
}

int ref_avgpool2d_backward_element_mpfr(const ref_avgpool_params *p, const double *grad_output,
                                        int64_t index, void *mpfr_out)
{
    if (!params_ok(p) || index < 0 || index >= p->n * p->c * p->h * p->w)
        return -1;
    pool_tabs T;
    int rc = pool_tabs_build(&T, p);
    int64_t cap = T.h.cap * T.w.cap;
    double *g = malloc((size_t)cap * sizeof *g);
    i128 *d = malloc((size_t)cap * sizeof *d);
    if (!g || !d || rc) {
        free(g);
        free(d);
        pool_tabs_free(&T);
        return -1;
    }
    int64_t n = element_terms(p, &T, grad_output, index, g, d);
    mpfr_t S;
    mpz_t D;
    mpfr_init2(S, 64);
    mpz_init(D);
    exact_fraction(g, d, n, S, D);
    mpfr_div_z((mpfr_ptr)mpfr_out, S, D, MPFR_RNDN);
    mpfr_clear(S);
    mpz_clear(D);
    free(g);
    free(d);
    pool_tabs_free(&T);
    return 0;
}

/* The range allowances of element terms g/d on the path (reference.h REF_FLAG_RANGE): a sum
 * of magnitudes past the working format's largest value (lim) may overflow on the way (FP32
 * sums the gradients before or after dividing), and a cube weight 1/d that rounds to 0 in the
 * operand format meets an infinite gradient as inf·0. dmax: max |d| as a double. */
static uint8_t range_flags(const ref_path *path, double lim, double sabs_g, double sabs,
                           bool infinite_g, double dmax)
{
    bool over = ref_fmax(sabs_g, sabs) * (1 + 0x1p-40) > lim;
    bool zero_w = false;
    if (path->kind == REF_PATH_CUBE && infinite_g && dmax > 0) {
        double w = ref_round_to(1.0 / dmax, REF_DT_FLOAT);
        zero_w = ref_round_to(w, path->hf32 ? REF_DT_FLOAT : path->operand) == 0;
    }
    return over || zero_w ? REF_FLAG_RANGE : 0;
}

/* Every operand format overflows only above FP16's largest value: a cheaper first test. */
static bool operand_overflows(const ref_path *path, double gmax)
{
    return gmax >= 0x1p15 && ref_operand_overflows(path, gmax);
}

/* The fields of v and flags every path shares: n terms, Σ|terms| sabs (sabs_g: Σ|g| when the
 * divisors are equal, else 0), max |g| over the finite g, max |d|. */
static inline void element_fields(const pool_ctx *C, int64_t n, double sabs_g, double sabs,
                                  double gmax, bool infinite_g, double dmax, double inv_dmax,
                                  ref_value *v, uint8_t *flags)
{
    /* some operand overflows iff the largest finite one does (rounding is monotone) */
    if (operand_overflows(&C->opt->path, gmax))
        *flags |= REF_FLAG_OPERAND_OVERFLOW;
    *flags |= range_flags(&C->opt->path, C->overflow_at, sabs_g, sabs, infinite_g, dmax);
    v->nterms = n;
    v->nops = 2; /* a quotient (or reciprocal and product), then the sum */
    v->sum_exp = 0;
    v->coord_err = 0;
    v->under_mag = 0; /* g/d or g·w: an underflow is the term's last rounding, not magnified */
    /* min over terms of 1/|d| rounded (only scales a term) = 1/max|d|: rounding is monotone */
    v->min_weight = (n ? ref_fmin(1, inv_dmax) : 0) * (1 - 0x1p-52);
    /* each |t| (or Σ|g| and its quotient) and partial sum rounded to nearest: n+1 factors
     * (1 + 2^-53) at most */
    v->sum_abs = sabs * (1 + (double)(n + 2) * 0x1p-52);
}

/* One element's answer; returns 1 when the fast path decided it. */
static int element(const pool_ctx *C, int64_t idx, const pool_scratch *S, ref_value *v,
                   uint8_t *flags)
{
    const ref_avgpool_params *p = C->p;
    double *g = S->g;
    i128 *d = S->d;
    int64_t n = element_terms(p, C->T, C->go, idx, g, d);
    double sabs = 0, gmax = 0, gmin = INFINITY;
    u128 dmax = 0;
    bool finite = true, same = true, infinite_g = false;
    ref_nfclass cls = {0};
    for (int64_t i = 0; i < n; i++) {
        u128 ad = magnitude(d[i]);
        dmax = ad > dmax ? ad : dmax;
        same = same && d[i] == d[0];
        if (isfinite(g[i])) {
            gmax = fabs(g[i]) > gmax ? fabs(g[i]) : gmax;
            if (g[i] != 0)
                gmin = ref_fmin(gmin, fabs(g[i]));
        } else {
            finite = false;
            infinite_g = infinite_g || isinf(g[i]);
            /* a term's class: g's, sign times d's sign (d ≠ 0 is exact) */
            double f[2] = {g[i], d[i] < 0 ? -1.0 : 1.0};
            ref_nf_term(&cls, f, 2);
        }
    }
    double dmax_d = (double)dmax; /* rounded when |d| > 2^53: only bounds use it then */
    double sabs_g = 0;
    if (same && n > 0) { /* Σ|g| / |d|: n − 1 roundings in the sum, one in the quotient */
        for (int64_t i = 0; i < n; i++)
            sabs_g += fabs(g[i]);
        sabs = sabs_g / dmax_d;
    } else {
        for (int64_t i = 0; i < n; i++)
            sabs += fabs(g[i] / (double)d[i]);
    }
    element_fields(C, n, sabs_g, sabs, gmax, infinite_g, dmax_d, 1.0 / dmax_d, v, flags);
    if (!finite) { /* the class of the exact sum in the extended reals, whatever the order */
        v->hi = ref_nf_value(&cls);
        v->lo = 0;
        v->sum_abs = INFINITY;
        *flags |= REF_FLAG_NONFINITE;
        return 1;
    }
    /* the fast path's divisions and remainders are exact for |d| ≤ 2^53 and quotients clear
     * of the subnormal range; anything else is MPFR's */
    bool fast_ok = dmax <= EXACT_DIVISOR && !(gmin / dmax_d < 0x1p-900);
    if (!C->opt->force_mpfr && fast_ok) {
        for (int64_t i = 0; i < n; i++)
            S->dv[i] = (double)d[i];
        if (fast_value(g, S->dv, n, same, sabs_g, &v->hi, &v->lo))
            return 1;
    }
    mpfr_value(g, d, n, &v->hi, &v->lo);
    return 0;
}

/* The divisor of window pair (a, b) as a double: exact when the call is small. */
static inline double divisor_d(const ref_avgpool_params *p, const axis_win *a, const axis_win *b)
{
    if (p->divisor_override)
        return (double)p->divisor_override;
    return p->count_include_pad ? (double)a->full * (double)b->full : (double)a->len * (double)b->len;
}

/* element() for the common case: a small call, finite terms, at least one. The same answer,
 * without 128-bit divisors or a second pass, and with one divisor and Σg exact (checked by
 * error-free sums) the quotient decided directly. -1: not that case (element() then). */
static inline int element_small(const pool_ctx *C, const double *gp, const axis_win *wh,
                                int nh, const axis_win *ww, int nw, pool_scratch *S,
                                ref_value *v, uint8_t *flags)
{
    const ref_avgpool_params *p = C->p;
    double *g = S->g, *d = S->dv;
    double sum = 0, sabs_g = 0, gmax = 0, gmin = INFINITY, dmax = 0;
    bool same = true, exact = true, finite = true;
    int64_t n = 0;
    for (int i = 0; i < nh; i++) {
        const double *row = gp + wh[i].o * p->ow;
        for (int j = 0; j < nw; j++) {
            double gi = row[ww[j].o], di = divisor_d(p, &wh[i], &ww[j]), ag = fabs(gi);
            finite = finite && isfinite(gi);
            same = same && (n == 0 || di == d[0]);
            dmax = fabs(di) > dmax ? fabs(di) : dmax;
            gmax = ag > gmax ? ag : gmax;
            if (gi != 0)
                gmin = ref_fmin(gmin, ag);
            sabs_g += ag;
            ref_dd t = ref_two_sum(sum, gi); /* sum stays exact while every t.lo is 0 */
            exact = exact && t.lo == 0;
            sum = t.hi;
            g[n] = gi;
            d[n++] = di;
        }
    }
    if (n == 0 || !finite)
        return -1;
    double sabs = 0;
    if (same) {
        sabs = sabs_g / dmax;
        if (d[0] != S->dlast) {
            S->dlast = d[0];
            S->inv = 1.0 / d[0];
        }
    } else {
        sabs_g = 0;
        for (int64_t i = 0; i < n; i++)
            sabs += fabs(g[i] / d[i]);
    }
    /* 1/|d| = |1/d| exactly */
    element_fields(C, n, sabs_g, sabs, gmax, false, dmax, same ? fabs(S->inv) : 1.0 / dmax, v,
                   flags);
    /* gmin ≥ 2^-847 keeps every quotient (|d| ≤ 2^53) clear of the subnormal range, as
     * element()'s test does, without a division */
    if (!C->opt->force_mpfr && gmin >= 0x1p-847) {
        if (same && exact && ref_decide_quotient(sum, d[0], S->inv, &v->hi, &v->lo))
            return 1;
        if (fast_value(g, d, n, same, sabs_g, &v->hi, &v->lo))
            return 1;
    }
    for (int64_t i = 0; i < n; i++)
        S->d[i] = (i128)d[i];
    mpfr_value(g, S->d, n, &v->hi, &v->lo);
    return 0;
}

/* Element i = (plane, ih, iw) into v and flags; 1 when the fast path decided it. */
static int element_one(const pool_ctx *C, int64_t i, int64_t plane, int64_t ih, int64_t iw,
                       pool_scratch *S, ref_value *v, uint8_t *flags)
{
    const ref_avgpool_params *p = C->p;
    const pool_tabs *T = C->T;
    int r = -1;
    if ((T->h.cnt[ih] == 0 || T->w.cnt[iw] == 0) && !C->opt->force_mpfr) {
        *v = (ref_value){.nops = 2}; /* no window: element()'s answer, 0 exactly */
        return 1;
    }
    if (C->small)
        r = element_small(C, C->go + plane * p->oh * p->ow, T->h.w + ih * T->h.cap, T->h.cnt[ih],
                          T->w.w + iw * T->w.cap, T->w.cnt[iw], S, v, flags);
    return r < 0 ? element(C, i, S, v, flags) : r;
}

/* avgpool_plane_kind, once per plane of the elements in hand (pool_ctx.regular: two threads
 * may both compute a plane first reached at once, and store the same answer). */
static int plane_kind(const pool_ctx *C, int64_t plane)
{
    uint8_t *st = &C->regular[plane - C->plane0];
    uint8_t known = __atomic_load_n(st, __ATOMIC_RELAXED);
    if (known == 0) {
        known = (uint8_t)(1 + avgpool_plane_kind(C, plane));
        __atomic_store_n(st, known, __ATOMIC_RELAXED);
    }
    return known - 1;
}

/* avgpool_lanes_row on a piece other than a whole row: its own plan (apart: a large frame). */
static __attribute__((noinline)) void piece_lanes(const pool_ctx *C, const double *gp,
                                                  bool exact, const axis_win *wh, int nh,
                                                  double dh, int64_t iw, int64_t n, ref_value *v,
                                                  float *ph, uint64_t *todo)
{
    lanes_plan L;
    avgpool_lanes_plan(C->T, C->p->sw, iw, n, &L);
    avgpool_lanes_row(C, &L, gp, exact, wh, nh, dh, iw, n, v, ph, todo);
}

/* Element k's plain_hi (ph not NULL) once v[k] and flags[k] are final */
static void plain_one(float *ph, const ref_value *v, const uint8_t *flags, int64_t k)
{
    if (ph)
        ref_plain_hi_of(v + k, flags + k, 1, ph + k);
}

/* Row ih's elements iw .. iw + n − 1 (n ≤ POOL_BLOCK): by avgpool_lanes_row where the plane
 * and the row allow; the rest, and lanes it leaves, one by one. */
static int64_t row_segment(const pool_ctx *C, int64_t i, int64_t plane, int64_t ih, int64_t iw,
                           int64_t n, pool_scratch *S, ref_value *v, uint8_t *flags, float *ph)
{
    const ref_avgpool_params *p = C->p;
    const pool_tabs *T = C->T;
    const axis_win *wh = T->h.w + ih * T->h.cap;
    const double *gp = C->go + plane * p->oh * p->ow;
    int nh = T->h.cnt[ih];
    int64_t hits = 0;
    double dh = T->dh[ih];
    /* no window on the row: element_one's empty answer for each, without a call each (a stride
     * past the kernel leaves most rows so) */
    if (nh == 0 && !C->opt->force_mpfr) {
        for (int64_t k = 0; k < n; k++)
            v[k] = (ref_value){.nops = 2};
        if (ph)
            memset(ph, 0, (size_t)n * sizeof *ph); /* their plain_hi: +0 */
        return n;
    }
    bool lanes = C->small && !C->opt->force_mpfr && nh > 0 && (p->divisor_override || dh == dh);
    int kind = lanes ? plane_kind(C, plane) : PLANE_IRREGULAR;
    if (kind == PLANE_IRREGULAR) {
        for (int64_t k = 0; k < n; k++) {
            hits += element_one(C, i + k, plane, ih, iw + k, S, v + k, flags + k);
            plain_one(ph, v, flags, k);
        }
        return hits;
    }
    uint64_t todo[POOL_BLOCK / 64]; /* lanes left to element_one */
    if (iw == 0 && n == p->w && T->row)
        avgpool_lanes_row(C, T->row, gp, kind == PLANE_EXACT, wh, nh, dh, iw, n, v, ph, todo);
    else
        piece_lanes(C, gp, kind == PLANE_EXACT, wh, nh, dh, iw, n, v, ph, todo);
    int64_t left = 0;
    for (int64_t wd = 0; wd * 64 < n; wd++)
        for (uint64_t b = todo[wd]; b; b &= b - 1, left++) {
            int64_t k = wd * 64 + __builtin_ctzll(b);
            if (T->w.cnt[iw + k] == 0) { /* element_one's empty answer, inline */
                v[k] = (ref_value){.nops = 2};
                if (ph)
                    ph[k] = 0;
                hits++;
                continue;
            }
            hits += element_one(C, i + k, plane, ih, iw + k, S, v + k, flags + k);
            plain_one(ph, v, flags, k);
        }
    return hits + n - left;
}

/* Elements [i0, i1) into v and flags (indexed from i0), a row segment at a time; *hits counts
 * the fast path's. */
/* Elements i0 .. i1 − 1 into v, flags and (ph not NULL) ph, their plain_hi: each written where
 * its answer is (the lanes' from their registers: reading the answers back after a row cost
 * half the reference's own time in the bench case, its stores not yet in cache). */
static void element_range(const pool_ctx *C, int64_t i0, int64_t i1, pool_scratch *S,
                          ref_value *v, uint8_t *flags, float *ph, int64_t *hits)
{
    const ref_avgpool_params *p = C->p;
    int64_t iw = i0 % p->w, ih = (i0 / p->w) % p->h, plane = i0 / (p->w * p->h);
    for (int64_t i = i0; i < i1;) {
        int64_t n = min64(i1 - i, p->w - iw);
        *hits += row_segment(C, i, plane, ih, iw, n, S, v + (i - i0), flags + (i - i0),
                             ph ? ph + (i - i0) : NULL);
        i += n;
        iw = 0;
        if (++ih == p->h) {
            ih = 0;
            plane++;
        }
    }
}

/* Whether every divisor of the call is at most 2^53 in magnitude (exact as a double). */
static bool divisors_small(const ref_avgpool_params *p, const pool_tabs *T)
{
    if (p->divisor_override)
        return magnitude(p->divisor_override) <= EXACT_DIVISOR;
    i128 m[2] = {0, 0};
    const axis_tab *t[2] = {&T->h, &T->w};
    const int64_t in[2] = {p->h, p->w};
    for (int a = 0; a < 2; a++)
        for (int64_t i = 0; i < in[a]; i++)
            for (int j = 0; j < t[a]->cnt[i]; j++) {
                const axis_win *w = &t[a]->w[i * t[a]->cap + j];
                i128 x = p->count_include_pad ? w->full : w->len;
                m[a] = x > m[a] ? x : m[a];
            }
    return (u128)(m[0] * m[1]) <= EXACT_DIVISOR; /* each below 2^63: no overflow */
}

/* A piece of at most n elements: whole rows of w when one fits (so the affine groups of
 * row_segment are not cut at its ends), else n. */
static int64_t whole_rows(int64_t n, int64_t w)
{
    return w > 0 && w <= n ? n - n % w : n;
}

/* A chunk of at most n elements: whole planes when one fits (each plane's kind, avgpool_plane_kind,
 * is then found once: a plane cut by a chunk's end was scanned again by the next), else whole
 * rows (whole_rows). */
static int64_t whole_planes(int64_t n, const ref_avgpool_params *p)
{
    int64_t hw = p->h * p->w;
    return hw > 0 && hw <= n ? n - n % hw : whole_rows(n, p->w);
}

/* The elements of a call, chunk after chunk, in one team: chunk c (step elements, the
 * last fewer) is computed into buffer c % PIPE_BUFS while earlier ones are handed on, so the team
 * meets no barrier per chunk. Its blocks (whole rows, numbered across the chunks) are claimed
 * by whichever thread reaches them, each thread its own share of a chunk first
 * (ref_share_next); a thread waits only for its chunk's buffer (chunk c − PIPE_BUFS handed on
 * and the buffer reset). The calling thread (the team's thread 0) hands the chunks to the sink
 * in order, each as soon as it sees all its blocks done, and resets the buffer for the chunk
 * PIPE_BUFS on. Without a sink there is one chunk, written in place. */
#define PIPE_BUFS 3

typedef struct {
    const pool_ctx *C;
    const ref_sink *sink;          /* NULL: one chunk */
    ref_chunkbuf *cb;              /* the buffers (NULL without a sink) */
    ref_output *out[PIPE_BUFS];    /* their outputs */
    uint8_t *regular[PIPE_BUFS];   /* pool_ctx.regular of each buffer's chunk */
    int64_t numel, step, blk, bpc, nchunks;
    int64_t *claim[PIPE_BUFS];     /* atomic, bpc each: the chunk + 1 that last claimed each
                                      block of the buffer (only grows: never reset) */
    int nth;                       /* the team's threads */
    int64_t ready;                 /* atomic: chunks below it have their buffer ready */
    int64_t done[PIPE_BUFS];       /* atomic: blocks done of each buffer's chunk */
    int64_t emitted;               /* chunks handed on (thread 0's) */
    int stop;                      /* atomic: an error; every thread leaves */
    int fail;                      /* atomic: a thread's scratch not allocated */
    int64_t hits;                  /* atomic: elements the fast path decided */
    int rc;
} pool_pipe;

static int64_t chunk_size(const pool_pipe *P, int64_t c)
{
    return min64(P->step, P->numel - c * P->step);
}

static int64_t chunk_blocks(const pool_pipe *P, int64_t c)
{
    return (chunk_size(P, c) + P->blk - 1) / P->blk;
}

/* Chunk c's buffer made ready: flags cleared, its planes unknown, no block done. */
static void pipe_prepare(pool_pipe *P, int64_t c)
{
    int b = (int)(c % PIPE_BUFS);
    int64_t n = chunk_size(P, c), hw = P->C->p->h * P->C->p->w;
    if (P->cb)
        ref_chunkbuf_start(&P->cb[b], n);
    memset(P->regular[b], 0, (size_t)((c * P->step + n - 1) / hw - c * P->step / hw + 1));
    P->done[b] = 0;
}

/* Thread 0: the next chunk handed on (once all its blocks are done: waiting for them when wait,
 * else only if they are), and its buffer made ready for the chunk PIPE_BUFS on. False when
 * it was not done or the pipe stopped. */
static bool pipe_emit_next(pool_pipe *P, bool wait)
{
    int64_t c = P->emitted;
    int b = (int)(c % PIPE_BUFS);
    if (c >= P->nchunks || __atomic_load_n(&P->stop, __ATOMIC_RELAXED))
        return false;
    if (wait ? !ref_wait_until(&P->done[b], chunk_blocks(P, c), &P->stop)
             : __atomic_load_n(&P->done[b], __ATOMIC_ACQUIRE) < chunk_blocks(P, c))
        return false;
    int rc = P->sink ? ref_emit(P->sink, 2, c * P->step, &P->cb[b]) : 0;
    if (rc != 0) {
        P->rc = rc;
        __atomic_store_n(&P->stop, 1, __ATOMIC_RELAXED);
        return false;
    }
    P->emitted = ++c;
    if (c - 1 + PIPE_BUFS < P->nchunks)
        pipe_prepare(P, c - 1 + PIPE_BUFS);
    __atomic_store_n(&P->ready, c + PIPE_BUFS, __ATOMIC_RELEASE);
    return true;
}

/* Whether chunk c's buffer is ready for the calling thread to work in (it waits until it is);
 * false when the pipe stopped. Thread 0 hands chunks on meanwhile (only it readies buffers:
 * it never waits on itself). A thread claims a block only once its buffer is ready, so a
 * block is only ever waited for while it is being computed: claimed first and waited for
 * after, a block was held by a thread asleep in ref_wait_until, and thread 0 slept in turn
 * waiting for it (bench case, 2 threads, load 7: thread 0 computed 95% of the blocks, idle 60%
 * of the call; the other idle throughout). */
static bool pipe_ready(pool_pipe *P, int64_t c, bool t0)
{
    if (!t0)
        return ref_wait_until(&P->ready, c + 1, &P->stop);
    while (__atomic_load_n(&P->ready, __ATOMIC_ACQUIRE) <= c)
        if (!pipe_emit_next(P, true))
            return false;
    return true;
}

/* Block g (of chunk g / bpc, its buffer ready) computed; false when the pipe stopped. */
static bool pipe_block(pool_pipe *P, int64_t g, bool t0, pool_scratch *S, int64_t *hits)
{
    int64_t c = g / P->bpc, i0 = (g % P->bpc) * P->blk, n = chunk_size(P, c);
    int64_t i1 = min64(i0 + P->blk, n);
    int b = (int)(c % PIPE_BUFS);
    pool_ctx C = *P->C;
    C.regular = P->regular[b];
    C.plane0 = c * P->step / (C.p->h * C.p->w);
    ref_output *o = P->out[b];
    element_range(&C, c * P->step + i0, c * P->step + i1, S, o->v + i0, o->flags + i0,
                  o->plain_hi ? o->plain_hi + i0 : NULL, hits);
    __atomic_fetch_add(&P->done[b], 1, __ATOMIC_RELEASE);
    while (t0 && pipe_emit_next(P, false)) /* the chunks done by now, not to hold buffers up */
        continue;
    return !__atomic_load_n(&P->stop, __ATOMIC_RELAXED);
}

/* One thread's share of the pipe: blocks until none is left, then (thread 0) the chunks not
 * yet handed on. */
static void pipe_work(void *ctx, int t)
{
    pool_pipe *P = ctx;
    int64_t hits = 0, cap = P->C->T->h.cap * P->C->T->w.cap;
    pool_scratch S = {malloc((size_t)cap * sizeof(double)), malloc((size_t)cap * sizeof(double)),
                      malloc((size_t)cap * sizeof(i128)), 0, 0};
    bool fail = !(S.g && S.dv && S.d);
    if (fail) {
        __atomic_store_n(&P->fail, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&P->stop, 1, __ATOMIC_RELAXED);
    }
    /* chunks before ready − PIPE_BUFS are handed on: a late thread starts past them */
    int64_t c = max64(0, __atomic_load_n(&P->ready, __ATOMIC_ACQUIRE) - PIPE_BUFS);
    for (bool go = !fail; go && c < P->nchunks && (go = pipe_ready(P, c, t == 0)); c++)
        for (int64_t j = 0, k, n = chunk_blocks(P, c), *claim = P->claim[c % PIPE_BUFS];
             go && (k = ref_share_next(claim, n, &j, t, P->nth, c + 1)) >= 0;)
            go = pipe_block(P, c * P->bpc + k, t == 0, &S, &hits);
    while (t == 0 && pipe_emit_next(P, true))
        continue;
    __atomic_fetch_add(&P->hits, hits, __ATOMIC_RELAXED);
    free(S.g);
    free(S.dv);
    free(S.d);
}

/* The pipe by a team (ref_team_run: the calling thread computes from the start, the others
 * join when they arrive); as many threads as an OpenMP region here would have. */
static int pipe_run(pool_pipe *P, ref_options *opt)
{
    int nth = opt->threads > 0 ? opt->threads : omp_get_max_threads();
    if (omp_get_active_level() >= omp_get_max_active_levels())
        nth = 1; /* inside a region that may not nest another */
    P->nth = nth;
    ref_team_run(nth, pipe_work, P);
    opt->fast_hits += opt->force_mpfr ? 0 : P->hits;
    opt->mpfr_fallbacks += P->numel - P->hits;
    return P->rc ? P->rc : P->fail || P->stop ? -1 : 0;
}

/* The pipe of numel elements in chunks of step (whole rows where they fit) into the buffers cb
 * (PIPE_BUFS of them; NULL: out, one chunk); the chunks numbered, the first buffers made ready. */
static int pipe_init(pool_pipe *P, const pool_ctx *C, const ref_sink *sink, ref_chunkbuf *cb,
                     ref_output *out, int64_t numel, int64_t step)
{
    int64_t hw = C->p->h * C->p->w, blk = whole_rows(POOL_BLOCK, C->p->w);
    *P = (pool_pipe){.C = C, .sink = sink, .cb = cb, .numel = numel, .step = step, .blk = blk,
                     .bpc = (step + blk - 1) / blk,
                     .nchunks = numel > 0 ? (numel + step - 1) / step : 0};
    for (int b = 0; b < PIPE_BUFS; b++) { /* planes of a chunk: step / hw + 2 at most */
        P->out[b] = cb ? &cb[b].o : out;
        if (!(P->regular[b] = calloc((size_t)(hw > 0 ? min64(step, numel) / hw + 2 : 1), 1)) ||
            !(P->claim[b] = calloc((size_t)P->bpc, sizeof *P->claim[b])))
            return -1;
    }
    for (int64_t c = 0; c < PIPE_BUFS && c < P->nchunks; c++)
        pipe_prepare(P, c);
    P->ready = min64(PIPE_BUFS, P->nchunks);
    return 0;
}

static void pipe_free(pool_pipe *P)
{
    for (int b = 0; b < PIPE_BUFS; b++) {
        free(P->regular[b]);
        free(P->claim[b]);
    }
}

/* Whether the stream's chunks carry plain_hi (reference.h): where no window covers a third of
 * the elements or more (their answers are 0, exact), which the judge then tests from 8 bytes
 * instead of 64 (id208, strides past the kernel: checks 0.83 of before). Writing it costs the
 * lanes a store an element (the bench's 3x3 windows at stride 2, every element covered: 1.19
 * times the reference's time), so a call whose elements are nearly all covered goes without. */
static bool wants_plain_hi(const ref_avgpool_params *p, const pool_tabs *T)
{
    int64_t rows = 0, cols = 0;
    for (int64_t i = 0; i < p->h; i++)
        rows += T->h.cnt[i] > 0;
    for (int64_t i = 0; i < p->w; i++)
        cols += T->w.cnt[i] > 0;
    /* the uncovered share 1 − (rows/h)·(cols/w) at least 1/3 (in doubles: a choice of speed) */
    return 3 * ((double)p->h * (double)p->w - (double)rows * (double)cols) >=
           (double)p->h * (double)p->w;
}

static bool problem_ok(const ref_avgpool_params *p, const double *grad_output)
{
    return p && params_ok(p) && !(p->n * p->c * p->oh * p->ow > 0 && !grad_output);
}

int ref_avgpool_stream(const ref_avgpool_params *p, const double *grad_output, ref_options *opt,
                       const ref_sink *s)
{
    if (!problem_ok(p, grad_output))
        return -1;
    int64_t numel = p->n * p->c * p->h * p->w;
    int64_t step = whole_planes(s->elems > 0 ? s->elems : REF_AVGPOOL_CHUNK_ELEMS, p);
    pool_tabs T;
    ref_chunkbuf b[PIPE_BUFS];
    memset(b, 0, sizeof b);
    int64_t cap = numel < step ? numel : step, nbufs = min64(PIPE_BUFS, (numel + step - 1) / step);
    int count = nbufs > 0 ? (int)nbufs : 1;
    int rc = pool_tabs_build(&T, p);
    if (rc == 0)
        rc = ref_chunkbufs_init(b, count, cap);
    for (int k = 0; rc == 0 && wants_plain_hi(p, &T) && k < count; k++)
        rc = ref_chunkbuf_plain_hi(&b[k]);
    pool_ctx C = {p, &T, grad_output, opt, ref_path_overflow_at(&opt->path),
                  rc == 0 && divisors_small(p, &T), NULL, 0};
    pool_pipe P = {0};
    if (rc == 0 && (rc = pipe_init(&P, &C, s, b, NULL, numel, step)) == 0)
        rc = pipe_run(&P, opt);
    pipe_free(&P);
    ref_chunkbufs_free(b, count);
    pool_tabs_free(&T);
    return rc;
}

int ref_avgpool2d_backward(const ref_avgpool_params *p, const double *grad_output,
                           ref_options *opt, ref_output *grad_input)
{
    if (!grad_input || !problem_ok(p, grad_output))
        return -1;
    ref_options dflt = {0};
    if (!opt)
        opt = &dflt;
    pool_tabs T;
    int64_t numel = p->n * p->c * p->h * p->w;
    if (pool_tabs_build(&T, p) != 0 || ref_output_alloc(grad_input, numel) != 0) {
        pool_tabs_free(&T);
        return -1;
    }
    pool_ctx C = {p, &T, grad_output, opt, ref_path_overflow_at(&opt->path), divisors_small(p, &T),
                  NULL, 0};
    pool_pipe P; /* one chunk: the whole output */
    int rc = pipe_init(&P, &C, NULL, NULL, grad_input, numel, numel > 0 ? numel : 1);
    if (rc == 0)
        rc = pipe_run(&P, opt);
    pipe_free(&P);
    pool_tabs_free(&T);
    if (rc != 0)
        ref_output_free(grad_input);
    return rc;
}
