/* The bicubic mode's grid_grad (grid_bicubic.c's opening comment states the model and the
 * bound): both components of a point in one pass, Σ_k D_k·S_k from each tap's exact channel
 * sum S_k = Σ_c g·val. */
#include <stdlib.h>
#include <string.h>

#include "grid_bicubic.h"

/* An unresolved point's grid_grad on any branch: |mult·Σ_c g·Σ val·w'·w| ≤ mult·Σ_c |g|·max|val|
 * over the taps' reach·BC_SUM_DW·BC_SUM_W. False when a value there is not finite. */
static bool dgrid_reach_max(const bc_ctx *X, const bc_point *pt, int64_t n, int64_t pix,
                            double mult, double *m, double *pre)
{
    const ref_grid_params *p = X->p;
    int64_t x0, x1, y0, y1, hw_in = p->h_in * p->w_in, hw_out = p->h_out * p->w_out;
    bc_axis_range(&pt->ax[0], &x0, &x1);
    bc_axis_range(&pt->ax[1], &y0, &y1);
    double s = 0;
    for (int64_t c = 0; c < p->c; c++) {
        double g = X->go[(n * p->c + c) * hw_out + pix], mx = 0;
        const double *in = X->in + (n * p->c + c) * hw_in;
        for (int64_t yi = y0; yi <= y1; yi++)
            for (int64_t xi = x0; xi <= x1; xi++)
                mx = ref_fmax(mx, fabs(in[yi * p->w_in + xi]));
        if (!isfinite(g) || !isfinite(mx))
            return false;
        s += fabs(g) * mx;
    }
    *pre = s * BC_SUM_DW * BC_SUM_W * (1 + 0x1p-20); /* before the scale by mult */
    *m = *pre * mult;
    return isfinite(*m);
}

/* A grid_grad component's finite terms |g·val|·fx·fy·mult (dgrid_point's sabs) in units of
 * 2^REF_SUM_EXP, g scaled first (ref_set_sum_abs). */
typedef struct { const bc_ctx *X; const bc_point *pt; int64_t n, pix; int comp; double mult; } bc_dg_sum;
static double dgrid_sabs_scaled(const void *ctx)
{
    const bc_dg_sum *a = ctx;
    const ref_grid_params *p = a->X->p;
    const bc_axis *ax = &a->pt->ax[0], *ay = &a->pt->ax[1];
    int64_t hw_in = p->h_in * p->w_in, hw_out = p->h_out * p->w_out;
    double s = 0, down = ldexp(1, -REF_SUM_EXP);
    for (int64_t c = 0; c < p->c; c++) {
        double g = a->X->go[(a->n * p->c + c) * hw_out + a->pix] * down;
        const double *in = a->X->in + (a->n * p->c + c) * hw_in;
        for (int ky = 0; ky < 5; ky++)
            for (int kx = 0; kx < 5; kx++) {
                int64_t yi = ay->idx[ky], xi = ax->idx[kx];
                double val = yi < 0 || xi < 0 ? 0 : in[yi * p->w_in + xi];
                double fx = a->comp == 0 ? ax->dwd[kx] : ax->wd[kx];
                double fy = a->comp == 0 ? ay->wd[ky] : ay->dwd[ky];
                if (isfinite(g) && isfinite(val))
                    s += fabs(g * val) * fx * fy * a->mult;
            }
    }
    return s;
}

/* A tap's exact channel sum S_k = Σ_c g·val for grid_grad's fast path: each product's rounded
 * part summed error-free into s + c, its error (fma, exact) into e, and err bounds what those
 * sums dropped; nz counts the non-zero products. */
typedef struct { double s, c, e, err; int64_t nz; } bc_tapsum;

/* The taps' channel sums side by side, lane k % BC_LANES of the (k / BC_LANES)th tap k's
 * bc_tapsum (its fields as vectors); bad marks a lane whose product left the fast range (its
 * error not exact). */
typedef struct { bcv s, c, e, err; bcvi nz, bad; } bc_tapsum_lanes;

#define BCW 8
#include "grid_bicubic_tap_lanes.h"
#undef BCW
#define BCW 4
#include "grid_bicubic_tap_lanes.h"
#undef BCW

/* The block's tap sums at the width bc_lanes_wide picks. */
static void tapsums_block(bc_tapsum_lanes *SL, const double *gb, const double *vk, int64_t nc)
{
    if (bc_lanes_wide())
        tapsums_block_w8(SL, gb, vk, nc);
    else
        tapsums_block_w4(SL, gb, vk, nc);
}

