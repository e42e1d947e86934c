/* grid_grad of one grid point (dgrid): its data gathered in one pass over the channels, the
 * value of each component under every combination of its axes' outcomes (fast, else MPFR), the
 * alternatives those give, and the interval of an unresolvable point. */
#include "grid_values.h"

void grid_dgrid_comp_init(const gctx *G, const gpoint *pt, const grid_outcome *ox,
                          const grid_outcome *oy, const dgrid_gather *D, int comp, dgrid_comp *q)
{
    const grid_outcome *ow = comp == 0 ? oy : ox; /* the weight's axis */
    /* every field set one by one (a memset of the struct was a rep stos, slow to start: a
     * quarter of this function's time on the bench's grid case) */
    q->pre = q->sabs = q->mag = q->cerr = 0;
    q->nt = 0;
    for (int k = 0; k < 4; k++) {
        q->sgn[k] = 0;
        q->wk[k] = NULL;
        q->skip[k] = false;
    }
    q->ow = ow;
    q->mult = comp == 0 ? ox->mult : oy->mult;
    q->scale = factor(G->p, comp) * q->mult;
    q->dl = pt->ax[comp == 0 ? 1 : 0].delta * pt->ax[comp == 0 ? 1 : 0].sens;
    q->mscale = ref_fmax(1, fabs(q->scale));
    for (int k = 0; k < D->nc; k++) {
        q->sgn[k] = (comp == 0 ? D->cs[k].kx : D->cs[k].ky) ? 1 : -1;
        q->wk[k] = wdd(ow, comp == 0 ? D->cs[k].ky : D->cs[k].kx);
        /* a weight exactly 0 on the device too (no coordinate error): the term is 0 there, or
         * NaN through val·g = ∞ (RANGE); it adds no rounding or underflow to bound */
        q->skip[k] = q->mult == 0 || (q->dl == 0 && q->wk[k]->hi == 0 && q->wk[k]->lo == 0 &&
                                      !ow->dd_inexact);
    }
}


/* Two lanes as one GCC vector of the SSE2 width (built from and read into scalars without a
 * trip through memory): dgrid's corners, (0, 1) and (2, 3). */
typedef double v2d __attribute__((vector_size(16)));
typedef int64_t v2i __attribute__((vector_size(16)));
#define V2_ABS(x) ((v2d)((v2i)(x) & INT64_MAX))

static inline void v2_exact_add(v2d *s, v2d *c, v2d *err, v2d x)
{
    v2d t = *s + x, tb = t - *s, tl = (*s - (t - tb)) + (x - tb);
    v2d u = *c + tl, ub = u - *c, ul = (*c - (u - ub)) + (tl - ub);
    *s = t;
    *c = u;
    *err += V2_ABS(ul);
}

/* dgrid_fill's magnitudes as sums of scaled terms (the unit REF_UNDER_SCALE of every product's
 * first factor), in its order: where the unscaled ones leave the double range. */
static void dgrid_mag_scaled(const gctx *G, const dgrid_gather *D, double mag[2])
{
    mag[0] = mag[1] = 0;
    for (int64_t c = 0; c < G->p->c && D->nc > 0; c++) {
        double mg = ref_fmax(1, fabs(D->gb[c * D->go_cs])) * REF_UNDER_SCALE;
        for (int comp = 0; comp < 2; comp++)
            for (int k = 0; k < D->nc; k++)
                if (!D->comp[comp].skip[k])
                    mag[comp] += ref_fmax(1, fabs(D->vb[k][c * D->in_cs])) * mg *
                                 D->comp[comp].mscale;
    }
}

/* One pass over the point's channels fills D, the corners as the lanes of two vectors (lanes
 * past nc read corner 0 and are never used); every sum keeps channel-then-corner order.
 * lean (grid_dgrid_lean): the data are plain and no intermediate can come near the overflow
 * threshold, so the terms are finite, the products exact and clear, and pmax and pre (which
 * only decide REF_FLAG_RANGE) are left 0: that flag stays unset either way. */
