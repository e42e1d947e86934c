/* ref_avgpool2d_backward and its one-element MPFR form. Per grad_input element (gathered, so
 * OpenMP over elements needs no reduction): the terms gradOutput[oh][ow] / div(oh, ow) of every
 * window that covers it (facts §4), in (oh, ow) order. Fast path: each quotient as an exact-
 * remainder double-double, summed with a running error bound, then Ziv's test; MPFR otherwise:
 * with D = lcm|div|, S = Σ g·(D/div) is exact at a precision fitted to the exponents, and S/D is
 * rounded once. */
#include <gmp.h>
#include <limits.h>
#include <stdlib.h>

#include "ref_internal.h"

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t floordiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

static int params_ok(const ref_avgpool_params *p)
{
    return p->n >= 0 && p->c >= 0 && p->h >= 0 && p->w >= 0 && p->oh >= 0 && p->ow >= 0 &&
           p->kh > 0 && p->kw > 0 && p->sh > 0 && p->sw > 0 && p->ph >= 0 && p->pw >= 0;
}

/* One axis of window o: [*a, *b) clipped, *full its length counting padding (facts §4). */
static void window(int64_t o, int64_t s, int64_t pad, int64_t k, int64_t in, int64_t *a,
                   int64_t *b, int64_t *full)
{
    int64_t h0 = o * s - pad, h1 = min64(h0 + k, in + pad);
    *full = h1 - h0;
    *a = max64(h0, 0);
    *b = min64(h1, in);
}

/* The terms of element `index`: g[i] / d[i], i < returned count (cap = kh·kw is enough). */
static int64_t element_terms(const ref_avgpool_params *p, const double *go, int64_t index,
                             double *g, int64_t *d)
{
    int64_t iw = index % p->w, ih = (index / p->w) % p->h, plane = index / (p->w * p->h);
    const double *gp = go + plane * p->oh * p->ow;
    int64_t oh0 = max64(0, floordiv(ih + p->ph - p->kh, p->sh) + 1);
    int64_t oh1 = min64(p->oh - 1, floordiv(ih + p->ph, p->sh));
    int64_t ow0 = max64(0, floordiv(iw + p->pw - p->kw, p->sw) + 1);
    int64_t ow1 = min64(p->ow - 1, floordiv(iw + p->pw, p->sw));
    int64_t n = 0;
    for (int64_t oh = oh0; oh <= oh1; oh++) {
        int64_t ha, hb, hf;
        window(oh, p->sh, p->ph, p->kh, p->h, &ha, &hb, &hf);
        if (ih < ha || ih >= hb)
            continue;
        for (int64_t ow = ow0; ow <= ow1; ow++) {
            int64_t wa, wb, wf;
            window(ow, p->sw, p->pw, p->kw, p->w, &wa, &wb, &wf);
            if (iw < wa || iw >= wb)
                continue;
            int64_t div = p->divisor_override ? p->divisor_override
                          : p->count_include_pad ? hf * wf : (hb - ha) * (wb - wa);
            g[n] = gp[oh * p->ow + ow];
            d[n] = div;
            n++;
        }
    }
    return n;
}

/* Exact S = Σ g·(D/d) and D, as MPFR/GMP numbers (S at a precision that holds it exactly). */
static void exact_fraction(const double *g, const int64_t *d, int64_t n, mpfr_t S, mpz_t D)
{
    mpz_set_ui(D, 1);
    for (int64_t i = 0; i < n; i++)
        mpz_lcm_ui(D, D, (unsigned long)llabs(d[i]));
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
    mpz_t m;
    mpfr_init2(t, 53 + bitsD + 2);
    mpz_init(m);
    for (int64_t i = 0; i < n; i++) {
        mpz_divexact_ui(m, D, (unsigned long)llabs(d[i]));
        if (d[i] < 0)
            mpz_neg(m, m);
        mpfr_set_z(t, m, MPFR_RNDN);           /* exact: bitsD bits */
        mpfr_mul_d(t, t, g[i], MPFR_RNDN);      /* exact: 53 + bitsD bits */
        mpfr_add(S, S, t, MPFR_RNDN);           /* exact: prec covers the exponent span */
    }
    mpfr_clear(t);
    mpz_clear(m);
}

/* (hi, lo) of reference.h by MPFR. */
static void mpfr_value(const double *g, const int64_t *d, int64_t n, double *hi, double *lo)
{
    mpfr_t S, q, r;
    mpz_t D;
    mpfr_init2(S, 64);
    mpz_init(D);
    exact_fraction(g, d, n, S, D);
    mpfr_init2(q, 53);
    mpfr_div_z(q, S, D, MPFR_RNDN);
    *hi = mpfr_get_d(q, MPFR_RNDN);
    mpfr_init2(r, mpfr_get_prec(S) + 53 + (mpfr_prec_t)mpz_sizeinbase(D, 2) + 8);
    mpfr_mul_z(r, q, D, MPFR_RNDN);     /* exact */
    mpfr_sub(r, S, r, MPFR_RNDN);       /* exact: S − hi·D */
    mpfr_set_prec(q, REF_LO_BITS);
    mpfr_div_z(q, r, D, MPFR_RNDN);
    *lo = mpfr_get_d(q, MPFR_RNDN);
    mpfr_clears(S, q, r, (mpfr_ptr)0);
    mpz_clear(D);
}