/* Adds D·S_k (D = Dd within 2^-102 relative) to f with its bound: |D − Dd|·|S| + |Dd|·|S − Ŝ|
 * + dd_mul's 6u²·|Dd·Ŝ| ≤ 2^-100·|Dd.hi|·(|Ŝ.hi| + es) + 1.01·|Dd.hi|·es, es bounding |S − Ŝ|
 * (err, the last addition's rounding, and the roundings of err's own sum). */
static inline __attribute__((always_inline)) void tapsum_term(bc_fast *f, ref_dd d,
                                                              const bc_tapsum *t)
{
    if (!f->ok || d.hi == 0 || t->nz == 0)
        return; /* every product exactly 0 */
    f->nonzero += t->nz;
    ref_dd x = ref_two_sum(t->s, t->c);
    double lo = x.lo + t->e, es = (t->err + fabs(lo) * 0x1p-52) * (1 + 0x1p-20);
    ref_dd sk = ref_two_sum(x.hi, lo), prod = {0, 0};
    double ah = fabs(d.hi);
    if (sk.hi != 0) {
        prod = ref_dd_mul(d, sk);
        double m = fabs(prod.hi);
        if (!(m >= 0x1p-900 && m <= 0x1p900)) {
            f->ok = false;
            return;
        }
    }
    ref_acc_add(&f->a, prod, ah * (fabs(sk.hi) + es) * 0x1p-100 + ah * es * 1.01 + REF_DD_TINY);
}

/* The exact terms D[comp][k]·g·val of a grid_grad component into T (MPFR's sum): 0, −1 out of
 * memory. */
int bc_dgrid_terms(const bc_ctx *X, const bc_point *pt, int64_t n, int64_t pix, int comp,
                   bc_terms *T)
{
    const ref_grid_params *p = X->p;
    int64_t hw_in = p->h_in * p->w_in, hw_out = p->h_out * p->w_out;
    const bc_axis *ax = &pt->ax[0], *ay = &pt->ax[1];
    mpfr_ptr tx = bc_tmp(T, 0), ty = bc_tmp(T, 1);
    int rc = 0;
    for (int64_t c = 0; c < p->c && rc == 0; c++) {
        double g = X->go[(n * p->c + c) * hw_out + pix];
        const double *in = X->in + (n * p->c + c) * hw_in;
        for (int ky = 0; ky < 4 && rc == 0; ky++)
            for (int kx = 0; kx < 4 && rc == 0; kx++) {
                int64_t yi = ay->idx[ky], xi = ax->idx[kx];
                if (yi < 0 || xi < 0)
                    continue;
                /* D[comp] = dwx·wy·mult_x, wx·dwy·mult_y */
                double f[3] = {comp == 0 ? ax->mult : ay->mult, g, in[yi * p->w_in + xi]};
                mpfr_srcptr a = bc_coef(ax, kx, comp == 0, tx), b = bc_coef(ay, ky, comp == 1, ty);
                rc = bc_exact_term(T, a, b, f, 3);
            }
    }
    return rc;
}

/* The same exact value as bc_dgrid_terms' C·16 terms in at most 16, D[comp][k]·S_k, each tap's
 * channel sum S_k = Σ_c g·val exact (each product as two doubles, summed at the precision their
 * exponents span): where every g and val is finite and every product in the fast range (its
 * fast path's condition), so the sum is finite and only its value counts (bc_finish). 0, −1 out
 * of memory. */