static inline __attribute__((always_inline)) void
dgrid_fill(const gctx *G, const batch_view *bv, int64_t pix, dgrid_gather *D, bool lean)
{
    const ref_grid_params *p = G->p;
    int nc = D->nc;
    D->finite = true;
    D->gb = bv->go + pix * bv->go_is;
    D->go_cs = bv->go_cs;
    D->in_cs = bv->in_cs;
    for (int k = 0; k < nc; k++)
        D->vb[k] = bv->in + D->cs[k].e * bv->in_is;
    for (int k = nc; k < 4; k++)
        D->vb[k] = D->vb[0];
    const v2d one = {1, 1}, tiny = {0x1p-968, 0x1p-968}, zero = {0, 0};
    const v2i all = {-1, -1}, none = {0, 0};
    v2d w[2][2], S[2] = {zero, zero}, Sc[2] = {zero, zero}, Serr[2] = {zero, zero};
    v2i clear[2] = {all, all};
    for (int comp = 0; comp < 2; comp++)
        for (int h = 0; h < 2; h++)
            w[comp][h] = (v2d){2 * h < nc ? D->comp[comp].wk[2 * h]->hi : 0,
                               2 * h + 1 < nc ? D->comp[comp].wk[2 * h + 1]->hi : 0};
    /* the components' sums in locals (registers), not through D */
    double pmax = 0, pre[2] = {0, 0}, mag[2] = {0, 0}, sabs[2] = {0, 0}, cerr[2] = {0, 0};
    bool skip[2][4], cerr_on[2] = {D->comp[0].dl > 0, D->comp[1].dl > 0};
    for (int comp = 0; comp < 2; comp++)
        for (int k = 0; k < 4; k++)
            skip[comp][k] = D->comp[comp].skip[k];
    for (int64_t c = 0; c < p->c && nc == 0; c++) /* no corner: vsum = 0 */
        pmax = ref_fmax(pmax, ref_fmax(0, 0 * fabs(D->gb[c * D->go_cs])));
    for (int64_t c = 0; c < p->c && nc > 0; c++) {
        double g = D->gb[c * D->go_cs], mg = grid_under_round1(ref_fmax(1, fabs(g))), vsum = 0;
        int64_t at = c * D->in_cs;
        v2d val[2] = {{D->vb[0][at], D->vb[1][at]}, {D->vb[2][at], D->vb[3][at]}};
        v2d vg[2] = {val[0] * g, val[1] * g};
        v2d aval[2] = {V2_ABS(val[0]), V2_ABS(val[1])}, avg[2] = {V2_ABS(vg[0]), V2_ABS(vg[1])};
        bool fin = isfinite(g);
        for (int k = 0; k < nc && !lean; k++) {
            vsum += aval[k / 2][k % 2];
            pmax = ref_fmax(pmax, avg[k / 2][k % 2]);
            fin = fin && isfinite(val[k / 2][k % 2]); /* only terms count */
        }
        D->finite = D->finite && fin;
        if (lean) {
            v2_exact_add(&S[0], &Sc[0], &Serr[0], vg[0]);
            v2_exact_add(&S[1], &Sc[1], &Serr[1], vg[1]);
        } else if (!G->force) {
            /* exact products (fma's remainder where a factor has more than 26 bits), unless
             * underflow */
            v2d e[2] = {zero, zero};
            bool has_e = false;
            v2i lowbits = ((v2i)val[0] | (v2i)val[1]) & 0x7ffffff;
            if (!ref_short(g) || lowbits[0] || lowbits[1])
                for (int k = 0; k < nc; k++) {
                    double vk = val[k / 2][k % 2];
                    e[k / 2][k % 2] = ref_short(vk) && ref_short(g) ? 0 : fma(vk, g, -vg[k / 2][k % 2]);
                    has_e = has_e || e[k / 2][k % 2] != 0;
                }
            v2i gzero = g == 0 ? all : none;
            for (int h = 0; h < 2; h++) {
                v2_exact_add(&S[h], &Sc[h], &Serr[h], vg[h]);
                if (has_e) /* adding 0 to a lane leaves its sum as it is */
                    v2_exact_add(&S[h], &Sc[h], &Serr[h], e[h]);
                clear[h] &= (val[h] == zero) | gzero | (avg[h] >= tiny);
            }
        }
        v2d gm[2]; /* unscaled (grid_under_round1) */
        for (int h = 0; h < 2; h++) {
            v2i big = aval[h] >= one; /* ref_fmax(1, |val|): 1 for a NaN */
            gm[h] = (v2d)(((v2i)aval[h] & big) | ((v2i)one & ~big));
            for (int i = 0; i < 2; i++)
                gm[h][i] = grid_under_mul1(gm[h][i], mg);
        }
#pragma GCC unroll 2
        for (int comp = 0; comp < 2; comp++) {
            const dgrid_comp *q = &D->comp[comp];
            v2d at_[2], ats[2], gms[2], vgs[2];
            for (int h = 0; h < 2; h++) {
                v2d t = val[h] * (g * w[comp][h]); /* a zero weight gives 0, not (val·g = ∞)·0 */
                at_[h] = V2_ABS(t);
                ats[h] = V2_ABS(t * q->scale);
                for (int i = 0; i < 2; i++)
                    gms[h][i] = grid_under_mul1(gm[h][i], q->mscale);
                vgs[h] = V2_ABS(vg[h] * q->scale) * q->dl;
            }
            for (int k = 0; k < nc; k++) {
                if (!lean)
                    pre[comp] += at_[k / 2][k % 2];
                if (skip[comp][k])
                    continue;
                mag[comp] += gms[k / 2][k % 2];
                sabs[comp] += ats[k / 2][k % 2];
                if (cerr_on[comp]) /* exact coordinates: none (and no inf·0 when val·g overflows) */
                    cerr[comp] += vgs[k / 2][k % 2];
            }
        }
        /* PyTorch's form (ne − nw)·w·g: a difference of corner values, then times g */
        if (!lean)
            pmax = ref_fmax(pmax, ref_fmax(vsum, vsum * fabs(g)));
    }
    D->pmax = pmax;
    if (!(mag[0] < INFINITY && mag[1] < INFINITY)) /* past the range unscaled (or ∞ terms) */
        dgrid_mag_scaled(G, D, mag);
    else
        for (int comp = 0; comp < 2; comp++)
            mag[comp] = grid_under_scaled1(mag[comp]);
    for (int comp = 0; comp < 2; comp++) {
        dgrid_comp *q = &D->comp[comp];
        q->pre = pre[comp];
        q->mag = mag[comp];
        q->sabs = sabs[comp];
        q->cerr = cerr[comp];
        for (int k = 0; k < nc; k++)
            q->nt += q->skip[k] ? 0 : p->c;
    }
    for (int k = 0; k < 4; k++) /* an underflowed product is undecidable: the MPFR path */
        D->S[k] = k >= nc ? (ref_acc){{0, 0}, 0}
                          : (ref_acc){ref_two_sum(S[k / 2][k % 2], Sc[k / 2][k % 2]),
                                      clear[k / 2][k % 2] ? Serr[k / 2][k % 2] : INFINITY};
}