/* Fast path; 0 when Ziv's test cannot decide. */
static int fast_value(const double *g, const int64_t *d, int64_t n, double *hi, double *lo)
{
    ref_acc a = {{0, 0}, 0};
    bool same = true;
    for (int64_t i = 1; i < n; i++)
        same = same && d[i] == d[0];
    if (n > 0 && same) { /* one divisor: Σg exactly (error-free sums), then one division */
        for (int64_t i = 0; i < n; i++)
            ref_acc_add(&a, (ref_dd){g[i], 0}, 0);
        if (a.err == 0) {
            double dv = (double)d[0];
            double q = a.s.hi / dv;
            ref_dd r = ref_two_sum(fma(-q, dv, a.s.hi), a.s.lo); /* exact remainder */
            double q2 = (r.hi + r.lo) / dv;  /* ≤ 2 roundings: relative error ≤ 2^-52 */
            ref_dd s = ref_two_sum(q, q2);
            if (ref_decide(s, fabs(q2) * 0x1p-51 + (q2 != 0 ? REF_DD_TINY : 0), hi, lo))
                return 1;
        }
        a = (ref_acc){{0, 0}, 0};
    }
    for (int64_t i = 0; i < n; i++) {
        double dv = (double)d[i];
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
    int64_t cap = p->kh * p->kw;
    double *g = malloc((size_t)cap * sizeof *g);
    int64_t *d = malloc((size_t)cap * sizeof *d);
    if (!g || !d) {
        free(g);
        free(d);
        return -1;
    }
    int64_t n = element_terms(p, grad_output, index, g, d);
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
    return 0;
}

/* One element's answer; returns 1 when the fast path decided it. */
static int element(const ref_avgpool_params *p, const double *go, int64_t idx,
                   const ref_options *opt, double *g, int64_t *d, ref_value *v, uint8_t *flags)
{
    const bool force_mpfr = opt->force_mpfr;
    int64_t n = element_terms(p, go, idx, g, d);
    double sabs = 0, ieee = 0, wmin = n ? 1 : 0;
    bool finite = true;
    for (int64_t i = 0; i < n; i++) {
        double t = g[i] / (double)d[i];
        wmin = fmin(wmin, 1.0 / fabs((double)d[i])); /* 1/|d| rounded: only scales a term */
        finite = finite && isfinite(g[i]);
        if (ref_operand_overflows(&opt->path, g[i]))
            *flags |= REF_FLAG_OPERAND_OVERFLOW;
        ieee += t;
        sabs += fabs(t);
    }
    v->nterms = n;
    v->nops = 2; /* a quotient (or reciprocal and product), then the sum */
    v->coord_err = 0;
    v->min_weight = wmin * (1 - 0x1p-52);
    /* each |t| and partial sum rounded to nearest: n+1 factors (1 + 2^-53) at most */
    v->sum_abs = sabs * (1 + (double)(n + 2) * 0x1p-52);
    if (!finite) { /* IEEE: the device's sum of NaN/Inf terms, whatever the order */
        v->hi = ieee;
        v->lo = 0;
        v->sum_abs = INFINITY;
        *flags |= REF_FLAG_NONFINITE;
        return 1;
    }
    if (!force_mpfr && fast_value(g, d, n, &v->hi, &v->lo))
        return 1;
    mpfr_value(g, d, n, &v->hi, &v->lo);
    return 0;
}

int ref_avgpool2d_backward(const ref_avgpool_params *p, const double *grad_output,
                           ref_options *opt, ref_output *grad_input)
{
    if (!p || !grad_input || !params_ok(p) || (p->n * p->c * p->oh * p->ow > 0 && !grad_output))
        return -1;
    int64_t numel = p->n * p->c * p->h * p->w;
    if (ref_output_alloc(grad_input, numel) != 0)
        return -1;
    ref_options dflt = {0};
    if (!opt)
        opt = &dflt;
    int64_t hits = 0, falls = 0, cap = p->kh * p->kw;
    int nth = opt->threads > 0 ? opt->threads : 0;
    int fail = 0;
#pragma omp parallel num_threads(nth > 0 ? nth : omp_get_max_threads()) reduction(+ : hits, falls) reduction(| : fail)
    {
        double *g = malloc((size_t)cap * sizeof *g);
        int64_t *d = malloc((size_t)cap * sizeof *d);
        if (!g || !d)
            fail = 1;
#pragma omp for schedule(dynamic, 256)
        for (int64_t i = 0; i < numel; i++) {
            if (!g || !d)
                continue;
            if (element(p, grad_output, i, opt, g, d, &grad_input->v[i],
                        &grad_input->flags[i]))
                hits++;
            else
                falls++;
        }
        free(g);
        free(d);
    }
    opt->fast_hits += opt->force_mpfr ? 0 : hits;
    opt->mpfr_fallbacks += falls;
    if (fail) {
        ref_output_free(grad_input);
        return -1;
    }
    return 0;
}