static int dgrid_tap_terms(const bc_ctx *X, const bc_point *pt, int64_t n, int64_t pix, int comp,
                           bc_terms *T)
{
    const ref_grid_params *p = X->p;
    int64_t hw_in = p->h_in * p->w_in, hw_out = p->h_out * p->w_out;
    const bc_axis *ax = &pt->ax[0], *ay = &pt->ax[1];
    bc_terms P = {0};
    mpfr_t s;
    mpfr_ptr tx = bc_tmp(T, 0), ty = bc_tmp(T, 1);
    mpfr_init2(s, 64);
    int rc = 0;
    for (int ky = 0; ky < 4 && rc == 0; ky++)
        for (int kx = 0; kx < 4 && rc == 0; kx++) {
            int64_t yi = ay->idx[ky], xi = ax->idx[kx];
            if (yi < 0 || xi < 0)
                continue;
            P.n = 0;
            mpfr_exp_t lo = MPFR_EMAX_MAX, hi = MPFR_EMIN_MIN;
            for (int64_t c = 0; c < p->c && rc == 0; c++) {
                double g = X->go[(n * p->c + c) * hw_out + pix];
                double val = X->in[(n * p->c + c) * hw_in + yi * p->w_in + xi];
                if (g == 0 || val == 0)
                    continue;
                /* g·val = pr + er exactly: |pr| ≥ 2^-900 (the fast range), so fma's er is
                 * exact; two doubles set exactly (one MPFR product each cost three times) */
                double pr = g * val, er = fma(g, val, -pr), part[2] = {pr, er};
                for (int j = 0; j < 2 && rc == 0; j++) {
                    mpfr_ptr t = part[j] != 0 ? bc_term(&P, 53) : NULL;
                    if (part[j] != 0 && !t)
                        rc = -1;
                    if (!t)
                        continue;
                    mpfr_set_d(t, part[j], MPFR_RNDN);
                    lo = mpfr_get_exp(t) < lo ? mpfr_get_exp(t) : lo;
                    hi = mpfr_get_exp(t) > hi ? mpfr_get_exp(t) : hi;
                }
            }
            if (rc != 0 || P.n == 0)
                continue; /* S_k = 0: no term */
            mpfr_set_prec(s, (mpfr_prec_t)(hi - lo) + 53 + 64); /* exact: < 2^63 terms */
            mpfr_sum(s, P.ptr, (unsigned long)P.n, MPFR_RNDN);
            mpfr_srcptr a = bc_coef(ax, kx, comp == 0, tx), b = bc_coef(ay, ky, comp == 1, ty);
            double m = comp == 0 ? ax->mult : ay->mult;
            if (bc_exact_term(T, a, b, &m, 1) != 0) {
                rc = -1;
                break;
            }
            mpfr_ptr t = T->ptr[T->n - 1];
            mpfr_prec_round(t, mpfr_get_prec(t) + mpfr_get_prec(s), MPFR_RNDN); /* more bits */
            mpfr_mul(t, t, s, MPFR_RNDN);
        }
    mpfr_clear(s);
    bc_terms_free(&P);
    return rc;
}

/* One grid_grad component's bound data, summed term by term over channels, then taps. */
typedef struct {
    double mult, sabs, spre, cerr, under;
    bool unsure;
} bc_dgbound;

/* A tap of a point with what no channel changes: its input offset, and per component its
 * factors (fx, fy), their errors (ex, ey), fx + ex, fy + ey and ex·fy + fx·ey + ex·ey (the
 * coordinate term's), each formed as bc_dgrid_point's sums always formed them. */
typedef struct {
    int64_t off;
    int k;              /* ky·4 + kx; −1 a ghost tap (bound only) */
    bool ghost_x, ghost_y;
    double fx[2], fy[2], ex[2], ey[2], px[2], py[2], q[2];
} bc_dgtap;

static int dgrid_taps(const ref_grid_params *p, const bc_point *pt, bc_dgtap *tp)
{
    const bc_axis *ax = &pt->ax[0], *ay = &pt->ax[1];
    int nt = 0;
    for (int ky = 0; ky < 5; ky++)
        for (int kx = 0; kx < 5; kx++) {
            int64_t yi = ay->idx[ky], xi = ax->idx[kx];
            if (yi < 0 || xi < 0)
                continue;
            bc_dgtap *t = &tp[nt++];
            t->off = yi * p->w_in + xi;
            t->ghost_x = kx == 4;
            t->ghost_y = ky == 4;
            t->k = kx == 4 || ky == 4 ? -1 : ky * 4 + kx;
            for (int cm = 0; cm < 2; cm++) { /* comp 0: dwx·wy, comp 1: wx·dwy */
                t->fx[cm] = cm == 0 ? ax->dwd[kx] : ax->wd[kx];
                t->fy[cm] = cm == 0 ? ay->wd[ky] : ay->dwd[ky];
                t->ex[cm] = cm == 0 ? ax->edw : ax->ew;
                t->ey[cm] = cm == 0 ? ay->ew : ay->edw;
                t->px[cm] = t->fx[cm] + t->ex[cm];
                t->py[cm] = t->fy[cm] + t->ey[cm];
                t->q[cm] = t->ex[cm] * t->fy[cm] + t->fx[cm] * t->ey[cm] + t->ex[cm] * t->ey[cm];
            }
        }
    return nt;
}