/* Whether a point's fill may be lean: plain data, and every intermediate the range check looks
 * at below half the overflow threshold. With V, G the largest |input|, |gradOutput| and W the
 * largest weight: |val·g| ≤ VG, vsum ≤ 4V, vsum·|g| ≤ 4VG, each term of pre and sabs at most
 * VG·W·max(1, |scale|) rounded 3 times, their sums of 4C terms rounded once each: all below
 * B = 4·V·max(1, G)·max(1, C·W·max(1, |scale|))·(1 + (4C + 8)·2^-52). */
static bool lean_bound(const gctx *G, const batch_view *bv, double w, double sc)
{
    double C = (double)G->p->c;
    double B = 4 * bv->max_in * ref_fmax(1, bv->max_go) * ref_fmax(1, C * w * sc) *
               (1 + (4 * C + 8) * 0x1p-52);
    return B * 2 < G->overflow_at;
}

bool grid_dgrid_lean(const gctx *G, const batch_view *bv, const dgrid_gather *D)
{
    if (!bv->plain || G->force)
        return false;
    if (bv->lean_all)
        return true;
    double w = 0, sc = 1;
    for (int comp = 0; comp < 2; comp++) {
        sc = ref_fmax(sc, fabs(D->comp[comp].scale));
        for (int k = 0; k < D->nc; k++)
            w = ref_fmax(w, fabs(D->comp[comp].wk[k]->hi));
    }
    return lean_bound(G, bv, w, sc);
}

/* Whether every point of the batch is lean (grid_dgrid_lean) by the bound's largest W and |scale|:
 * bilinear weights lie in [0, 1] on every branch, |scale| = factor·|mult| ≤ factor; the bound
 * grows with both (rounding is monotone), so no point's own is larger. */
bool grid_dgrid_lean_all(const gctx *G, const batch_view *bv)
{
    double sc = ref_fmax(1, ref_fmax(fabs(factor(G->p, 0)), fabs(factor(G->p, 1))));
    return bv->plain && !G->force && lean_bound(G, bv, 1, sc);
}

static void dgrid_gather_fill(const gctx *G, const batch_view *bv, const gpoint *pt, int64_t pix,
                              const grid_outcome *ox, const grid_outcome *oy, dgrid_gather *D)
{
    D->nc = corners(G->p, ox, oy, D->cs);
    grid_dgrid_comp_init(G, pt, ox, oy, D, 0, &D->comp[0]);
    grid_dgrid_comp_init(G, pt, ox, oy, D, 1, &D->comp[1]);
    if (grid_dgrid_lean(G, bv, D))
        dgrid_fill(G, bv, pix, D, true);
    else
        dgrid_fill(G, bv, pix, D, false);
}

/* The class of component q's non-finite terms (PyTorch: gix accumulated, then times gix_mult,
 * the scale). */
static ref_nfclass dgrid_nfclass(const ref_grid_params *p, const dgrid_gather *D,
                                 const dgrid_comp *q, bool primary, bool *may_nan)
{
    ref_nfclass cls = {0};
    for (int64_t c = 0; c < p->c; c++)
        for (int k = 0; k < D->nc; k++) {
            /* the primary's class is the exact value's; another branch's is a device's there */
            bool mz = false;
            double w = grid_wclass(q->wk[k]->hi, q->dl, &mz);
            double f[5] = {(double)q->sgn[k], D->vb[k][c * D->in_cs], D->gb[c * D->go_cs],
                           primary ? q->wk[k]->hi : w, q->scale};
            ref_nf_term(&cls, f, 5);
            *may_nan = *may_nan || (mz && (!isfinite(f[1]) || !isfinite(f[2])));
        }
    return cls;
}

/* Adds (x.hi + x.lo)·(y.hi + y.lo)·z to a as exact doubles (an exact value halfway between
 * doubles stays decidable) when every partial product splits exactly; else 0, a untouched. */
static int exact_terms(ref_acc *a, ref_dd x, ref_dd y, double z)
{
    double part[8];
    int np = 0;
    const double xs[2] = {x.hi, x.lo}, ys[2] = {y.hi, y.lo};
    /* z = ±2^k (a scale size/2 often is): a product by z clear of underflow is exact unless it
     * overflows, no fma needed to see it */
    uint64_t zb = ref_bits_of(z);
    int ze = (int)(zb >> 52 & 0x7ff);
    bool zpow2 = (zb & ((UINT64_C(1) << 52) - 1)) == 0 && ze != 0 && ze != 0x7ff;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            if (xs[i] == 0 || ys[j] == 0)
                continue;
            double p = xs[i] * ys[j], f = fma(xs[i], ys[j], -p), pz = p * z, fz = f * z;
            if (!ref_prod_clear(xs[i], ys[j], p) || !ref_prod_clear(p, z, pz) ||
                !ref_prod_clear(f, z, fz) || (zpow2 ? !isfinite(pz) : fma(p, z, -pz) != 0) ||
                (zpow2 ? !isfinite(fz) : fma(f, z, -fz) != 0))
                return 0;
            part[np++] = pz;
            part[np++] = fz;
        }
    for (int i = 0; i < np; i++)
        if (part[i] != 0)
            ref_acc_add(a, (ref_dd){part[i], 0}, 0);
    return 1;
}

/* A component's Σ|terms| (dgrid_fill's sabs) in units of 2^REF_SUM_EXP, the same roundings with
 * g scaled first (ref_set_sum_abs). */
typedef struct { const ref_grid_params *p; const dgrid_gather *D; const dgrid_comp *q; } dgrid_sum_of;
static double dgrid_sabs_scaled(const void *ctx)
{
    const dgrid_sum_of *a = ctx;
    double s = 0, down = ldexp(1, -REF_SUM_EXP);
    for (int64_t c = 0; c < a->p->c; c++) {
        double g = a->D->gb[c * a->D->go_cs] * down;
        for (int k = 0; k < a->D->nc; k++)
            if (!a->q->skip[k])
                s += fabs(a->D->vb[k][c * a->D->in_cs] * (g * a->q->wk[k]->hi) * a->q->scale);
    }
    return s;
}