/* A component's value, bound and flags from its bound data B (nt terms) and the fast sum F
 * (MPFR's terms where it does not decide): 1 when the fast path decided it, 0 MPFR, −1 out of
 * memory. */
static int dgrid_finish(const bc_ctx *X, const bc_point *pt, int64_t n, int64_t pix, int comp,
                        bc_dgbound *B, const bc_fast *F, bc_terms *T, ref_value *v, uint8_t *fl,
                        double *ival)
{
    const bc_axis *ax = &pt->ax[0], *ay = &pt->ax[1];
    T->n = 0;
    bool decided = bc_fast_done(F, v);
    if (!decided && (F->ok ? dgrid_tap_terms(X, pt, n, pix, comp, T)
                           : bc_dgrid_terms(X, pt, n, pix, comp, T)) != 0)
        return -1;
    double k = 1 + (double)(v->nterms + 8) * 0x1p-52;
    if (isnan(B->sabs + B->cerr + B->under)) /* ∞·0 of an overflowing |g·val| and a zero weight */
        B->sabs = B->cerr = B->under = B->spre = INFINITY;
    bc_dg_sum sum_of = {X, pt, n, pix, comp, B->mult};
    ref_set_sum_abs(v, B->sabs, k, dgrid_sabs_scaled, &sum_of);
    v->coord_err = B->cerr * k;
    v->under_mag = bc_under_grow(B->under, v->nterms + 8); /* B->under·k */
    bc_finish(T, v, fl, B->unsure, X->ovf, B->spre * k, decided);
    double m, pre;
    if ((ax->unres || ay->unres) && !(*fl & REF_FLAG_UNCHECKABLE)) {
        /* any branch's value lies in [−m, m]: offsets from the exact value, outwards (a
         * non-finite exact value: unjudged, the branch may miss its taps) */
        if (ival && isfinite(v->hi) && !(*fl & REF_FLAG_NONFINITE) &&
            dgrid_reach_max(X, pt, n, pix, B->mult, &m, &pre)) {
            /* the unknown taps' products and sums may pass the range too (before the scale
             * by mult, which may be 0: ∞·0) */
            *fl |= REF_FLAG_INTERVAL | (ref_fmax(m, pre) > X->ovf / 4 ? REF_FLAG_RANGE : 0);
            ival[0] = (-m - v->hi) * (1 + 0x1p-50) - 0x1p-1074;
            ival[1] = (m - v->hi) * (1 + 0x1p-50) + 0x1p-1074;
            ival[0] = ref_fmin(ival[0], 0);
            ival[1] = ref_fmax(ival[1], 0);
        } else {
            *fl |= REF_FLAG_UNCHECKABLE;
        }
    }
    return decided;
}

typedef double v2d __attribute__((vector_size(16)));

/* Whether nc channels' g (gb) and taps' values (tap i's channel j at rv[i][j·vs], nt taps)
 * are all at most 1 in magnitude (NaN and ±inf are not): |x|'s bits plus 2^63 − 1 − 1.0's bits
 * pass 2^63 exactly where |x| > 1 (NaN's bits above ∞'s), or-ed together (no branch a value). */
static bool all_unit(const double *gb, const double *const *rv, int64_t vs, int nt, int64_t nc)
{
    const uint64_t k = INT64_MAX - ref_bits_of(1.0);
    uint64_t acc = 0;
    for (int64_t j = 0; j < nc; j++)
        acc |= (ref_bits_of(gb[j]) & INT64_MAX) + k;
    for (int i = 0; i < nt; i++)
        for (int64_t j = 0; j < nc; j++)
            acc |= (ref_bits_of(rv[i][j * vs]) & INT64_MAX) + k;
    return !(acc >> 63);
}

/* A term's |g·val| = a into both components' bound sums, each the same IEEE operations in the
 * same order as one component alone: Σ|terms|, the pre-rounding sum, the coefficients' error. */
static inline __attribute__((always_inline)) void tap_bound_add(const bc_dgtap *t, double a,
                                                                v2d mult, v2d *sabs, v2d *spre,
                                                                v2d *cerr)
{
    v2d av = {a, a}, fx, fy, px, py, q;
    memcpy(&fx, t->fx, sizeof fx);
    memcpy(&fy, t->fy, sizeof fy);
    memcpy(&px, t->px, sizeof px);
    memcpy(&py, t->py, sizeof py);
    memcpy(&q, t->q, sizeof q);
    *sabs += av * fx * fy * mult;
    *spre += av * px * py;
    *cerr += av * mult * q;
}