/* One dgrid component of a point from its data D under one branch (primary: the exact
 * coordinate's). Returns 1 if decided fast. */
static int dgrid_value(const gctx *G, const dgrid_gather *D, int comp, bool primary, mterms *mt,
                       ref_value *v, uint8_t *flags)
{
    const ref_grid_params *p = G->p;
    const dgrid_comp *q = &D->comp[comp];
    int nc = D->nc;
    memset(v, 0, sizeof *v);
    v->nops = 4;
    v->nterms = q->nt;
    dgrid_sum_of sum_of = {p, D, q};
    if (D->finite)
        ref_set_sum_abs(v, q->sabs, 1 + (double)(q->nt + 6) * 0x1p-52, dgrid_sabs_scaled, &sum_of);
    else
        v->sum_abs = q->sabs * (1 + (double)(q->nt + 6) * 0x1p-52);
    v->coord_err = q->cerr * (1 + 0x1p-40);
    v->under_mag = grid_under_grow(q->mag);
    /* FP32 (double) products val·g, corner differences, the sum before and after the scale: past
     * the working range an intermediate overflows (and ∞ − ∞ or ∞·0 follow) though the exact
     * value is finite */
    if (ref_fmax(D->pmax, ref_fmax(q->pre, q->sabs)) * (1 + 0x1p-40) > G->overflow_at)
        *flags |= REF_FLAG_RANGE;
    bool may_nan = false;
    ref_nfclass cls = D->finite ? (ref_nfclass){0} : dgrid_nfclass(p, D, q, primary, &may_nan);
    if (may_nan) /* a device's weight 0 against an infinite factor: NaN legal besides */
        *flags |= REF_FLAG_RANGE;
    if (ref_nf_any(&cls)) {
        v->hi = ref_nf_value(&cls);
        v->lo = 0;
        v->sum_abs = INFINITY;
        *flags |= REF_FLAG_NONFINITE;
        return 1;
    }
    if (q->mult == 0)
        return 1; /* exactly 0: the gradient multiplier is 0 */
    if (!G->force) {
        /* Σ_k (S_k ± e_k)·w_k·sc: the products within 12u² (dd_mul 6u², mul_d 3u², w's own
         * 2u²), e_k scaled by |w_k·sc| (the 2^-50 covers rounding of that bound) */
        ref_acc a = {{0, 0}, 0};
        for (int k = 0; k < nc; k++) {
            double sc = q->sgn[k] * q->scale;
            const ref_dd *w = q->wk[k];
            if (q->ow->dd_inexact)
                a.err = INFINITY; /* the weight is not hi + lo: the MPFR path */
            else if (D->S[k].err == 0 && exact_terms(&a, D->S[k].s, *w, sc))
                continue;
            ref_dd tt = ref_dd_mul_d(ref_dd_mul(D->S[k].s, *w), sc);
            /* S·w's underflow (REF_DD_TINY) is scaled by sc too */
            double terr = 12 * REF_U2 * fabs(tt.hi) + REF_DD_TINY * (1 + fabs(sc)) +
                          D->S[k].err * (fabs(w->hi) + fabs(w->lo)) * fabs(sc) * (1 + 0x1p-50);
            ref_acc_add(&a, tt, terr);
        }
        if (ref_decide(a.s, a.err, &v->hi, &v->lo))
            return 1;
    }
    mt->n = 0;
    for (int64_t c = 0; c < p->c; c++) {
        double g = D->gb[c * D->go_cs];
        for (int k = 0; k < nc; k++) {
            double val = D->vb[k][c * D->in_cs];
            mpfr_ptr t = grid_mterm(mt, 2);
            mpfr_set_ui(t, 1, MPFR_RNDN);
            grid_weight_mul(t, q->ow, comp == 0 ? D->cs[k].ky : D->cs[k].kx);
            mpfr_prec_round(t, mpfr_get_prec(t) + 3 * 53 + 8, MPFR_RNDN); /* exact products */
            mpfr_mul_d(t, t, val, MPFR_RNDN);
            mpfr_mul_d(t, t, g, MPFR_RNDN);
            mpfr_mul_d(t, t, q->sgn[k] * q->scale, MPFR_RNDN);
        }
    }
    grid_mpfr_finish(mt, v);
    return 0;
}

/* The interval offsets of out, a grid_grad chunk, allocated (zero) when an element first needs
 * them, by whichever thread: most batches need none, and 16 bytes an element are a sixth of a
 * kept chunk. NULL when out of memory. */
double *grid_chunk_ival(ref_output *out)
{
    double *ival;
#pragma omp critical(grid_chunk_ival)
    {
        if (!out->ival)
            out->ival = ref_big_alloc((size_t)(out->numel > 0 ? 2 * out->numel : 2),
                                      sizeof(double), true);
        ival = out->ival;
    }
    return ival;
}

/* More alternatives than REF_MAX_ALTS: the interval they span (v the primary; Σ|terms| and the
 * coordinate term the largest of any), the list dropped. Non-finite ones: left unjudged. */
static void alts_to_interval(ref_altlist *L, ref_value *v, uint8_t *fl, double *ival)
{
    double lo = v->hi, hi = v->hi;
    bool finite = isfinite(v->hi);
    for (int32_t i = 0; i < L->n; i++) {
        const ref_value *a = &L->v[i];
        finite = finite && isfinite(a->hi);
        lo = ref_fmin(lo, a->hi + ref_fmin(a->lo, 0) * 2);
        hi = ref_fmax(hi, a->hi + ref_fmax(a->lo, 0) * 2);
        ref_sum_abs_max(v, a);
        v->coord_err = ref_fmax(v->coord_err, a->coord_err);
        v->under_mag = ref_fmax(v->under_mag, a->under_mag);
        v->nterms = v->nterms > a->nterms ? v->nterms : a->nterms;
    }
    L->n = 0;
    if (!finite) {
        *fl |= REF_FLAG_UNCHECKABLE;
        return;
    }
    /* offsets from v->hi, rounded outwards (one subtraction each) */
    ival[0] = nextafter(lo - v->hi, -INFINITY);
    ival[1] = nextafter(hi - v->hi, INFINITY);
    *fl |= REF_FLAG_INTERVAL;
}

/* dgrid of point (n, pix) into out, batch n's chunk of grid_grad, and its alternative lists. */
GRID_CLONES int grid_dgrid_point(const gctx *G, const batch_view *bv, const gpoint *pt, int64_t n,
                     int64_t pix, mterms *mt, ref_output *out, ref_altlist *alts,
                       int64_t *hits, int64_t *falls)
{
    const ref_grid_params *p = G->p;
    int64_t base = pix * 2;
    (void)n;
    ref_value *v = &out->v[base];
    memset(v, 0, 2 * sizeof *v);
    if (pt->out || p->interpolation == REF_INTERP_NEAREST)
        return 0; /* 0: out of bounds, or nearest */
    for (int comp = 0; comp < 2; comp++)
        if (pt->unres) /* until grid_dgrid_unresolved gives it an interval */
            out->flags[base + comp] |= REF_FLAG_UNCHECKABLE;
    if (pt->unres)
        return 0;
    const grid_axis *ax = &pt->ax[0], *ay = &pt->ax[1];
    dgrid_gather D;
    /* every combination of the axes' outcomes, the primary first; both components each */
    for (int i = 0; i < ax->n; i++)
        for (int j = 0; j < ay->n; j++) {
            dgrid_gather_fill(G, bv, pt, pix, &ax->o[i], &ay->o[j], &D);
            for (int comp = 0; comp < 2; comp++) {
                ref_value a;
                uint8_t f = 0;
                bool primary = i == 0 && j == 0;
                if (dgrid_value(G, &D, comp, primary, mt, primary ? &v[comp] : &a,
                                primary ? &out->flags[base + comp] : &f))
                    (*hits)++;
                else
                    (*falls)++;
                /* a branch whose intermediates may overflow makes any non-finite answer legal */
                out->flags[base + comp] |= f & REF_FLAG_RANGE;
                /* a branch whose finite value a device may answer as a finite double, beside a
                 * non-finite class: their (±inf, 0) are equal and would merge into the class */
                if (!primary && !(f & REF_FLAG_NONFINITE) && grid_beyond_range(&a) &&
                    (out->flags[base + comp] & REF_FLAG_NONFINITE))
                    out->flags[base + comp] |= REF_FLAG_UNCHECKABLE;
                if (ax->n * ay->n == 1)
                    continue;
                ref_altlist *L = &alts[base + comp];
                if (ref_altlist_push(L, primary ? &v[comp] : &a) != 0)
                    return -1;
            }
        }
    for (int comp = 0; comp < 2 && ax->n * ay->n > 1; comp++) {
        /* the primary, the list's first, with the bound of any branch of the same value */
        v[comp] = alts[base + comp].v[0];
        double *ival = alts[base + comp].n > REF_MAX_ALTS ? grid_chunk_ival(out) : NULL;
        if (ival)
            alts_to_interval(&alts[base + comp], &v[comp], &out->flags[base + comp],
                             ival + 2 * (base + comp));
        else if (alts[base + comp].n > REF_MAX_ALTS)
            return -1;
    }
    return 0;
}