/* A grid_grad term's underflow part (g, val finite): max(1, |g|)·REF_UNDER_SCALE·max(1, |val|)·2,
 * then × umul, in units of 2^-1074 where unit_mul shows the products exact. */
static inline __attribute__((always_inline)) double under_term(double g, double val, double umul)
{
    double y;
    if (unit_under(fabs(g), &y) && unit_mul(&y, ref_fmax(1, fabs(val))) &&
        unit_mul(&y, 2) && unit_mul(&y, umul))
        return unit_value(y);
    return ref_fmax(1, fabs(g)) * REF_UNDER_SCALE * ref_fmax(1, fabs(val)) * 2 * umul;
}

/* The taps' values of channels c .. c + nb − 1 (nt taps tp, the 16 at koff, −1 absent) into vk
 * (16 a channel, 0 where absent) and, without X->it, vb (25 a channel): from X->it where set (a
 * tap's channels in a row, which the bound sums read in place), else a plane at a time (a cache
 * miss a value: the taps are scattered over C planes). */
static void gather_block(const bc_ctx *X, int64_t n, int64_t c, int64_t nb, const bc_dgtap *tp,
                         int nt, const int64_t *koff, double *vb, double *vk)
{
    const ref_grid_params *p = X->p;
    int64_t hw_in = p->h_in * p->w_in;
    if (X->it) {
        for (int k = 0; k < 16; k++) {
            const double *src = koff[k] >= 0 ? X->it + koff[k] * X->its + c : NULL;
            for (int64_t j = 0; j < nb; j++)
                vk[j * 16 + k] = src ? src[j] : 0;
        }
        return;
    }
    for (int64_t j = 0; j < nb; j++) {
        const double *in = X->in + (n * p->c + c + j) * hw_in;
        for (int i = 0; i < nt; i++)
            vb[j * 25 + i] = in[tp[i].off];
        for (int k = 0; k < 16; k++)
            vk[j * 16 + k] = koff[k] >= 0 ? in[koff[k]] : 0;
    }
}

/* grid_grad of one point, both components (v[0], v[1], their flags and intervals, ival NULL or
 * 4 doubles), in one pass over its channels and taps: each component's bound data summed in
 * the same order, term by term, and the taps' channel sums S_k, which the fast path multiplies
 * by D[comp][k] (16 products a component instead of one a channel and tap). The number of
 * components the fast path decided, or −1 out of memory. Compiled for each target as
 * grid_values.h's GRID_CLONES says: the same IEEE operations, and fma an instruction where the
 * CPU has one (the baseline calls libm's, a call a product). */