/* Every grid point's data of batch n at unknown corners and weights: per channel c the largest
 * |input| of its plane (the dgrid interval of an unresolvable point). */
double *grid_plane_maxabs(const gctx *G, int64_t n)
{
    const ref_grid_params *p = G->p;
    int64_t hw_in = p->h_in * p->w_in;
    double *m = calloc((size_t)(p->c > 0 ? p->c : 1), sizeof *m);
    for (int64_t c = 0; m && c < p->c; c++)
        for (int64_t e = 0; e < hw_in; e++) { /* NaN anywhere: NaN (left unjudged) */
            double a = fabs(G->in[(n * p->c + c) * hw_in + e]);
            m[c] = isnan(a) || isnan(m[c]) ? NAN : ref_fmax(m[c], a);
        }
    return m;
}

/* dgrid of an unresolvable bilinear point: scale·Σ_c g_c·Σ_k ±w_k·val_k with unknown corners
 * and weights; the corners pair up (x: east − west per row, y: south − north per column) with
 * pair weights summing to at most 1, so |Σ_k ±w_k·val_k| ≤ 2·max|val| and the value lies in
 * [−B, B], B = |factor|·Σ_c |g_c|·2·maxabs_c (|mult| ≤ 1), rounded up. Non-finite data: left
 * unjudged. */
void grid_dgrid_unresolved(const gctx *G, int64_t n, int64_t pix, const double *maxabs,
                           ref_output *out)
{
    const ref_grid_params *p = G->p;
    int64_t hw_out = p->h_out * p->w_out;
    int64_t base = pix * 2, at = (n * hw_out + pix) * 2; /* in the chunk, in the grid */
    double sum = 0, mag = 0, diff = 0;
    bool finite = isfinite(G->grid[at]) && isfinite(G->grid[at + 1]);
    for (int64_t c = 0; c < p->c; c++) {
        double g = G->go[(n * p->c + c) * hw_out + pix];
        finite = finite && isfinite(g) && isfinite(maxabs[c]);
        sum += fabs(g) * 2 * maxabs[c];
        diff = ref_fmax(diff, 2 * maxabs[c]);
        mag += 4 * (ref_fmax(1, fabs(g)) * REF_UNDER_SCALE) * ref_fmax(1, maxabs[c]);
    }
    for (int comp = 0; comp < 2 && finite; comp++) {
        double B = fabs(factor(p, comp)) * sum * (1 + (double)(2 * p->c + 4) * 0x1p-52);
        if (!isfinite(B))
            continue; /* an unbounded interval judges nothing: left unjudged */
        ref_value *v = &out->v[base + comp];
        memset(v, 0, sizeof *v);
        v->nterms = 4 * p->c;
        v->nops = 4;
        v->sum_abs = B;
        v->under_mag = mag * ref_fmax(1, fabs(factor(p, comp))) * (1 + 0x1p-40);
        /* corner differences (≤ 2·max|val|) times g, their sum, the scaled sum: as dgrid_value */
        if (ref_fmax(diff, ref_fmax(sum, B)) * (1 + 0x1p-40) > G->overflow_at)
            out->flags[base + comp] |= REF_FLAG_RANGE;
        out->ival[2 * (base + comp)] = -B;
        out->ival[2 * (base + comp) + 1] = B;
        out->flags[base + comp] = (uint8_t)((out->flags[base + comp] & ~REF_FLAG_UNCHECKABLE) |
                                            REF_FLAG_INTERVAL);
    }
}