GRID_CLONES
int bc_dgrid_point(const bc_ctx *X, const bc_point *pt, int64_t n, int64_t pix, bc_terms *T,
                   ref_value *v, uint8_t *fl, double *ival)
{
    const ref_grid_params *p = X->p;
    int64_t hw_out = p->h_out * p->w_out;
    for (int cm = 0; cm < 2; cm++) {
        memset(&v[cm], 0, sizeof v[cm]);
        fl[cm] = 0;
        v[cm].nops = 5;
    }
    T->n = 0;
    if (pt->out)
        return 0;
    bc_dgtap tp[25];
    int nt = dgrid_taps(p, pt, tp);
    bc_dgbound B[2] = {{.mult = fabs(pt->ax[0].mult)}, {.mult = fabs(pt->ax[1].mult)}};
    double umul[2] = {ref_fmax(1, B[0].mult), ref_fmax(1, B[1].mult)};
    double unit1[2]; /* a term's underflow part where |g|, |val| ≤ 1 (the max(1, ·) are 1) */
    for (int cm = 0; cm < 2; cm++)
        unit1[cm] = under_term(1, 1, umul[cm]);
    bc_tapsum_lanes SL[16 / BC_LANES];
    memset(SL, 0, sizeof SL);
    int64_t koff[16]; /* tap k's input offset, −1 absent */
    for (int k = 0; k < 16; k++)
        koff[k] = -1;
    for (int i = 0; i < nt; i++)
        if (tp[i].k >= 0)
            koff[tp[i].k] = tp[i].off;
    bool fast = !X->force && pt->dd;
    /* both components' bound sums side by side, lane cm the same IEEE operations in the same
     * order as one at a time */
    v2d sabs = {0, 0}, spre = {0, 0}, cerr = {0, 0}, under = {0, 0};
    v2d mult = {B[0].mult, B[1].mult}, un1 = {unit1[0], unit1[1]};
    /* a block of channels' values gathered first: loads free of the sums' chains overlap their
     * cache misses (the taps of random coordinates are scattered over C planes) */
    enum { CB = 32 };
    double gb[CB] = {0}, vb[CB * 25], vk[CB * 16]; /* vk: by tap k, 0 where absent */
    const double *rv[25]; /* tap i's value of the block's channel j at rv[i][j·vs] */
    int64_t vs = X->it ? 1 : 25;
    bool ones = false; /* every g and val of the block at most 1 in magnitude (finite) */
    for (int64_t c = 0; c < p->c; c++) {
        int64_t cb = c % CB;
        if (cb == 0) {
            int64_t nb = p->c - c < CB ? p->c - c : CB;
            for (int64_t j = 0; j < nb; j++) /* channel-innermost where set (X->gt) */
                gb[j] = X->gt ? X->gt[pix * X->its + c + j]
                              : X->go[(n * p->c + c + j) * hw_out + pix];
            gather_block(X, n, c, nb, tp, nt, koff, vb, vk);
            for (int i = 0; i < nt; i++)
                rv[i] = X->it ? X->it + tp[i].off * X->its + c : vb + i;
            ones = all_unit(gb, rv, vs, nt, nb);
        }
        double g = gb[cb];
        int64_t o = cb * vs;
        if (ones) { /* the loop below where every test holds: finite, not big, ones */
            for (int i = 0; i < nt; i++) {
                tap_bound_add(&tp[i], fabs(g * rv[i][o]), mult, &sabs, &spre, &cerr);
                under += un1;
            }
            if (fast && (cb == CB - 1 || c == p->c - 1))
                tapsums_block(SL, gb, vk, cb + 1);
            continue;
        }
        for (int i = 0; i < nt; i++) {
            const bc_dgtap *t = &tp[i];
            double val = rv[i][o], a = fabs(g * val);
            if (!isfinite(g) || !isfinite(val)) {
                double fin = (isfinite(g) ? fabs(g) : 1) * (isfinite(val) ? fabs(val) : 1);
                bool nan = isnan(g) || isnan(val);
                for (int cm = 0; cm < 2; cm++)
                    B[cm].unsure = B[cm].unsure ||
                                   bc_class_unsure(nan, fin, t->fx[cm], t->ex[cm], t->ghost_x,
                                                t->fy[cm], t->ey[cm], t->ghost_y, X->tiny);
                fast = false;
                continue;
            }
            /* val·(dw·w)·g in any order: |dw·w| ≤ 3/2 (and its error) */
            bool big = 2 * ref_fmax(a, ref_fmax(fabs(g), fabs(val))) > X->ovf;
            bool ones = fabs(g) <= 1 && fabs(val) <= 1;
            tap_bound_add(t, a, mult, &sabs, &spre, &cerr);
            under += ones ? un1 : (v2d){under_term(g, val, umul[0]), under_term(g, val, umul[1])};
            if (big)
                spre = (v2d){INFINITY, INFINITY}; /* a partial product may overflow */
        }
        if (fast && (cb == CB - 1 || c == p->c - 1)) /* the block's g·val all finite */
            tapsums_block(SL, gb, vk, cb + 1);
    }
    bc_tapsum S[16];
    for (int k = 0; k < 16; k++) {
        const bc_tapsum_lanes *L = &SL[k / BC_LANES];
        int l = k % BC_LANES;
        fast = fast && !L->bad[l];
        S[k] = (bc_tapsum){L->s[l], L->c[l], L->e[l], L->err[l], L->nz[l]};
    }
    int decided = 0;
    for (int cm = 0; cm < 2; cm++) {
        B[cm].sabs = sabs[cm];
        B[cm].spre = spre[cm];
        B[cm].cerr = cerr[cm];
        B[cm].under = under[cm];
    }
    for (int cm = 0; cm < 2; cm++) {
        v[cm].nterms = nt * p->c;
        bc_fast F = {.ok = fast};
        for (int k = 0; k < 16; k++)
            tapsum_term(&F, pt->Dd[cm][k], &S[k]);
        int r = dgrid_finish(X, pt, n, pix, cm, &B[cm], &F, T, &v[cm], &fl[cm],
                             ival ? ival + 2 * cm : NULL);
        if (r < 0)
            return -1;
        decided += r;
    }
    return decided;
}
