/* ref_grid_sampler2d_backward and its one-element MPFR form (facts §4, PyTorch's
 * grid_sampler_2d_backward). Per batch: the coordinate stage of every grid point (grid_axis.c,
 * exact, with its legal branches), then dgrid per grid point and dx per (n, c) plane, each plane
 * gathered in grid-point order (deterministic for any thread count).
 * Terms: dx[yi][xi] gets g·wx·wy per in-bounds corner (nearest: g); dgrid x gets
 * ±input[corner]·g·wy·(factor·mult) and y likewise with wx (PyTorch's gix/giy), factor = size/2
 * (size−1)/2 with align). Fast path: coordinates in exact integer form (grid_axis.c), terms as
 * exact double pairs where the products split exactly, else double-double with error bound,
 * summed by two-word error-free sums; dgrid as Σ_k ±w_k·scale·(Σ_c val·g) over the corners k
 * (a batch read channel-innermost, so a corner's channels are consecutive; one pass per point
 * for both components; four points at once in vector lanes for the common one-outcome lean
 * case), dx per element from a per-batch list of the terms reaching it, four
 * planes at once; Ziv's test; MPFR on failure, the exact terms summed by mpfr_sum. Every bound
 * field (Σ|terms|, magnitudes, coordinate term) is summed in one fixed order, channel then
 * corner (dgrid) or point (dx), whichever path computes it, so answers do not depend on it. nops = 4 (bilinear: two weight differences and two
 * products per dx term; difference, two products and the final scale per dgrid term).
 * coord_err = Σ|∂term/∂t|·δ over the terms: dx |g|(|wy|δx + |wx|δy + δxδy), dgrid x
 * |val·g·scale|·δy (y: δx), with |∂c/∂t| ≤ sens. */
#include <float.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "grid_internal.h"

typedef struct {
    bool out;    /* non-finite grid value: out of bounds (docs/contract.md) */
    bool unres;  /* too many branches: uncheckable */
    grid_axis ax[2]; /* 0: x (width), 1: y (height) */
} gpoint;
/* ref_case's work-bytes bound (reference/common/case.c) counts 216 bytes a point and GRID_MAXO
 * outcomes per axis that has several */
_Static_assert(sizeof(gpoint) <= 216 && sizeof(grid_outcome) * GRID_MAXO <= 864, "case.c");

typedef struct {
    const ref_grid_params *p;
    const double *go, *in, *grid;
    double u_dev;
    bool force;
    const ref_path *path;
    double overflow_at; /* ref_path_overflow_at(path) */
} gctx;

typedef struct { int64_t e; int kx, ky; } corner;

static int corners(const ref_grid_params *p, const grid_outcome *ox, const grid_outcome *oy,
                   corner c[4])
{
    int n = 0, lim = p->interpolation == REF_INTERP_BILINEAR ? 2 : 1;
    for (int dy = 0; dy < lim; dy++)
        for (int dx = 0; dx < lim; dx++) {
            int64_t xi = ox->i0 + dx, yi = oy->i0 + dy;
            if (xi >= 0 && xi < p->w_in && yi >= 0 && yi < p->h_in)
                c[n++] = (corner){yi * p->w_in + xi, dx, dy};
        }
    return n;
}

static inline const ref_dd *wdd(const grid_outcome *o, int k) { return k ? &o->d1 : &o->d0; }

/* ---- term scratch for MPFR sums ---- */
typedef struct {
    mpfr_t *t;
    mpfr_ptr *ptr;
    size_t n, cap;
} mterms;

static mpfr_ptr mterm(mterms *m, mpfr_prec_t prec)
{
    if (m->n + 1 >= m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 64;
        m->t = realloc(m->t, cap * sizeof *m->t);
        m->ptr = realloc(m->ptr, cap * sizeof *m->ptr);
        for (size_t i = m->cap; i < cap; i++)
            mpfr_init2(m->t[i], 64);
        for (size_t i = 0; i < m->n; i++) /* the array moved */
            m->ptr[i] = m->t[i];
        m->cap = cap;
    }
    mpfr_set_prec(m->t[m->n], prec);
    m->ptr[m->n] = m->t[m->n];
    return m->t[m->n++];
}

static void mterms_free(mterms *m)
{
    for (size_t i = 0; i < m->cap; i++)
        mpfr_clear(m->t[i]);
    free(m->t);
    free(m->ptr);
}

static void mpfr_finish(mterms *m, ref_value *v)
{
    ref_finish_mpfr_sum(m->ptr, (unsigned long)m->n, &v->hi, &v->lo, NULL);
}

/* ---- dgrid ---- */

static double factor(const ref_grid_params *p, int comp)
{
    int64_t size = comp == 0 ? p->w_in : p->h_in;
    return p->align_corners ? (double)(size - 1) / 2 : (double)size / 2;
}

/* Σ of exact double terms as s + c: the running sum's rounding error goes into c by an
 * error-free addition, and only c's own rounding error is dropped (err bounds it). One addition
 * of latency per term on each word (ref_acc_add has a chain of three error-free additions). */
typedef struct { double s, c, err; } exact_sum;

static inline void exact_sum_add(exact_sum *a, double x)
{
    ref_dd t = ref_two_sum(a->s, x), u = ref_two_sum(a->c, t.lo);
    a->s = t.hi;
    a->c = u.hi;
    a->err += fabs(u.lo);
}

/* Four lanes as one GCC vector (element-wise IEEE operations, whatever instructions the target
 * has): dx's channels, dgrid's corners. */
#define DXL 4
typedef double dxv __attribute__((vector_size(DXL * sizeof(double))));
typedef int64_t dxvi __attribute__((vector_size(DXL * sizeof(double))));

#define DXV_ABS(x) ((dxv)((dxvi)(x) & INT64_MAX))

/* Whether any lane of mask m is set: halves or-ed together first (a lane at a time costs an
 * extraction each) */
static inline __attribute__((always_inline)) bool dxv_any(const dxvi *m)
{
    _Static_assert(DXL == 4, "two halves of two lanes");
    dxvi x = *m | __builtin_shufflevector(*m, *m, 2, 3, 0, 1);
    return (x[0] | x[1]) != 0;
}

/* exact_sum_add of *x on each lane (vectors by address: no 32-byte vector in the ABI) */
static inline void dxv_exact_add(dxv *s, dxv *c, dxv *err, const dxv *x)
{
    dxv t = *s + *x, tb = t - *s, tl = (*s - (t - tb)) + (*x - tb);
    dxv u = *c + tl, ub = u - *c, ul = (*c - (u - ub)) + (tl - ub);
    *s = t;
    *c = u;
    *err += DXV_ABS(ul);
}

/* Batch n's gradOutput and input as read by the gather: element (c, i) at base[c·cs + i·is],
 * from the tensors (cs a plane, is 1) or from channel-innermost copies (cs 1, is C). */
typedef struct {
    const double *go, *in;
    int64_t go_cs, go_is, in_cs, in_is;
    /* batch_prepare: every value of the batch's gradOutput and input finite, of at most 26
     * significant bits, 0 or at least 2^-484 (their products exact and clear of underflow), and
     * the largest magnitudes */
    bool plain;
    double max_go, max_in;
    bool lean_all;    /* batch_points: dgrid_lean_all */
    /* batch_prepare, with the copies: per channel, whether its gradOutput suits dx_sum_split
     * (dx_g_ok for all its values); NULL: unknown */
    bool *gsplit;
} batch_view;

/* One dgrid component of a point under outcomes (ox, oy): scale·Σ_c Σ_k sgn_k·w_k·val_k·g, its
 * weights w_k = wk[k] on the axis ow, and the bound data gathered in one pass with the other
 * component's (dgrid_gather_fill): Σ|terms| (sabs) and count, coordinate term, magnitudes, and
 * pre = Σ|val·(g·w)|, PyTorch's sum before the scale. */
typedef struct {
    const grid_outcome *ow;
    int mult;
    double scale, dl, mscale;
    int sgn[4];
    const ref_dd *wk[4];
    bool skip[4];
    double pre, sabs, mag, cerr;
    int64_t nt;
} dgrid_comp;

/* A point's data under outcomes (ox, oy): its in-bounds corners, where its gradOutput (gb) and
 * corner values (vb[k]) lie (channel c at [c·go_cs], [c·in_cs]), both components, whether every
 * term is finite, the largest intermediate magnitude pmax of PyTorch's form (ne − nw)·w·g, and
 * (fast path) per corner k the channel sum S_k = Σ_c val·g, each product split exactly into
 * two doubles, with its error bound. dgrid_comp = scale·Σ_k ±w_k·S_k. */
typedef struct {
    int nc;
    corner cs[4];
    const double *gb, *vb[4];
    int64_t go_cs, in_cs;
    bool finite;
    double pmax;
    ref_acc S[4];
    dgrid_comp comp[2];
} dgrid_gather;

static void dgrid_comp_init(const gctx *G, const gpoint *pt, const grid_outcome *ox,
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

/* The vector loops (dx_block, dgrid_lanes, dgrid_point, prepare_rows) and dx_terms_team (its
 * fma calls) compiled three times, for x86-64-v4 (AVX-512: 32 vector registers, so dgrid's 18
 * sums spill less), AVX2 and the baseline, the one the CPU runs chosen when the program loads:
 * the same IEEE operations either way (ISO C mode contracts nothing, so FMA units only serve
 * explicit fma() calls, which round once whatever computes them), only other registers.
 * -DGRID_NO_CLONES keeps the baseline alone (how tests compare them). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(GRID_NO_CLONES)
#define GRID_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define GRID_CLONES
#endif

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

/* One pass over the point's channels fills D, the corners as the lanes of two vectors (lanes
 * past nc read corner 0 and are never used); every sum keeps channel-then-corner order.
 * lean (dgrid_lean): the data are plain and no intermediate can come near the overflow
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
        double g = D->gb[c * D->go_cs], mg = ref_fmax(1, fabs(g)), vsum = 0;
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
        v2d gm[2];
        for (int h = 0; h < 2; h++) {
            v2i big = aval[h] >= one; /* ref_fmax(1, |val|): 1 for a NaN */
            gm[h] = (v2d)(((v2i)aval[h] & big) | ((v2i)one & ~big)) * mg;
        }
#pragma GCC unroll 2
        for (int comp = 0; comp < 2; comp++) {
            const dgrid_comp *q = &D->comp[comp];
            v2d at_[2], ats[2], gms[2], vgs[2];
            for (int h = 0; h < 2; h++) {
                v2d t = val[h] * (g * w[comp][h]); /* a zero weight gives 0, not (val·g = ∞)·0 */
                at_[h] = V2_ABS(t);
                ats[h] = V2_ABS(t * q->scale);
                gms[h] = gm[h] * q->mscale;
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

static bool dgrid_lean(const gctx *G, const batch_view *bv, const dgrid_gather *D)
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

/* Whether every point of the batch is lean (dgrid_lean) by the bound's largest W and |scale|:
 * bilinear weights lie in [0, 1] on every branch, |scale| = factor·|mult| ≤ factor; the bound
 * grows with both (rounding is monotone), so no point's own is larger. */
static bool dgrid_lean_all(const gctx *G, const batch_view *bv)
{
    double sc = ref_fmax(1, ref_fmax(fabs(factor(G->p, 0)), fabs(factor(G->p, 1))));
    return bv->plain && !G->force && lean_bound(G, bv, 1, sc);
}

static void dgrid_gather_fill(const gctx *G, const batch_view *bv, const gpoint *pt, int64_t pix,
                              const grid_outcome *ox, const grid_outcome *oy, dgrid_gather *D)
{
    D->nc = corners(G->p, ox, oy, D->cs);
    dgrid_comp_init(G, pt, ox, oy, D, 0, &D->comp[0]);
    dgrid_comp_init(G, pt, ox, oy, D, 1, &D->comp[1]);
    if (dgrid_lean(G, bv, D))
        dgrid_fill(G, bv, pix, D, true);
    else
        dgrid_fill(G, bv, pix, D, false);
}

/* The class of component q's non-finite terms (PyTorch: gix accumulated, then times gix_mult,
 * the scale). */
static ref_nfclass dgrid_nfclass(const ref_grid_params *p, const dgrid_gather *D,
                                 const dgrid_comp *q)
{
    ref_nfclass cls = {0};
    for (int64_t c = 0; c < p->c; c++)
        for (int k = 0; k < D->nc; k++) {
            double f[5] = {(double)q->sgn[k], D->vb[k][c * D->in_cs], D->gb[c * D->go_cs],
                           q->wk[k]->hi, q->scale};
            ref_nf_term(&cls, f, 5);
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

/* One dgrid component of a point from its data D. Returns 1 if decided fast. */
static int dgrid_value(const gctx *G, const dgrid_gather *D, int comp, mterms *mt, ref_value *v,
                       uint8_t *flags)
{
    const ref_grid_params *p = G->p;
    const dgrid_comp *q = &D->comp[comp];
    int nc = D->nc;
    memset(v, 0, sizeof *v);
    v->nops = 4;
    v->nterms = q->nt;
    v->sum_abs = q->sabs * (1 + (double)(q->nt + 6) * 0x1p-52);
    v->coord_err = q->cerr * (1 + 0x1p-40);
    v->under_mag = q->mag * (1 + 0x1p-40);
    /* FP32 (double) products val·g, corner differences, the sum before and after the scale: past
     * the working range an intermediate overflows (and ∞ − ∞ or ∞·0 follow) though the exact
     * value is finite */
    if (ref_fmax(D->pmax, ref_fmax(q->pre, q->sabs)) * (1 + 0x1p-40) > G->overflow_at)
        *flags |= REF_FLAG_RANGE;
    ref_nfclass cls = D->finite ? (ref_nfclass){0} : dgrid_nfclass(p, D, q);
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
            double terr = 12 * REF_U2 * fabs(tt.hi) + REF_DD_TINY +
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
            mpfr_ptr t = mterm(mt, 2);
            mpfr_set_ui(t, 1, MPFR_RNDN);
            grid_weight_mul(t, q->ow, comp == 0 ? D->cs[k].ky : D->cs[k].kx);
            mpfr_prec_round(t, mpfr_get_prec(t) + 3 * 53 + 8, MPFR_RNDN); /* exact products */
            mpfr_mul_d(t, t, val, MPFR_RNDN);
            mpfr_mul_d(t, t, g, MPFR_RNDN);
            mpfr_mul_d(t, t, q->sgn[k] * q->scale, MPFR_RNDN);
        }
    }
    mpfr_finish(mt, v);
    return 0;
}

/* ---- dx ---- */

/* Exact dx terms of point pt for element e under outcomes (ox, oy), appended to mt. */
static void dx_point_mpfr(const gctx *G, const grid_outcome *ox, const grid_outcome *oy, double g,
                          int64_t e, mterms *mt, ref_value *v)
{
    corner cs[4];
    int nc = corners(G->p, ox, oy, cs);
    for (int k = 0; k < nc; k++) {
        if (cs[k].e != e)
            continue;
        mpfr_ptr t = mterm(mt, 2);
        mpfr_set_ui(t, 1, MPFR_RNDN);
        grid_weight_mul(t, ox, cs[k].kx);
        grid_weight_mul(t, oy, cs[k].ky);
        mpfr_prec_round(t, mpfr_get_prec(t) + 53 + 8, MPFR_RNDN);
        mpfr_mul_d(t, t, g, MPFR_RNDN);
        double wxd = wdd(ox, cs[k].kx)->hi, wyd = wdd(oy, cs[k].ky)->hi;
        v->sum_abs += fabs(g * wxd * wyd);
        v->under_mag += ref_fmax(1, fabs(g));
        v->nterms++;
    }
}

typedef struct { int64_t pix; int nv; int vx[GRID_MAXO * GRID_MAXO], vy[GRID_MAXO * GRID_MAXO]; } dxamb;

/* The combos of a point whose dx contribution differs discontinuously from the primary one:
 * nearest with another index pair, bilinear with a "far" reflection branch. */
static void dx_variants(const ref_grid_params *p, const gpoint *pt, dxamb *d)
{
    d->nv = 0;
    for (int i = 0; i < pt->ax[0].n; i++)
        for (int j = 0; j < pt->ax[1].n; j++) {
            const grid_outcome *ox = &pt->ax[0].o[i], *oy = &pt->ax[1].o[j];
            bool distinct = (i == 0 && j == 0);
            if (!distinct && p->interpolation == REF_INTERP_NEAREST) {
                distinct = true;
                for (int k = 0; k < d->nv; k++)
                    if (pt->ax[0].o[d->vx[k]].i0 == ox->i0 && pt->ax[1].o[d->vy[k]].i0 == oy->i0)
                        distinct = false;
            } else if (!distinct) {
                distinct = ox->far || oy->far;
            }
            if (distinct) {
                d->vx[d->nv] = i;
                d->vy[d->nv] = j;
                d->nv++;
            }
        }
}

/* Per element, the points that are not ambiguous and reach it with their primary corners, in
 * ascending point order (CSR): a combination's value only needs those and its own points. */
typedef struct { int64_t *off, *pix; } dxreach;

static int dxreach_build(const ref_grid_params *p, const gpoint *pts, const dxamb *amb, int namb,
                         dxreach *r)
{
    int64_t hw_out = p->h_out * p->w_out, hw_in = p->h_in * p->w_in;
    r->off = calloc((size_t)hw_in + 1, sizeof *r->off);
    r->pix = malloc((size_t)(4 * hw_out + 1) * sizeof *r->pix);
    uint8_t *isamb = calloc((size_t)(hw_out ? hw_out : 1), 1);
    if (!r->off || !r->pix || !isamb) {
        free(isamb);
        return -1;
    }
    for (int i = 0; i < namb; i++)
        isamb[amb[i].pix] = 1;
    for (int pass = 0; pass < 2; pass++) {
        int64_t *fill = pass ? calloc((size_t)hw_in, sizeof *fill) : NULL;
        if (pass && !fill) {
            free(isamb);
            return -1;
        }
        for (int64_t pix = 0; pix < hw_out; pix++) {
            if (pts[pix].out || pts[pix].unres || isamb[pix])
                continue;
            corner cs[4];
            int nc = corners(p, &pts[pix].ax[0].o[0], &pts[pix].ax[1].o[0], cs);
            for (int k = 0; k < nc; k++) {
                if (pass)
                    r->pix[r->off[cs[k].e] + fill[cs[k].e]++] = pix;
                else
                    r->off[cs[k].e + 1]++;
            }
        }
        if (!pass)
            for (int64_t e = 0; e < hw_in; e++)
                r->off[e + 1] += r->off[e];
        free(fill);
    }
    free(isamb);
    return 0;
}

/* Exact value of dx element e of plane (n,c) with ambiguous points amb[i] taking variant ch[i]:
 * the points of R reaching e and the ambiguous ones, merged in ascending point order. */
static void dx_combo_value(const gctx *G, const gpoint *pts, const dxreach *R, int64_t n,
                           int64_t c, int64_t e, const dxamb *amb, const int *ch, int namb,
                           mterms *mt, ref_value *v)
{
    const ref_grid_params *p = G->p;
    int64_t hw_out = p->h_out * p->w_out;
    memset(v, 0, sizeof *v);
    v->nops = p->interpolation == REF_INTERP_BILINEAR ? 4 : 0;
    mt->n = 0;
    int64_t i = R->off[e], iend = R->off[e + 1];
    int k = 0;
    while (i < iend || k < namb) {
        bool take_amb = i >= iend || (k < namb && amb[k].pix < R->pix[i]);
        int64_t pix = take_amb ? amb[k].pix : R->pix[i];
        int ix = take_amb ? amb[k].vx[ch[k]] : 0, iy = take_amb ? amb[k].vy[ch[k]] : 0;
        if (take_amb)
            k++;
        else
            i++;
        const gpoint *pt = &pts[pix];
        double g = G->go[(n * p->c + c) * hw_out + pix];
        dx_point_mpfr(G, &pt->ax[0].o[ix], &pt->ax[1].o[iy], g, e, mt, v);
    }
    v->sum_abs *= 1 + (double)(v->nterms + 6) * 0x1p-52;
    v->under_mag *= 1 + 0x1p-40;
    mpfr_finish(mt, v);
}

#define AMB_PER_ELEM 6 /* each ambiguous point has ≥ 2 variants: 7 of them exceed REF_MAX_ALTS */

/* ---- interval judgement of dx ----
 * A point whose branch is unknown (unresolvable, or too many combinations with others) adds
 * g·w to an element it reaches with some weight product w ∈ [0, 1] (bilinear weights lie in
 * [0, 1] on every branch; nearest: 0 or 1), and 0 where it does not: a contribution within
 * [min(0, g), max(0, g)]. The element's legal values then lie in the exact sum of the certain
 * points plus those intervals. */
typedef struct { double lo, hi, abs; int64_t n; bool nonfinite; } dx_unc;

static void unc_add(dx_unc *u, double g)
{
    if (!isfinite(g))
        u->nonfinite = true;
    u->lo += ref_fmin(0, g);
    u->hi += ref_fmax(0, g);
    u->abs += fabs(g);
    u->n++;
}

/* The unresolvable points of plane (n, c): they may reach any element. */
static dx_unc plane_unresolved(const gctx *G, const gpoint *pts, int64_t n, int64_t c)
{
    const ref_grid_params *p = G->p;
    int64_t hw_out = p->h_out * p->w_out;
    dx_unc u = {0};
    for (int64_t pix = 0; pix < hw_out; pix++)
        if (!pts[pix].out && pts[pix].unres)
            unc_add(&u, G->go[(n * p->c + c) * hw_out + pix]);
    return u;
}

static bool amb_reaches(const ref_grid_params *p, const gpoint *pts, const dxamb *a, int64_t e)
{
    for (int k = 0; k < a->nv; k++) {
        corner cs[4];
        int nc = corners(p, &pts[a->pix].ax[0].o[a->vx[k]], &pts[a->pix].ax[1].o[a->vy[k]], cs);
        for (int j = 0; j < nc; j++)
            if (cs[j].e == e)
                return true;
    }
    return false;
}

/* Element e of plane (n, c) judged by interval: v ← the certain points' exact sum (R: neither
 * ambiguous nor unresolvable), ival ← the uncertain points' [lo, hi] rounded outwards, and the
 * bound's Σ|terms| and count grow by theirs (the device rounds those terms too). A non-finite
 * uncertain contribution leaves the element unjudged (REF_FLAG_UNCHECKABLE). */
static void dx_interval(const gctx *G, const gpoint *pts, const dxreach *R, const dxamb *amb,
                        int namb, const int *tn, const int *tl, dx_unc u, int64_t n, int64_t c,
                        int64_t e, mterms *mt, ref_value *v, uint8_t *fl, double *ival)
{
    const ref_grid_params *p = G->p;
    int64_t hw_out = p->h_out * p->w_out;
    const double *go = G->go + (n * p->c + c) * hw_out;
    if (tn && tn[e] >= 0)
        for (int i = 0; i < tn[e]; i++)
            unc_add(&u, go[amb[tl[e * AMB_PER_ELEM + i]].pix]);
    else
        for (int i = 0; i < namb; i++)
            if (amb_reaches(p, pts, &amb[i], e))
                unc_add(&u, go[amb[i].pix]);
    double grow = 1 + (double)(u.n + 2) * 0x1p-52; /* the sums' own roundings, outwards */
    if (u.nonfinite || (*fl & REF_FLAG_NONFINITE) || !isfinite(u.abs * grow)) {
        *fl |= REF_FLAG_UNCHECKABLE; /* no finite interval bounds it */
        return;
    }
    double cerr = v->coord_err;
    dx_combo_value(G, pts, R, n, c, e, NULL, NULL, 0, mt, v);
    v->coord_err = cerr;
    v->nterms += u.n;
    v->sum_abs += u.abs * grow;
    v->under_mag += ((double)u.n + u.abs) * grow; /* Σ max(1, |g|) ≤ n + Σ|g| */
    ival[2 * e] = u.lo * grow;
    ival[2 * e + 1] = u.hi * grow;
    *fl = (uint8_t)((*fl & ~REF_FLAG_UNCHECKABLE) | REF_FLAG_INTERVAL);
}

/* The terms of dx: per element, the primary corners of the batch's resolved points that reach
 * it, in point order (CSR over the elements), with what no channel changes: built once per
 * batch, read once per group of planes (an element's sums then stay in registers, and its
 * answer is written once). */
enum { DX_EXACT, DX_DD, DX_MPFR };
typedef struct {
    int32_t pix;      /* the point */
    int8_t mode;      /* DX_EXACT: wx·wy = wxy.hi exactly; DX_DD: wxy = dd_mul(wx, wy) with its
                       * bound; DX_MPFR: a weight is not hi + lo */
    bool split;       /* the parts hold wx·wy, each 0 or within [DX_PART_MIN, DX_PART_MAX] */
    bool wxy_short;   /* ref_short(wxy.hi) */
    double wx, wy;    /* the weights' high words */
    double cfac;      /* |wy|·δx + |wx|·δy + δx·δy: the coordinate term per |g| */
    double part[4];   /* split: wx·wy = part[0] + … + part[3] exactly, parts of at most 27
                       * significant bits (wxy.hi's two, wxy.lo's two), so g·part[i] is exact for
                       * a g of at most 26 (dx_g_ok); else wxy.hi, wxy.lo, 0, 0 (dx_wxy) */
} dxterm;
/* 64 bytes: a term a cache line (wxy is not kept beside the parts it is the sums of), and the
 * sort's copies and dx_block's reads move a fifth less than 80 */
_Static_assert(sizeof(dxterm) == 64, "dxterm layout");

/* x as split into hi, lo by dx_split26, again: hi + lo, or hi itself when lo is 0 (so a −0
 * stays −0; lo ≠ 0 means x ≠ 0, and then hi + lo is x exactly) */
static inline double dx_unsplit(double hi, double lo) { return lo == 0 ? hi : hi + lo; }

/* The term's weight product wxy (mode DX_EXACT or DX_DD): from the parts when split. */
static inline ref_dd dx_wxy(const dxterm *k)
{
    if (!k->split)
        return (ref_dd){k->part[0], k->part[1]};
    return (ref_dd){dx_unsplit(k->part[0], k->part[1]), dx_unsplit(k->part[2], k->part[3])};
}

typedef struct {
    dxterm *t;        /* the terms of element e: t[off[e]] .. t[off[e + 1] − 1] */
    int64_t *off;
    bool split;       /* every term split */
    bool one_word;    /* every term's wx·wy one double (part[2] = part[3] = 0) */
} dxterms;

/* Magnitudes where the split products g·part are exact and their sums finite: parts in
 * [2^-500, 2^8] (or 0), g of at most 26 significant bits in [2^-400, 2^400] (or 0). */
#define DX_PART_MIN 0x1p-500
#define DX_PART_MAX 0x1p8
#define DX_G_MIN 0x1p-400
#define DX_G_MAX 0x1p400

static bool dx_part_ok(double x) { return x == 0 || (fabs(x) >= DX_PART_MIN && fabs(x) <= DX_PART_MAX); }

/* x = hi + lo exactly, hi its leading 26 significant bits, lo (the rest) at most 27 */
static void dx_split26(double x, double *hi, double *lo)
{
    *hi = ref_of_bits(ref_bits_of(x) & ~(uint64_t)0x7ffffff);
    *lo = x - *hi;
}

/* The term of point pt (at pix) at corner cs, written field by field into *q, its slot: made in
 * a local and copied, its 64 bytes were read back whole from the smaller stores that made them,
 * which the CPU cannot forward (a stall a term). */
static inline __attribute__((always_inline)) void dx_term(const gpoint *pt, int64_t pix,
                                                         const corner *cs, dxterm *q)
{
    const grid_outcome *ox = &pt->ax[0].o[0], *oy = &pt->ax[1].o[0];
    double dx = pt->ax[0].delta * pt->ax[0].sens, dy = pt->ax[1].delta * pt->ax[1].sens;
    const ref_dd *wx = wdd(ox, cs->kx), *wy = wdd(oy, cs->ky);
    q->pix = (int32_t)pix;
    q->wx = wx->hi;
    q->wy = wy->hi;
    q->cfac = fabs(wy->hi) * dx + fabs(wx->hi) * dy + dx * dy;
    q->split = q->wxy_short = false;
    double pxy = wx->hi * wy->hi;
    ref_dd wxy = {0, 0};
    if (ox->dd_inexact || oy->dd_inexact) {
        q->mode = DX_MPFR;
    } else if (wx->lo == 0 && wy->lo == 0 && ref_prod_clear(wx->hi, wy->hi, pxy) &&
               fma(wx->hi, wy->hi, -pxy) == 0) {
        q->mode = DX_EXACT;
        wxy = (ref_dd){pxy, 0};
        q->wxy_short = ref_short(pxy);
    } else {
        q->mode = DX_DD;
        wxy = ref_dd_mul(*wx, *wy);
    }
    /* wx·wy exactly as two doubles: exact above, or two one-word weights whose product's
     * rounding error fma gives exactly (then dd_mul's pair is that one) */
    double part[4] = {wxy.hi, wxy.lo, 0, 0};
    if (q->mode == DX_EXACT || (q->mode == DX_DD && wx->lo == 0 && wy->lo == 0 &&
                                ref_prod_clear(wx->hi, wy->hi, pxy))) {
        double sp[4];
        dx_split26(wxy.hi, &sp[0], &sp[1]);
        dx_split26(wxy.lo, &sp[2], &sp[3]);
        bool split = true;
        for (int i = 0; i < 4; i++)
            split = split && dx_part_ok(sp[i]);
        for (int i = 0; i < 4 && split; i++)
            part[i] = sp[i];
        q->split = split;
    }
    for (int i = 0; i < 4; i++)
        q->part[i] = part[i];
}

/* The corners of a point's dx terms (its primary outcomes' in-bounds ones, none when out or
 * unresolvable) into cs: their count. */
static int dx_point_corners(const ref_grid_params *p, const gpoint *pt, corner cs[4])
{
    return pt->out || pt->unres ? 0 : corners(p, &pt->ax[0].o[0], &pt->ax[1].o[0], cs);
}

/* The element each of a point's dx terms reaches, in corner order, into e[0..3] (-1: none). */
static void dx_point_elems(const ref_grid_params *p, const gpoint *pt, int64_t *e)
{
    corner cs[4];
    int nc = dx_point_corners(p, pt, cs);
    for (int k = 0; k < 4; k++)
        e[k] = k < nc ? cs[k].e : -1;
}

/* What an element's terms add up to in one plane: Σ|terms|, the coordinate term, the
 * magnitudes, the non-finite class and (off force_mpfr) the sum s with |exact − s| ≤ err. */
typedef struct {
    double sabs, cerr, mag, err;
    ref_nfclass cls;
    ref_dd s;
} dxsum;

/* Element e's terms in the plane whose gradOutput is gp (element pix at gp[pix·is]), any data:
 * exact double terms summed error-free where the products split, else double-double. */
static dxsum dx_sum_any(const gctx *G, const dxterm *t, int64_t nt, const double *gp, int64_t is)
{
    bool bil = G->p->interpolation == REF_INTERP_BILINEAR;
    dxsum r = {0};
    exact_sum acc = {0, 0, 0};
    for (int64_t i = 0; i < nt; i++) {
        const dxterm *k = &t[i];
        double g = gp[k->pix * is];
        double tt = g * k->wx * k->wy;
        r.sabs += fabs(tt);
        r.mag += ref_fmax(1, fabs(g)); /* wx·wy may underflow, then times g */
        if (!isfinite(g)) {
            double f[3] = {g, k->wx, k->wy};
            ref_nf_term(&r.cls, f, 3);
        }
        if (bil)
            r.cerr += fabs(g) * k->cfac;
        if (G->force)
            continue;
        if (k->mode == DX_MPFR) {
            acc.err = INFINITY; /* a weight is not hi + lo: the MPFR path */
        } else if (k->mode == DX_EXACT && isfinite(g)) {
            /* wx·wy exact: g·wx·wy = p + f exactly, two exact double terms (an exact value
             * halfway between doubles stays decidable) */
            double w = dx_wxy(k).hi, pg = w * g;
            double f = k->wxy_short && ref_short(g) ? 0 : fma(w, g, -pg);
            exact_sum_add(&acc, pg);
            if (f != 0)
                exact_sum_add(&acc, f);
            if (!ref_prod_clear(w, g, pg))
                acc.err = INFINITY; /* underflow: the MPFR path */
        } else if (isfinite(g)) {
            ref_dd d = ref_dd_mul_d(dx_wxy(k), g);
            exact_sum_add(&acc, d.hi); /* the pair exactly, its distance to the term */
            exact_sum_add(&acc, d.lo);
            acc.err += 16 * REF_U2 * fabs(d.hi) + REF_DD_TINY;
        }
    }
    r.s = ref_two_sum(acc.s, acc.c);
    r.err = acc.err;
    return r;
}

/* Whether a gradOutput value suits dx_sum_split: finite, at most 26 significant bits, zero or
 * within [DX_G_MIN, DX_G_MAX] (FP32, FP16 and BF16 data always are, but for extreme exponents). */
static bool dx_g_ok(double g)
{
    double a = fabs(g);
    return ref_short(g) && (g == 0 || (a >= DX_G_MIN && a <= DX_G_MAX));
}

/* dx_sum_split's sums, a lane per plane: s + c with dropped error err, Σ|terms|, magnitudes,
 * coordinate term */
typedef struct { dxv s, c, err, sabs, mag, cerr; } dxsum4;

/* DXL planes at once (lanes: channels c..c + DXL − 1, element pix of lane l at
 * gp[pix·is + l]), every term split and every g suiting the split (dx_g_ok): each
 * term is Σ g·part[i], exact products, each summed as exact_sum_add does. The
 * same Σ|terms|, coordinate term and magnitudes as dx_sum_any, in the same order. The lanes are
 * GCC vectors: element-wise IEEE operations, whatever instructions the target has.
 * one_word: every term has part[2] = 0 (T->one_word), its per-term test left out.
 * dx_split_term adds one term to r (first: r all 0 before). */
static inline __attribute__((always_inline)) void
dx_split_term(const dxterm *k, const double *gp, int64_t is, bool bil, bool one_word, bool first,
              dxsum4 *r)
{
    const dxv one = {1, 1, 1, 1}, zero = {0, 0, 0, 0};
    _Static_assert(DXL == 4, "one above");
    dxv g;
    memcpy(&g, gp + k->pix * is, sizeof g);
    dxv ag = DXV_ABS(g), p0 = g * k->part[0], p1 = g * k->part[1];
    r->sabs += DXV_ABS(g * k->wx * k->wy);
    dxvi small = ag < one; /* ref_fmax(1, |g|) of a finite g */
    r->mag += (dxv)(((dxvi)one & small) | ((dxvi)ag & ~small));
    if (bil)
        r->cerr += ag * k->cfac;
    if (first) /* exact_sum_add on (0, 0, 0): s = 0 + p0 (−0 made +0 as there), c, err 0 */
        r->s = zero + p0;
    else
        dxv_exact_add(&r->s, &r->c, &r->err, &p0);
    dxv_exact_add(&r->s, &r->c, &r->err, &p1);
    if (!one_word && k->part[2] != 0) { /* wx·wy needs two words */
        dxv p2 = g * k->part[2], p3 = g * k->part[3];
        dxv_exact_add(&r->s, &r->c, &r->err, &p2);
        dxv_exact_add(&r->s, &r->c, &r->err, &p3);
    }
}

static inline __attribute__((always_inline)) void
dx_sum_split(const dxterm *t, int64_t nt, const double *gp, int64_t is, bool bil, bool one_word,
             dxsum4 *r)
{
    *r = (dxsum4){{0}, {0}, {0}, {0}, {0}, {0}};
    if (nt > 0) /* the first term's first addition, peeled */
        dx_split_term(&t[0], gp, is, bil, one_word, true, r);
    for (int64_t i = 1; i < nt; i++)
        dx_split_term(&t[i], gp, is, bil, one_word, false, r);
}

/* ref_decide on four lanes, (s, c) the pair it is given before its two-sum: where every
 * quantity it looks at is finite with a fast exponent (ref_fast_exp) or 0, *known is -1 and
 * *dec -1 where it decides, with its *hi, *lo, operation for operation; other lanes are left to
 * ref_decide itself. */
static inline __attribute__((always_inline)) void
dxv_decide(const dxv *s, const dxv *c, const dxv *err, dxv *hi, dxv *lo, dxvi *dec, dxvi *known)
{
    typedef uint64_t dxvu __attribute__((vector_size(DXL * sizeof(double))));
    const dxvi expm = {0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000,
                       0x7ff0000000000000};
    const dxvi sgn = {INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN};
    const dxv inf = {INFINITY, INFINITY, INFINITY, INFINITY};
    dxv h = *s + *c, hb = h - *s, l = (*s - (h - hb)) + (*c - hb);
    dxvi be_h = (dxvi)((dxvu)h >> 52) & 0x7ff, be_l = (dxvi)((dxvu)l >> 52) & 0x7ff;
    dxvi hz = h == 0, lz = l == 0, ez = *err == 0;
    dxvi fast_h = (be_h != 0x7ff) & (be_h - 1023 >= REF_FAST_EMIN);
    dxvi fast_l = (be_l != 0x7ff) & (be_l - 1023 >= REF_FAST_EMIN);
    *known = (*err >= 0) & (*err < inf) & (hz | fast_h) & (lz | fast_l);
    /* r = ref_round_lo_bits(l) */
    dxv rc = (dxv)((dxvi)l & expm) * (0x1.8p0 * 0x1p21), r = (l + rc) - rc;
    /* h = 0: decided only when exact (0, 0); err = 0: (h, round(l)); else both tests. Every
     * lane exact (the sums of exact terms nearly always are): all decided, no tests */
    dxvi inexact = ~ez;
    *dec = ez;
    if (dxv_any(&inexact)) {
        /* half_gaps(|h|, 53) and half_gaps(|r|, REF_LO_BITS) */
        dxv a = DXV_ABS(h), e2 = (dxv)((dxvi)h & expm), g = e2 * 0x1p-53;
        dxv tw = (dxv)(((dxvi)(g * 0.5) & (a == e2)) | ((dxvi)g & ~(a == e2)));
        dxv L = (dxv)((dxvi)l ^ ((dxvi)h & sgn));
        dxvi t1 = ((g - L) * (1 - 0x1p-50) > *err) & ((tw + L) * (1 - 0x1p-50) > *err);
        _Static_assert(REF_LO_BITS == 32, "the gap below is 2^-32 of r's binade");
        dxv ar = DXV_ABS(r), e2r = (dxv)((dxvi)r & expm), gr = e2r * 0x1p-32;
        dxv twr = (dxv)(((dxvi)(gr * 0.5) & (ar == e2r)) | ((dxvi)gr & ~(ar == e2r)));
        dxv lam = (dxv)((dxvi)l ^ ((dxvi)r & sgn));
        dxvi t2 = (((ar + gr) - lam) > *err) & ((lam - (ar - twr)) > *err);
        *dec = (hz & ez) | (~hz & (ez | (t1 & ~lz & t2)));
    }
    *hi = (dxv)((dxvi)h & ~hz);
    *lo = (dxv)((((dxvi)l & lz) | ((dxvi)r & ~lz)) & ~hz);
}

/* Element e's answer from its sums (v, fl): the bound data, and its value where the terms are
 * non-finite or Ziv's test decides; else 1 (the MPFR path). */
static int dx_finish(const gctx *G, int64_t nt, const dxsum *r, ref_value *v, uint8_t *fl,
                     int64_t *hits)
{
    bool bil = G->p->interpolation == REF_INTERP_BILINEAR;
    v->nterms = nt;
    v->nops = bil ? 4 : 0;
    v->sum_abs = r->sabs * (1 + (double)(nt + 6) * 0x1p-52);
    v->coord_err = r->cerr * (1 + 0x1p-40);
    v->under_mag = r->mag * (1 + 0x1p-40);
    v->min_weight = 0;
    /* partial sums of |g·w| past the working range may overflow (FP32 for FP32 data) */
    if (r->sabs * (1 + 0x1p-40) > G->overflow_at)
        *fl |= REF_FLAG_RANGE;
    if (ref_nf_any(&r->cls)) {
        v->hi = ref_nf_value(&r->cls);
        v->lo = 0;
        v->sum_abs = INFINITY;
        *fl |= REF_FLAG_NONFINITE;
    } else if (G->force || !ref_decide(r->s, r->err, &v->hi, &v->lo)) {
        return 1;
    }
    (*hits)++;
    return 0;
}

/* out[l] = {a[l], b[l], c[l], d[l]}: four lanes' fields side by side, each one half of a
 * ref_value (two unpacks and two lane swaps a pair) */
static inline __attribute__((always_inline)) void
dxv_transpose(const dxv *a, const dxv *b, const dxv *c, const dxv *d, dxv out[DXL])
{
    /* __builtin_shufflevector: GCC 12 and clang both have it (avgpool_lanes.c too) */
    dxv ab0 = __builtin_shufflevector(*a, *b, 0, 4, 2, 6);
    dxv ab1 = __builtin_shufflevector(*a, *b, 1, 5, 3, 7);
    dxv cd0 = __builtin_shufflevector(*c, *d, 0, 4, 2, 6);
    dxv cd1 = __builtin_shufflevector(*c, *d, 1, 5, 3, 7);
    out[0] = __builtin_shufflevector(ab0, cd0, 0, 1, 4, 5);
    out[1] = __builtin_shufflevector(ab1, cd1, 0, 1, 4, 5);
    out[2] = __builtin_shufflevector(ab0, cd0, 2, 3, 6, 7);
    out[3] = __builtin_shufflevector(ab1, cd1, 2, 3, 6, 7);
}

_Static_assert(offsetof(ref_value, hi) == 0 && offsetof(ref_value, lo) == 8 &&
                   offsetof(ref_value, sum_abs) == 16 && offsetof(ref_value, nterms) == 24 &&
                   offsetof(ref_value, nops) == 32 && offsetof(ref_value, coord_err) == 40 &&
                   offsetof(ref_value, min_weight) == 48 && offsetof(ref_value, under_mag) == 56 &&
                   sizeof(ref_value) == 64,
               "dx_finish4 writes a ref_value as two rows of four doubles");

/* dx_finish of four planes' element from dx_sum_split's sums (every term finite): lane l is
 * element i + l·stride of the chunk out, marked in fallback (zero before) where undecided. The
 * values are made as vectors and stored as two rows each (not field by field from extracted
 * lanes). */
static inline __attribute__((always_inline)) void
dx_finish4(const gctx *G, int64_t nt, const dxsum4 *r, int64_t i, int64_t stride,
           uint8_t *fallback, ref_output *out, int64_t *hits)
{
    int64_t nops = G->p->interpolation == REF_INTERP_BILINEAR ? 4 : 0;
    dxv sum_abs = r->sabs * (1 + (double)(nt + 6) * 0x1p-52), cerr = r->cerr * (1 + 0x1p-40);
    dxv mag = r->mag * (1 + 0x1p-40), hi, lo;
    dxvi range = r->sabs * (1 + 0x1p-40) > G->overflow_at, dec, known;
    dxv_decide(&r->s, &r->c, &r->err, &hi, &lo, &dec, &known);
    dxv ntv = (dxv)(dxvi){nt, nt, nt, nt}, nopv = (dxv)(dxvi){nops, nops, nops, nops};
    dxv zero = {0, 0, 0, 0}, row0[DXL], row1[DXL];
    dxv_transpose(&hi, &lo, &sum_abs, &ntv, row0);
    dxv_transpose(&nopv, &cerr, &zero, &mag, row1);
    dxvi d = known & dec & 1;
    /* the rows stored from registers (an unaligned vector type: no copy through the stack) */
    typedef double dxv_row __attribute__((vector_size(sizeof(dxv)), aligned(8), may_alias));
    ref_value *v0 = out->v + i;
    *(dxv_row *)&v0[0] = row0[0];
    *(dxv_row *)&v0[0].nops = row1[0];
    *(dxv_row *)&v0[stride] = row0[1];
    *(dxv_row *)&v0[stride].nops = row1[1];
    *(dxv_row *)&v0[2 * stride] = row0[2];
    *(dxv_row *)&v0[2 * stride].nops = row1[2];
    *(dxv_row *)&v0[3 * stride] = row0[3];
    *(dxv_row *)&v0[3 * stride].nops = row1[3];
    dxvi odd = range | ~(known & dec); /* a flag to set, a lane for ref_decide or for MPFR */
    if (!dxv_any(&odd)) { /* the common case: nothing to mark */
        *hits += DXL;
        return;
    }
    for (int l = 0; l < DXL; l++, i += stride) {
        ref_value *v = &out->v[i];
        if (range[l])
            out->flags[i] |= REF_FLAG_RANGE;
        int64_t dl = known[l] ? d[l]
                              : ref_decide(ref_two_sum(r->s[l], r->c[l]), r->err[l], &v->hi, &v->lo);
        fallback[i] = (uint8_t)!dl;
        *hits += dl;
    }
}

/* The elements marked in fallback, from their exact terms (gathered in one scan of the points)
 * summed by MPFR. */
static int dx_mpfr(const gctx *G, const gpoint *pts, int64_t n, int64_t c, const uint8_t *fallback,
                   mterms *mt, ref_value *vals, int64_t *falls)
{
    const ref_grid_params *p = G->p;
    int64_t hw_out = p->h_out * p->w_out, hw_in = p->h_in * p->w_in;
    /* one scan collecting the exact terms of every element that needs MPFR */
    int64_t *off = malloc((size_t)(hw_in + 1) * sizeof *off), *fill = calloc((size_t)hw_in, sizeof *fill);
    if (!off || !fill) {
        free(off);
        free(fill);
        return -1;
    }
    off[0] = 0;
    for (int64_t e = 0; e < hw_in; e++)
        off[e + 1] = off[e] + (fallback[e] ? vals[e].nterms : 0);
    mt->n = 0;
    for (int64_t i = 0; i < off[hw_in]; i++)
        (void)mterm(mt, 64);
    for (int64_t pix = 0; pix < hw_out; pix++) {
        const gpoint *pt = &pts[pix];
        if (pt->out || pt->unres)
            continue;
        const grid_outcome *ox = &pt->ax[0].o[0], *oy = &pt->ax[1].o[0];
        double g = G->go[(n * p->c + c) * hw_out + pix];
        corner cs[4];
        int nc = corners(p, ox, oy, cs);
        for (int k = 0; k < nc; k++) {
            int64_t e = cs[k].e;
            if (!fallback[e])
                continue;
            mpfr_ptr t = mt->t[off[e] + fill[e]++];
            mpfr_set_prec(t, 2);
            mpfr_set_ui(t, 1, MPFR_RNDN);
            grid_weight_mul(t, ox, cs[k].kx);
            grid_weight_mul(t, oy, cs[k].ky);
            mpfr_prec_round(t, mpfr_get_prec(t) + 53 + 8, MPFR_RNDN);
            mpfr_mul_d(t, t, g, MPFR_RNDN);
        }
    }
    mpfr_ptr *ptrs = malloc((size_t)(off[hw_in] + 1) * sizeof *ptrs);
    for (int64_t e = 0; e < hw_in && ptrs; e++) {
        if (!fallback[e])
            continue;
        for (int64_t i = off[e]; i < off[e + 1]; i++)
            ptrs[i - off[e]] = mt->t[i];
        ref_finish_mpfr_sum(ptrs, (unsigned long)(off[e + 1] - off[e]), &vals[e].hi, &vals[e].lo, NULL);
        (*falls)++;
    }
    int rc = ptrs ? 0 : -1; /* no room for the pointers: the elements are not written */
    free(ptrs);
    free(off);
    free(fill);
    return rc;
}

/* The elements of plane (n, c) (at offset at of the chunk out) that ambiguous or unresolvable
 * points reach: their legal alternatives, or an interval (dx_interval). */
static int dx_ambiguous(const gctx *G, const gpoint *pts, const dxamb *amb, int namb,
                        const int *tn, const int *tl, const dxreach *R, bool any_unres, int64_t n,
                        int64_t c, int64_t at, mterms *mt, ref_output *out, ref_altlist *alts)
{
    const ref_grid_params *p = G->p;
    int64_t hw_in = p->h_in * p->w_in;
    ref_value *vals = out->v + at;
    uint8_t *fl = out->flags + at;
    /* elements reached by ambiguous points: every combination of their variants; too many
     * combinations, or an unresolvable point in the batch: an interval */
    dx_unc unres = any_unres ? plane_unresolved(G, pts, n, c) : (dx_unc){0};
    double *ival = out->ival ? out->ival + 2 * at : NULL;
    for (int64_t e = 0; e < hw_in && (tn || any_unres); e++) {
        if (!any_unres && tn[e] == 0)
            continue;
        dxamb sel[AMB_PER_ELEM];
        long combos = 1;
        for (int i = 0; tn && i < tn[e]; i++) {
            sel[i] = amb[tl[e * AMB_PER_ELEM + i]];
            combos *= sel[i].nv;
        }
        if (any_unres || tn[e] < 0 || combos > REF_MAX_ALTS) {
            dx_interval(G, pts, R, amb, namb, tn, tl, unres, n, c, e, mt, &vals[e], &fl[e], ival);
            continue;
        }
        if (tn[e] == 0)
            continue;
        ref_altlist *L = &alts[at + e];
        if (ref_altlist_push(L, &vals[e]) != 0)
            return -1;
        int ch[AMB_PER_ELEM] = {0};
        for (long k = 1; k < combos; k++) {
            long r = k;
            for (int i = 0; i < tn[e]; i++) {
                ch[i] = (int)(r % sel[i].nv);
                r /= sel[i].nv;
            }
            ref_value v;
            dx_combo_value(G, pts, R, n, c, e, sel, ch, tn[e], mt, &v);
            v.coord_err = vals[e].coord_err;
            if (ref_altlist_push(L, &v) != 0)
                return -1;
        }
    }
    return 0;
}

/* What dx of batch n needs besides the points and their terms: the ambiguous points (amb), per
 * element the ones that may reach it (tn, tl), the certain points reaching each element (R). */
typedef struct {
    dxamb *amb;
    int namb;
    bool any_unres;
    int *tn, *tl;
    dxreach R;
} dx_batch;

#define DX_AHEAD 3 /* elements between a gradOutput prefetch and its use (dx_block) */

/* The gradOutput lines element e + DX_AHEAD reads in planes cb.., asked for now: the points
 * are anywhere in the batch, so those loads would otherwise wait on L2 or beyond */
static inline __attribute__((always_inline)) void
dx_prefetch(const dxterms *T, const batch_view *bv, int64_t e, int64_t hw_in, int64_t cb)
{
    for (int64_t i = e + DX_AHEAD < hw_in ? T->off[e + DX_AHEAD] : 0;
         e + DX_AHEAD < hw_in && i < T->off[e + DX_AHEAD + 1]; i++)
        __builtin_prefetch(bv->go + T->t[i].pix * bv->go_is + cb * bv->go_cs);
}

/* dx_block where every group of planes cb .. ce − 1 suits dx_sum_split, its flags constant: a
 * loop without a test per group for each case. */
static inline __attribute__((always_inline)) void
dx_block_split(const gctx *G, const dxterms *T, const batch_view *bv, int64_t c0, int64_t cb,
               int64_t ce, int64_t e0, int64_t e1, bool bil, bool one_word, uint8_t *fallback,
               ref_output *out, int64_t *hits)
{
    int64_t hw_in = G->p->h_in * G->p->w_in;
    for (int64_t e = e0; e < e1; e++) {
        const dxterm *t = T->t + T->off[e];
        int64_t nt = T->off[e + 1] - T->off[e];
        dx_prefetch(T, bv, e, hw_in, cb);
        for (int64_t c = cb; c < ce; c += DXL) {
            dxsum4 r;
            dx_sum_split(t, nt, bv->go + c, bv->go_is, bil, one_word, &r);
            dx_finish4(G, nt, &r, (c - c0) * hw_in + e, hw_in, fallback, out, hits);
        }
    }
}

/* Elements e0 .. e1 − 1 of the DXL-plane groups g0 .. g1 − 1 of the chunk out (planes c0 ..
 * c0 + np − 1 of input_grad, group g from plane c0 + g·DXL, plane c0 at offset 0): every
 * element's sums and the values they decide; the others marked in fallback (zero before, laid
 * out as the chunk). split[g]: group g's planes suit dx_sum_split when the terms do (T->split).
 * An element's groups one after
 * the other: they read the same points' gradOutput (channel-innermost, so mostly the same cache
 * lines) while those are in L1. */
GRID_CLONES static void dx_block(const gctx *G, const dxterms *T, const batch_view *bv, int64_t c0,
                                 int64_t np, int64_t g0, int64_t g1, const bool *split, int64_t e0,
                                 int64_t e1, uint8_t *fallback, ref_output *out, int64_t *hits_out)
{
    int64_t hw_in = G->p->h_in * G->p->w_in, hits_local = 0, *hits = &hits_local;
    bool bil = G->p->interpolation == REF_INTERP_BILINEAR, all = T->split;
    int64_t cb = c0 + g0 * DXL, ce = c0 + np < c0 + g1 * DXL ? c0 + np : c0 + g1 * DXL;
    for (int64_t g = g0; g < g1; g++)
        all = all && split[g];
    if (all && bil && T->one_word)
        dx_block_split(G, T, bv, c0, cb, ce, e0, e1, true, true, fallback, out, hits);
    else if (all && bil)
        dx_block_split(G, T, bv, c0, cb, ce, e0, e1, true, false, fallback, out, hits);
    else if (all)
        dx_block_split(G, T, bv, c0, cb, ce, e0, e1, false, false, fallback, out, hits);
    for (int64_t e = e0; e < e1 && !all; e++) {
        const dxterm *t = T->t + T->off[e];
        int64_t nt = T->off[e + 1] - T->off[e];
        dx_prefetch(T, bv, e, hw_in, cb);
        for (int64_t c = cb; c < ce; c += DXL) {
            int64_t at = (c - c0) * hw_in;
            if (T->split && split[(c - c0) / DXL]) {
                dxsum4 r;
                if (bil)
                    dx_sum_split(t, nt, bv->go + c, bv->go_is, true, false, &r);
                else
                    dx_sum_split(t, nt, bv->go + c, bv->go_is, false, false, &r);
                dx_finish4(G, nt, &r, at + e, hw_in, fallback, out, hits);
                continue;
            }
            int nl = (int)(c0 + np - c < DXL ? c0 + np - c : DXL);
            dxsum r[DXL];
            for (int l = 0; l < nl; l++)
                r[l] = dx_sum_any(G, t, nt, bv->go + (c + l) * bv->go_cs, bv->go_is);
            for (int l = 0; l < nl; l++) {
                int64_t i = at + l * hw_in + e;
                fallback[i] = (uint8_t)dx_finish(G, nt, &r[l], &out->v[i], &out->flags[i], hits);
            }
        }
    }
    *hits_out += hits_local; /* counted in a register meanwhile */
}

/* Plane c of input_grad (at offset at of the chunk out) after dx_block: its marked elements by
 * MPFR, then the elements ambiguous points reach. */
static int dx_plane_rest(const gctx *G, const gpoint *pts, const dx_batch *D, int64_t n, int64_t c,
                         int64_t at, const uint8_t *fallback, mterms *mt, ref_output *out,
                         ref_altlist *alts, int64_t *falls)
{
    int64_t hw_in = G->p->h_in * G->p->w_in;
    bool any = memchr(fallback + at, 1, (size_t)hw_in) != NULL;
    if (any && dx_mpfr(G, pts, n, c, fallback + at, mt, out->v + at, falls) != 0)
        return -1;
    return dx_ambiguous(G, pts, D->amb, D->namb, D->tn, D->tl, &D->R, D->any_unres, n, c, at, mt,
                        out, alts);
}

/* At most this many doubles in a batch's channel-innermost copies (16 MiB): the gather then
 * reads a corner's channels from consecutive memory instead of one plane each. */
#define TRANSPOSE_MAX ((int64_t)1 << 21)

/* Batch n's view: the tensors, or with buf its channel-innermost copies (gradOutput's, and
 * input's with `in`: (hw_out + hw_in)·C doubles, else hw_out·C). */
static batch_view batch_view_of(const gctx *G, int64_t n, double *buf, bool in)
{
    const ref_grid_params *p = G->p;
    int64_t hw_out = p->h_out * p->w_out, hw_in = p->h_in * p->w_in, C = p->c;
    batch_view v = {G->go + n * C * hw_out, G->in + n * C * hw_in, hw_out, 1, hw_in, 1, false, 0, 0,
                    false, NULL};
    if (buf) {
        v.go = buf;
        v.go_cs = 1;
        v.go_is = C;
    }
    if (buf && in) {
        v.in = buf + hw_out * C;
        v.in_cs = 1;
        v.in_is = C;
    }
    return v;
}

/* Rows a batch_prepare block copies: each plane of a tile is read a run of 2 KiB (the hardware
 * prefetcher follows a run that long; 512 bytes ended each run before it did: the bench's grid
 * case's copies 15% faster, one thread), and a block's copy of 32 channels, 64 KiB, stays in L2 */
#define TRANSPOSE_ROWS 256

/* One value's part of batch_prepare's scan: plain (finite, at most 26 bits, 0 or ≥ 2^-484:
 * products exact and clear) and dx_g_ok, as bits set where they fail (bit 0, bit 1). */
static inline int scan_bad(double x)
{
    double a = fabs(x);
    return (!ref_short(x) || (x != 0 && !(a >= 0x1p-484 && a <= DBL_MAX))) | !dx_g_ok(x) << 1;
}

/* The same for four values, as lane masks (-1: fails) */
static inline __attribute__((always_inline)) void scan_bad4(const dxv *x, dxvi *plain,
                                                           dxvi *gbad)
{
    dxv a = DXV_ABS(*x);
    dxvi nz = *x != 0, lng = ((dxvi)*x & 0x7ffffff) != 0;
    *plain |= lng | (nz & ~((a >= 0x1p-484) & (a <= DBL_MAX)));
    *gbad |= lng | (nz & ~((a >= DX_G_MIN) & (a <= DX_G_MAX)));
}

/* Rows j0 .. j1 − 1 of one tensor's batch (plane c at src + c·hw): into dst channel-innermost when
 * not NULL, and scanned: *plain and gok[c] (when not NULL; shared by the team, so cleared by
 * relaxed atomic stores, each storing false) cleared where a value fails them, *m the largest
 * magnitude (NaN ignored, as ref_fmax does). Tiles of 8 channels × the rows: each plane is read a
 * run of consecutive elements at a time (a plane apart, reading one element per plane would map
 * every read to one cache set), whole cache lines both sides; a tile's 8 channels are two vectors. */
GRID_CLONES static void prepare_rows(const double *src, int64_t hw, int64_t C, int64_t j0,
                                     int64_t j1, double *dst, bool *gok, bool *plain, double *m)
{
    int bad = 0;
    double mx = *m;
    int64_t c0 = 0;
    for (; c0 + 8 <= C; c0 += 8) {
        dxvi pb = {0, 0, 0, 0}, gb[2] = {pb, pb};
        dxv mv = {mx, mx, mx, mx};
        const double *r = src + c0 * hw;
        for (int64_t j = j0; j < j1; j++) {
            for (int h = 0; h < 2; h++) {
                const double *q = r + 4 * h * hw + j;
                dxv x = {q[0], q[hw], q[2 * hw], q[3 * hw]}, a = DXV_ABS(x);
                if (dst)
                    memcpy(dst + j * C + c0 + 4 * h, &x, sizeof x);
                scan_bad4(&x, &pb, &gb[h]);
                dxvi gt = a > mv;
                mv = (dxv)(((dxvi)a & gt) | ((dxvi)mv & ~gt));
            }
        }
        for (int l = 0; l < 4; l++) {
            bad |= pb[l] != 0;
            mx = ref_fmax(mx, mv[l]);
            for (int h = 0; h < 2 && gok; h++)
                if (gb[h][l])
                    __atomic_store_n(&gok[c0 + 4 * h + l], false, __ATOMIC_RELAXED);
        }
    }
    for (int64_t j = j0; j < j1 && c0 < C; j++) /* the last channels, fewer than 8 */
        for (int64_t c = c0; c < C; c++) {
            double x = src[c * hw + j];
            int b = scan_bad(x);
            if (dst)
                dst[j * C + c] = x;
            if (gok && (b & 2))
                __atomic_store_n(&gok[c], false, __ATOMIC_RELAXED);
            bad |= b & 1;
            mx = ref_fmax(mx, fabs(x));
        }
    *plain = *plain && !bad;
    *m = mx;
}

/* Fills buf (when not NULL) with batch n's copies of batch_view_of and, with `scan` (v's plain true
 * and maxima 0 before), v's plain, max_go and max_in from the batch's gradOutput and input, and
 * with buf v->gsplit when not NULL (all true before; cleared in place, no per-thread copy to
 * allocate), read once for all. An omp for (called by every thread of the team) ending in one
 * barrier. Blocks of TRANSPOSE_ROWS rows (prepare_rows): the block's rows stay in cache while they
 * fill. */
static void batch_prepare(const gctx *G, int64_t n, double *buf, bool in, bool scan,
                          batch_view *v)
{
    const ref_grid_params *p = G->p;
    int64_t hw_out = p->h_out * p->w_out, hw_in = p->h_in * p->w_in, C = p->c;
    const double *go = G->go + n * C * hw_out, *gin = G->in + n * C * hw_in;
    int64_t bo = (hw_out + TRANSPOSE_ROWS - 1) / TRANSPOSE_ROWS;
    int64_t blocks = bo + (in || scan ? (hw_in + TRANSPOSE_ROWS - 1) / TRANSPOSE_ROWS : 0);
    bool plain = true, *gok = buf ? v->gsplit : NULL;
    double mg = 0, mi = 0;
    /* dynamic: a thread that starts late (the first call's new thread, or one the system holds
     * back) leaves its blocks to the other instead of making it wait at the barrier */
#pragma omp for schedule(dynamic, 1) nowait
    for (int64_t b = 0; b < blocks; b++) {
        bool o = b < bo;
        int64_t hw = o ? hw_out : hw_in, j0 = (o ? b : b - bo) * TRANSPOSE_ROWS;
        int64_t j1 = j0 + TRANSPOSE_ROWS < hw ? j0 + TRANSPOSE_ROWS : hw;
        const double *src = o ? go : gin;
        double *dst = buf ? buf + (o ? 0 : hw_out * C) : NULL;
        double m = 0;
        prepare_rows(src, hw, C, j0, j1, o || in ? dst : NULL, o ? gok : NULL, &plain, &m);
        if (o)
            mg = ref_fmax(mg, m);
        else
            mi = ref_fmax(mi, m);
    }
#pragma omp critical(grid_batch_prepare)
    {
        if (scan) {
            v->plain = v->plain && plain;
            v->max_go = ref_fmax(v->max_go, mg);
            v->max_in = ref_fmax(v->max_in, mi);
        }
    }
#pragma omp barrier
}

/* ---- driver ---- */

static int params_ok(const ref_grid_params *p)
{
    return p->n >= 0 && p->c >= 0 && p->h_in > 0 && p->w_in > 0 && p->h_out >= 0 && p->w_out >= 0 &&
           (p->interpolation == REF_INTERP_BILINEAR || p->interpolation == REF_INTERP_NEAREST ||
            p->interpolation == REF_INTERP_BICUBIC) &&
           (p->padding == REF_PAD_ZEROS || p->padding == REF_PAD_BORDER || p->padding == REF_PAD_REFLECTION);
}

static void point_eval(const gctx *G, int64_t n, int64_t pix, gpoint *pt, grid_scratch *t)
{
    const ref_grid_params *p = G->p;
    const double *gv = G->grid + (n * p->h_out * p->w_out + pix) * 2;
    for (int i = 0; i < 2; i++) { /* no outcomes yet (grid_axis_clear may follow) */
        pt->ax[i].n = 0;
        pt->ax[i].o = &pt->ax[i].first;
    }
    pt->unres = false;
    pt->out = !isfinite(gv[0]) || !isfinite(gv[1]);
    if (pt->out)
        return;
    grid_axis_eval(&pt->ax[0], gv[0], p->w_in, p, G->u_dev, t, !G->force);
    grid_axis_eval(&pt->ax[1], gv[1], p->h_in, p, G->u_dev, t, !G->force);
    pt->unres = pt->ax[0].unresolvable || pt->ax[1].unresolvable || !pt->ax[0].n || !pt->ax[1].n;
}

/* The interval offsets of out, a grid_grad chunk, allocated (zero) when an element first needs
 * them, by whichever thread: most batches need none, and 16 bytes an element are a sixth of a
 * kept chunk. NULL when out of memory. */
static double *chunk_ival(ref_output *out)
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
        v->sum_abs = ref_fmax(v->sum_abs, a->sum_abs);
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
GRID_CLONES static int dgrid_point(const gctx *G, const batch_view *bv, const gpoint *pt, int64_t n,
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
        if (pt->unres) /* until dgrid_unresolved gives it an interval */
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
                if (dgrid_value(G, &D, comp, mt, primary ? &v[comp] : &a,
                                primary ? &out->flags[base + comp] : &f))
                    (*hits)++;
                else
                    (*falls)++;
                if (ax->n * ay->n == 1)
                    continue;
                ref_altlist *L = &alts[base + comp];
                if (ref_altlist_push(L, primary ? &v[comp] : &a) != 0)
                    return -1;
            }
        }
    for (int comp = 0; comp < 2 && ax->n * ay->n > 1; comp++) {
        double *ival = alts[base + comp].n > REF_MAX_ALTS ? chunk_ival(out) : NULL;
        if (ival)
            alts_to_interval(&alts[base + comp], &v[comp], &out->flags[base + comp],
                             ival + 2 * (base + comp));
        else if (alts[base + comp].n > REF_MAX_ALTS)
            return -1;
    }
    return 0;
}

/* ---- dgrid, four points at once ----
 * dgrid_point's common case: a point with one outcome per axis, lean data (dgrid_lean) and
 * weights of one double each. Lanes are points: each lane makes dgrid_fill's lean sums
 * operation for operation, in its order (channel, then corner), so the bound fields are bitwise
 * the scalar ones; where the scalar code skips a term a lane adds +0, which leaves a sum of
 * magnitudes (from +0) as it is. The value Σ_k S_k·(w_k·sgn_k·scale) is summed from exact
 * double terms (Dekker's products: no FMA on either target) and decided by ref_decide, which
 * answers the exact value's (hi, lo) however it was approximated. A lane outside the range where
 * those products are exact, or undecided, takes dgrid_point. */

/* a·b − p exactly for p = RN(a·b), |a|, |b| within [2^-400, 2^400] or 0 (no overflow in the
 * split, no underflow in the partial products) */
static inline __attribute__((always_inline)) void dxv_prod_err(const dxv *a, const dxv *b,
                                                              const dxv *p, dxv *e)
{
    const dxv k = {0x1p27 + 1, 0x1p27 + 1, 0x1p27 + 1, 0x1p27 + 1};
    dxv ta = *a * k, ah = ta - (ta - *a), al = *a - ah;
    dxv tb = *b * k, bh = tb - (tb - *b), bl = *b - bh;
    *e = ((ah * bh - *p) + ah * bl + al * bh) + al * bl;
}

/* -1 where x is 0 or of magnitude within [2^-400, 2^400] */
#define DXV_MID(x) (((x) == 0) | ((DXV_ABS(x) >= 0x1p-400) & (DXV_ABS(x) <= 0x1p400)))

#define DXV_KEEP(x, m) ((dxv)((dxvi)(x) & ~(m))) /* x, or +0 where m is set */

/* What a lane group reads: per lane its point, gather data (corners, components) and where its
 * gradOutput and corner values lie. */
typedef struct {
    int n;                    /* live lanes; the others repeat lane 0 */
    int64_t pix[DXL];
    dgrid_gather D[DXL];
    const double *gb[DXL], *vb[4][DXL];
} dlanes;

/* Whether point pt takes the lanes: then D holds its corners and components. */
static bool dgrid_lane_ok(const gctx *G, const batch_view *bv, const gpoint *pt,
                          dgrid_gather *D)
{
    if (pt->out || pt->unres || G->p->interpolation != REF_INTERP_BILINEAR || pt->ax[0].n != 1 ||
        pt->ax[1].n != 1)
        return false;
    const grid_outcome *ox = &pt->ax[0].o[0], *oy = &pt->ax[1].o[0];
    if (ox->dd_inexact || oy->dd_inexact || ox->d0.lo != 0 || ox->d1.lo != 0 || oy->d0.lo != 0 ||
        oy->d1.lo != 0)
        return false;
    D->nc = corners(G->p, ox, oy, D->cs);
    dgrid_comp_init(G, pt, ox, oy, D, 0, &D->comp[0]);
    dgrid_comp_init(G, pt, ox, oy, D, 1, &D->comp[1]);
    return dgrid_lean(G, bv, D);
}

/* The lanes' per-component constants: weight and masks per corner (skipped: no mag or sabs
 * term; cskip: no coordinate term), scale, max(1, |scale|), δ·sens, |scale|·δ·sens. */
typedef struct {
    dxv w[4], sc[4], scale, mscale, dl, sdl;
    dxvi skip[4], cskip[4];
    int64_t nt[DXL];          /* terms counted (not skipped) */
} dlane_comp;

static void dlane_comp_of(const dlanes *L, int comp, int64_t C, dlane_comp *q)
{
    for (int j = 0; j < DXL; j++) {
        const dgrid_comp *d = &L->D[j].comp[comp];
        q->nt[j] = 0;
        q->scale[j] = d->scale;
        q->mscale[j] = d->mscale;
        q->dl[j] = d->dl;
        q->sdl[j] = fabs(d->scale) * d->dl;
        for (int k = 0; k < 4; k++) {
            bool in = k < L->D[j].nc;
            q->w[k][j] = in ? d->wk[k]->hi : 0;
            q->sc[k][j] = in ? d->sgn[k] * d->scale : 0;
            q->skip[k][j] = !in || d->skip[k] ? -1 : 0;
            q->cskip[k][j] = q->skip[k][j] || !(d->dl > 0) ? -1 : 0;
            q->nt[j] += q->skip[k][j] ? 0 : C;
        }
    }
}

/* Whether a lane of q skips a term of some corner (a magnitude or coordinate term). */
static bool dlane_masked(const dlane_comp q[2])
{
    dxvi any = {0, 0, 0, 0};
    for (int comp = 0; comp < 2; comp++)
        for (int k = 0; k < 4; k++)
            any |= q[comp].skip[k] | q[comp].cskip[k];
    return dxv_any(&any);
}

/* Whether every lane's |scale| of both components is a power of two 2^k, k ≥ 0 (the bench's
 * size/2 = 32 is), with |scale|·δ·sens finite: then a product by |scale| is exact, and so is
 * each partial sum of such products: a sum of scaled terms is the scaled sum (its roundings
 * scale too, the data being lean: no overflow; a sum of nonnegative doubles in the subnormal
 * range is exact), and RN(|vg·scale|·dl) = RN(|vg|·(|scale|·dl)). */
static bool dlane_pow2(const dlane_comp q[2])
{
    typedef uint64_t dxvu __attribute__((vector_size(DXL * sizeof(double))));
    const dxv inf = {INFINITY, INFINITY, INFINITY, INFINITY};
    dxvi bad = {0, 0, 0, 0};
    for (int comp = 0; comp < 2; comp++) {
        dxvu b = (dxvu)DXV_ABS(q[comp].scale), e = b >> 52;
        bad |= (dxvi)((b & 0xfffffffffffff) != 0) | (dxvi)(e < 1023) | (dxvi)(e > 2046) |
               ~(q[comp].sdl < inf);
    }
    return !dxv_any(&bad);
}

/* The lanes' sums over the channels: per corner S_k = Σ val·g (s + c, dropped error e), per
 * component Σ of the magnitude, |term| and coordinate term as dgrid_fill's lean pass. Without
 * `masked` no lane skips a term (dlane_comp's masks all 0): a loop without them. With pow2
 * (dlane_pow2, unmasked) the magnitudes max(1, |val|)·max(1, |g|) are summed once for both
 * components and the |terms| before the scale, both scaled at the end (the same doubles). */
typedef struct { dxv s[4], c[4], e[4], mag[2], sabs[2], cerr[2]; } dlane_sums;

static inline __attribute__((always_inline)) void
dlanes_fill(const dlanes *L, const dlane_comp q[2], int64_t C, int64_t go_cs, int64_t in_cs,
            bool masked, bool pow2, dlane_sums *r)
{
    const dxv one = {1, 1, 1, 1};
    memset(r, 0, sizeof *r);
    for (int64_t c = 0; c < C; c++) {
        int64_t ag_ = c * go_cs, at = c * in_cs;
        dxv g = {L->gb[0][ag_], L->gb[1][ag_], L->gb[2][ag_], L->gb[3][ag_]};
        dxv ag = DXV_ABS(g);
        dxvi gsmall = ag < one; /* ref_fmax(1, |g|) */
        dxv mg = (dxv)(((dxvi)one & gsmall) | ((dxvi)ag & ~gsmall));
#pragma GCC unroll 4
        for (int k = 0; k < 4; k++) {
            dxv val = {L->vb[k][0][at], L->vb[k][1][at], L->vb[k][2][at], L->vb[k][3][at]};
            dxv vg = val * g, aval = DXV_ABS(val);
            dxv_exact_add(&r->s[k], &r->c[k], &r->e[k], &vg);
            dxvi big = aval >= one;
            dxv gm = (dxv)(((dxvi)aval & big) | ((dxvi)one & ~big)) * mg;
            if (pow2) {
                r->mag[0] += gm;
#pragma GCC unroll 2
                for (int comp = 0; comp < 2; comp++) {
                    r->sabs[comp] += DXV_ABS(val * (g * q[comp].w[k]));
                    r->cerr[comp] += DXV_ABS(vg) * q[comp].sdl;
                }
                continue;
            }
#pragma GCC unroll 2
            for (int comp = 0; comp < 2; comp++) {
                dxv t = val * (g * q[comp].w[k]);
                dxv ats = DXV_ABS(t * q[comp].scale), gms = gm * q[comp].mscale;
                dxv vgs = DXV_ABS(vg * q[comp].scale) * q[comp].dl;
                if (masked) {
                    gms = DXV_KEEP(gms, q[comp].skip[k]);
                    ats = DXV_KEEP(ats, q[comp].skip[k]);
                    vgs = DXV_KEEP(vgs, q[comp].cskip[k]);
                }
                r->mag[comp] += gms;
                r->sabs[comp] += ats;
                r->cerr[comp] += vgs;
            }
        }
    }
    for (int comp = 1; comp >= 0 && pow2; comp--) { /* mag[0] last: mag[1] scales its sum */
        r->mag[comp] = r->mag[0] * q[comp].mscale;
        r->sabs[comp] *= DXV_ABS(q[comp].scale);
    }
}

/* Component q's value per lane from the sums: Σ_k (s_k + c_k)·(w_k·sc_k) as sixteen exact
 * doubles summed error-free into (*s, *c), with *err bounding the distance to the exact value
 * (the sums' dropped errors e_k scaled, the final sum's own); *ok -1 where a lane's products
 * are all exact. */
static inline __attribute__((always_inline)) void
dlanes_value(const dlane_sums *r, const dlane_comp *q, dxv *s, dxv *c, dxv *err, dxvi *ok)
{
    const dxv zero = {0, 0, 0, 0};
    dxv es = zero;
    *ok = ~(dxvi){0, 0, 0, 0};
    *s = *c = *err = zero;
    for (int k = 0; k < 4; k++) {
        dxv ws = q->w[k] * q->sc[k], wse, t[4];
        dxv_prod_err(&q->w[k], &q->sc[k], &ws, &wse);
        *ok &= DXV_MID(q->w[k]) & DXV_MID(q->sc[k]) & DXV_MID(ws) & (wse == 0);
        /* S_k as the pair (hi, lo) = two_sum(s_k, c_k) */
        dxv h = r->s[k] + r->c[k], hb = h - r->s[k];
        dxv l = (r->s[k] - (h - hb)) + (r->c[k] - hb);
        *ok &= DXV_MID(h) & DXV_MID(l);
        t[0] = h * ws;
        t[2] = l * ws;
        dxv_prod_err(&h, &ws, &t[0], &t[1]);
        dxv_prod_err(&l, &ws, &t[2], &t[3]);
        for (int i = 0; i < 4; i++)
            dxv_exact_add(s, c, err, &t[i]);
        es += r->e[k] * DXV_ABS(ws);
    }
    *err = (*err + es) * (1 + 0x1p-49); /* the products and sums of the bounds, rounded */
}

/* Lane j's component comp from its value (hi, lo): dgrid_value's other fields and range test
 * (pmax and pre being 0 on the lean pass). */
static void dlane_write(const gctx *G, const dlane_comp *q, const dlane_sums *r, int comp, int j,
                        double hi, double lo, ref_value *v, uint8_t *flags)
{
    int64_t nt = q->nt[j];
    double sabs = r->sabs[comp][j];
    *v = (ref_value){.hi = hi, .lo = lo, .sum_abs = sabs * (1 + (double)(nt + 6) * 0x1p-52),
                     .nterms = nt, .nops = 4, .coord_err = r->cerr[comp][j] * (1 + 0x1p-40),
                     .under_mag = r->mag[comp][j] * (1 + 0x1p-40)};
    if (sabs * (1 + 0x1p-40) > G->overflow_at)
        *flags |= REF_FLAG_RANGE;
}

/* dgrid of L's points into out (batch chunk); undecided lanes by dgrid_point. */
GRID_CLONES static int dgrid_lanes(const gctx *G, const batch_view *bv, const gpoint *pts,
                                   dlanes *L, int64_t n, mterms *mt, ref_output *out,
                                   ref_altlist *alts, int64_t *hits, int64_t *falls)
{
    for (int j = L->n; j < DXL; j++) {
        L->pix[j] = L->pix[0];
        L->D[j] = L->D[0];
    }
    for (int j = 0; j < DXL; j++) {
        const dgrid_gather *D = &L->D[j];
        L->gb[j] = bv->go + L->pix[j] * bv->go_is;
        for (int k = 0; k < 4; k++) /* absent corners read the batch's first value */
            L->vb[k][j] = k < D->nc ? bv->in + D->cs[k].e * bv->in_is : bv->in;
    }
    dlane_comp q[2];
    dlane_comp_of(L, 0, G->p->c, &q[0]);
    dlane_comp_of(L, 1, G->p->c, &q[1]);
    dlane_sums r;
    if (dlane_masked(q))
        dlanes_fill(L, q, G->p->c, bv->go_cs, bv->in_cs, true, false, &r);
    else if (dlane_pow2(q))
        dlanes_fill(L, q, G->p->c, bv->go_cs, bv->in_cs, false, true, &r);
    else
        dlanes_fill(L, q, G->p->c, bv->go_cs, bv->in_cs, false, false, &r);
    dxv s[2], c[2], err[2], hi[2], lo[2];
    dxvi ok[2], dec[2], known[2];
    for (int comp = 0; comp < 2; comp++) {
        dlanes_value(&r, &q[comp], &s[comp], &c[comp], &err[comp], &ok[comp]);
        dxv_decide(&s[comp], &c[comp], &err[comp], &hi[comp], &lo[comp], &dec[comp], &known[comp]);
    }
    for (int j = 0; j < L->n; j++) {
        double h[2], l[2];
        bool done = true;
        for (int comp = 0; comp < 2 && done; comp++) {
            h[comp] = hi[comp][j];
            l[comp] = lo[comp][j];
            done = ok[comp][j] && (known[comp][j] ? dec[comp][j] != 0
                                                  : ref_decide(ref_two_sum(s[comp][j], c[comp][j]),
                                                               err[comp][j], &h[comp], &l[comp]));
        }
        int64_t base = L->pix[j] * 2;
        if (!done) {
            if (dgrid_point(G, bv, &pts[L->pix[j]], n, L->pix[j], mt, out, alts, hits, falls))
                return -1;
            continue;
        }
        for (int comp = 0; comp < 2; comp++)
            dlane_write(G, &q[comp], &r, comp, j, h[comp], l[comp], &out->v[base + comp],
                        &out->flags[base + comp]);
        *hits += 2;
    }
    return 0;
}

/* dgrid of points p0 .. p1 − 1 of batch n: the lanes where they apply, else dgrid_point. */
static int dgrid_points(const gctx *G, const batch_view *bv, const gpoint *pts, int64_t n,
                        int64_t p0, int64_t p1, mterms *mt, ref_output *out, ref_altlist *alts,
                        int64_t *hits, int64_t *falls)
{
    dlanes L;
    L.n = 0;
    for (int64_t pix = p0; pix < p1; pix++) {
        if (dgrid_lane_ok(G, bv, &pts[pix], &L.D[L.n])) {
            L.pix[L.n++] = pix;
            if (L.n == DXL && dgrid_lanes(G, bv, pts, &L, n, mt, out, alts, hits, falls))
                return -1;
            L.n = L.n == DXL ? 0 : L.n;
        } else if (dgrid_point(G, bv, &pts[pix], n, pix, mt, out, alts, hits, falls)) {
            return -1;
        }
    }
    return L.n && dgrid_lanes(G, bv, pts, &L, n, mt, out, alts, hits, falls) ? -1 : 0;
}

/* Every grid point's data of batch n at unknown corners and weights: per channel c the largest
 * |input| of its plane (the dgrid interval of an unresolvable point). */
static double *plane_maxabs(const gctx *G, int64_t n)
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
static void dgrid_unresolved(const gctx *G, int64_t n, int64_t pix, const double *maxabs,
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
        mag += 4 * ref_fmax(1, fabs(g)) * ref_fmax(1, maxabs[c]);
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

/* What a batch's chunks share: its points, the channel-innermost copies (tbuf, or NULL) and
 * room for dx's terms (pe: 4·hw_out, the element of each point's; terms: 4·hw_out, toff:
 * hw_in + 1, per element). */
typedef struct {
    gpoint *pts;
    uint8_t *kind;    /* per point, what the serial passes over the points ask (PT_*): one byte
                       * each instead of the points' 216 bytes apart */
    double *tbuf;
    dxterm *terms;
    int64_t *pe, *toff;
    int64_t *tcnt;    /* dx: per thread, hw_in term counts (dx_terms_team) */
    int64_t *tslot;   /* and its next slot of each element */
    bool tsplit, tone_word; /* dx_terms_team: dxterms.split and .one_word of terms (true
                             * before) */
    bool *gsplit;     /* per channel, with tbuf for dx (batch_view.gsplit) */
} batch_work;

/* The batch's terms (dx_term of each point's corners, pe their elements: dx_point_elems) into
 * terms, each element's in point order, toff its offsets, tsplit and tone_word: called by every
 * thread of a team. Each thread takes a share of the points in order and puts its terms of an
 * element after the earlier threads' (counts, offsets from one thread, then the terms made by
 * all, each stored where it belongs: stores all over the terms, but no copy of them in point
 * order to write and read again). */
GRID_CLONES static void dx_terms_team(const ref_grid_params *p, batch_work *W)
{
    int th = omp_get_thread_num(), nth = omp_get_num_threads();
    int64_t n = p->h_out * p->w_out, hw_in = p->h_in * p->w_in;
    int64_t p0 = n * th / nth, p1 = n * (th + 1) / nth, *cnt = W->tcnt + th * hw_in;
    memset(cnt, 0, (size_t)hw_in * sizeof *cnt);
    for (int64_t i = 4 * p0; i < 4 * p1; i++)
        if (W->pe[i] >= 0)
            cnt[W->pe[i]]++;
#pragma omp barrier
    /* this thread's first slot of each element, from every thread's counts (each thread its own:
     * no second barrier for one thread to make them); thread 0 the offsets too */
    int64_t at = 0, *slot = W->tslot + th * hw_in;
    for (int64_t e = 0; e < hw_in; e++) {
        if (th == 0)
            W->toff[e] = at;
        for (int k = 0; k < nth; k++) {
            slot[e] = k == th ? at : slot[e];
            at += W->tcnt[k * hw_in + e];
        }
    }
    if (th == 0)
        W->toff[hw_in] = at;
    bool split = true, one_word = true;
    for (int64_t pix = p0; pix < p1; pix++) {
        corner cs[4];
        int nc = W->pe[4 * pix] >= 0 ? dx_point_corners(p, &W->pts[pix], cs) : 0;
        for (int k = 0; k < nc; k++) {
            dxterm *t = &W->terms[slot[cs[k].e]++];
            dx_term(&W->pts[pix], pix, &cs[k], t);
            split = split && t->split;
            one_word = one_word && t->part[2] == 0;
        }
    }
#pragma omp critical(grid_dx_terms)
    {
        W->tsplit = W->tsplit && split;
        W->tone_word = W->tone_word && one_word;
    }
}

enum {
    PT_OUT = 1,
    PT_UNRES = 2,
    PT_MULTI = 4, /* several outcome pairs */
    PT_CLEAR = 8  /* MPFR weights or an outcome array for grid_axis_clear to free */
};

static uint8_t point_kind(const gpoint *pt)
{
    const grid_axis *ax = &pt->ax[0], *ay = &pt->ax[1];
    return (uint8_t)((pt->out ? PT_OUT : 0) | (pt->unres ? PT_UNRES : 0) |
                     (ax->n * ay->n > 1 ? PT_MULTI : 0) |
                     ((ax->n && ax->o[0].mp) || (ay->n && ay->o[0].mp) || ax->n > 1 ||
                              ay->n > 1
                          ? PT_CLEAR
                          : 0));
}

#define POINT_BLOCK 64 /* points per OpenMP work item */

/* Parts of one work block: each rounded to 64 bytes (whole cache lines); NULL for 0 bytes. */
#define WORK_ROUND(b) (((b) + 63) & ~(size_t)63)
static void *work_carve(char **at, size_t bytes)
{
    void *p = bytes ? *at : NULL;
    *at += WORK_ROUND(bytes);
    return p;
}

/* The call's work block of `total` bytes, *raw what to free. From two huge pages on it starts on
 * a huge-page boundary and spans whole ones, inside an allocation one huge page larger, which
 * ref_big_alloc asks to be huge pages: a block malloc places leaves up to 2 MiB at each end in
 * 4 KiB pages (on the bench's grid case ~950 of the first call's ~1040 faults, with the chunk
 * buffer's). posix_memalign would ask the allocator for more than the size it last freed on
 * every call, so it would map fresh memory each time; this size is the same from call to call. */
static char *work_block(size_t total, char **raw)
{
    const size_t huge = (size_t)2 << 20;
    if (total < 2 * huge)
        return *raw = ref_big_alloc(total, 1, false);
    size_t span = (total + huge - 1) & ~(huge - 1);
    *raw = ref_big_alloc(span + huge, 1, false);
    return *raw ? (char *)(((uintptr_t)*raw + huge - 1) & ~(uintptr_t)(huge - 1)) : NULL;
}

/* A chunk buffer of cap elements carved from a work block, set up as ref_output_alloc sets its
 * arrays once chunkbuf_view_clear has (no alternatives: index -1, count 0); ref_chunkbuf_start
 * clears the rest before each use. Its interval offsets are allocated on first need
 * (ref_chunkbuf_ival, chunk_ival): they and the alternatives ref_output_set_alts attaches are
 * its own to free, the rest the block's. */
static size_t chunkbuf_view_bytes(int64_t cap)
{
    size_t n = (size_t)(cap > 0 ? cap : 1);
    return WORK_ROUND(n * sizeof(ref_value)) + WORK_ROUND(n) + WORK_ROUND(n * sizeof(int64_t)) +
           WORK_ROUND(n * sizeof(int32_t));
}

static void chunkbuf_view(ref_chunkbuf *b, int64_t cap, char **at)
{
    size_t n = (size_t)(cap > 0 ? cap : 1);
    memset(b, 0, sizeof *b);
    b->cap = (int64_t)n;
    b->o.v = work_carve(at, n * sizeof(ref_value));
    b->o.flags = work_carve(at, n);
    b->o.alt_first = work_carve(at, n * sizeof(int64_t));
    b->o.alt_count = work_carve(at, n * sizeof(int32_t));
}

static void chunkbuf_view_clear(ref_chunkbuf *b)
{
    memset(b->o.alt_first, 0xff, (size_t)b->cap * sizeof(int64_t)); /* -1: two's complement */
    memset(b->o.alt_count, 0, (size_t)b->cap * sizeof(int32_t));
}

static void dx_batch_free(dx_batch *D)
{
    free(D->amb);
    free(D->tn);
    free(D->tl);
    free(D->R.off);
    free(D->R.pix);
    memset(D, 0, sizeof *D);
}

static int dx_batch_build(const ref_grid_params *p, const batch_work *W, dx_batch *D)
{
    const gpoint *pts = W->pts;
    int64_t hw_out = p->h_out * p->w_out, hw_in = p->h_in * p->w_in;
    memset(D, 0, sizeof *D);
    for (int64_t pix = 0; pix < hw_out; pix++) {
        D->any_unres = D->any_unres || (W->kind[pix] & PT_UNRES);
        if ((W->kind[pix] & (PT_OUT | PT_UNRES | PT_MULTI)) != PT_MULTI)
            continue;
        dxamb d;
        dx_variants(p, &pts[pix], &d);
        if (d.nv > 1) {
            dxamb *na = realloc(D->amb, (size_t)(D->namb + 1) * sizeof *D->amb);
            if (!na)
                return -1;
            D->amb = na;
            d.pix = pix;
            D->amb[D->namb++] = d;
        }
    }
    /* per element, the ambiguous points that may reach it (-1: too many) */
    int namb = D->namb;
    D->tn = namb ? calloc((size_t)hw_in, sizeof *D->tn) : NULL;
    D->tl = namb ? malloc((size_t)hw_in * AMB_PER_ELEM * sizeof *D->tl) : NULL;
    if (namb && (!D->tn || !D->tl))
        return -1;
    int *tn = D->tn, *tl = D->tl;
    for (int i = 0; i < namb; i++)
        for (int k = 0; k < D->amb[i].nv; k++) {
            corner cs[4];
            int nc = corners(p, &pts[D->amb[i].pix].ax[0].o[D->amb[i].vx[k]],
                             &pts[D->amb[i].pix].ax[1].o[D->amb[i].vy[k]], cs);
            for (int j = 0; j < nc; j++) {
                int64_t e = cs[j].e;
                if (tn[e] < 0 || (tn[e] > 0 && tl[e * AMB_PER_ELEM + tn[e] - 1] == i))
                    continue;
                if (tn[e] == AMB_PER_ELEM)
                    tn[e] = -1;
                else
                    tl[e * AMB_PER_ELEM + tn[e]++] = i;
            }
        }
    if ((namb || D->any_unres) && dxreach_build(p, pts, D->amb, namb, &D->R) != 0)
        return -1;
    return 0;
}

/* ---- one OpenMP team per call ----
 * Every batch's steps run in one team, separated by barriers (a parallel region costs a wake
 * of every thread and a join; with OMP_WAIT_POLICY=passive, as aclcts runs, each is a futex
 * round trip), and the calling thread (the team's thread 0) hands the chunks on from inside it:
 * input_grad's chunks alternate between two buffers, so while it hands chunk k on the others
 * compute chunk k + 1. Per batch: its setup (thread 0), batch_prepare, the points and their
 * dgrid (team), grid_grad's tail and the dx tables (thread 0, while the others start on the dx
 * terms), the dx terms (team), then input_grad chunk by chunk. Every thread meets every barrier
 * and work-sharing loop of every batch; after an error (fail) the steps do nothing (but the
 * points' coordinates, which the terms read), so no thread waits at a barrier another skips. */

/* input_grad's chunk k of a batch (planes c0 .. c0 + np − 1) in one of the two buffers */
typedef struct {
    ref_chunkbuf b;
    ref_altlist *alts;   /* alternatives of elements ambiguous points reach, or NULL */
    uint8_t *fallback;   /* dx_finish4's marks, laid out as the chunk (work block) */
    bool *split;         /* per DXL-plane group: dx_sum_split applies (work block) */
    int64_t c0, np;
} dx_chunk;

typedef struct {
    const gctx *G;
    const ref_sink *s;
    batch_work *W;
    bool dx, dgrid, stash;
    bool scan;              /* batch_prepare scans the batch (dgrid, bilinear) */
    int64_t nkept, nxb;     /* chunk views carved from the work block: gb's, xc's */
    int64_t group, nchunks; /* planes per input_grad chunk, its chunks per batch */
    ref_chunkbuf *gb;       /* grid_grad's chunks: every batch's (stash) or one */
    ref_altlist *galts;     /* the batch's grid_grad alternatives (all empty: kept for the next) */
    dx_chunk xc[2];
    batch_view v;           /* the batch's view, batch_prepare completes it */
    dx_batch D;
    bool rest_all;          /* D has ambiguous or unresolvable points: every chunk's rest */
    int64_t xhits[3];       /* atomic: dx_block's answers of chunk k in xhits[k % 3] (reset for
                             * chunk k + 2 while every thread is past reading chunk k − 1's) */
    /* team_dx_pipe: whether the batch's chunks take it, its items (ipc a chunk's but the last's)
     * and the next to take, chunks below ready have their buffer ready, items done of each
     * buffer's chunk (atomic), chunks handed on (thread 0's) */
    bool pipe;
    int64_t items, ipc, next, ready, done[2], emitted;
    int fail;               /* atomic: an error, every later step does nothing */
    int rc;                 /* the sink's return when it failed */
} grid_team;

static bool team_failed(grid_team *T) { return __atomic_load_n(&T->fail, __ATOMIC_RELAXED); }
static void team_fail(grid_team *T) { __atomic_store_n(&T->fail, 1, __ATOMIC_RELAXED); }

/* The sink's handing on of chunk b (slot, first element) from thread 0; an error stops the team. */
static void team_emit(grid_team *T, int slot, int64_t first, const ref_chunkbuf *b)
{
    int rc = team_failed(T) ? 0 : ref_emit(T->s, slot, first, b);
    if (rc) {
        T->rc = rc;
        team_fail(T);
    }
}

/* Thread 0, before batch n: its view, and its grid_grad chunk started. */
static void team_batch_start(grid_team *T, int64_t n)
{
    const ref_grid_params *p = T->G->p;
    int64_t hw_out = p->h_out * p->w_out;
    batch_work *W = T->W;
    T->v = batch_view_of(T->G, n, W->tbuf, T->dgrid);
    T->v.gsplit = W->gsplit;
    T->v.plain = T->scan; /* known when batch_prepare scans the batch, else false */
    if (W->gsplit)
        memset(W->gsplit, 1, (size_t)p->c);
    W->tsplit = W->tone_word = true; /* dx_terms_team: each thread clears what its terms fail */
    if (!T->dgrid || team_failed(T))
        return;
    ref_chunkbuf_start(&T->gb[T->stash ? n : 0], 2 * hw_out);
    if (!T->galts && !(T->galts = calloc((size_t)(hw_out ? 2 * hw_out : 1), sizeof *T->galts)))
        team_fail(T);
}

/* Batch n's grid points by the team: batch_prepare, then the coordinate stage of each point and
 * with dgrid its dgrid into the batch's grid_grad chunk. */
static void team_points(grid_team *T, int64_t n, grid_scratch *t, mterms *mt, int64_t *h,
                        int64_t *f)
{
    const gctx *G = T->G;
    const ref_grid_params *p = G->p;
    batch_work *W = T->W;
    int64_t hw_out = p->h_out * p->w_out;
    ref_output *out = T->dgrid ? &T->gb[T->stash ? n : 0].o : NULL;
    if (W->tbuf || T->scan)
        batch_prepare(G, n, W->tbuf, T->dgrid, T->scan, &T->v);
    /* v is final after batch_prepare's barrier: each thread its own copy with lean_all (no
     * barrier for one thread to set it) */
    batch_view lv = T->v;
    lv.lean_all = T->scan && dgrid_lean_all(G, &lv);
#pragma omp for schedule(dynamic, 1)
    for (int64_t b = 0; b < (hw_out + POINT_BLOCK - 1) / POINT_BLOCK; b++) {
        int64_t p0 = b * POINT_BLOCK;
        int64_t p1 = p0 + POINT_BLOCK < hw_out ? p0 + POINT_BLOCK : hw_out;
        for (int64_t pix = p0; pix < p1; pix++) { /* even after an error: dx_terms_team reads pe */
            point_eval(G, n, pix, &W->pts[pix], t);
            W->kind[pix] = point_kind(&W->pts[pix]);
            if (W->terms)
                dx_point_elems(p, &W->pts[pix], W->pe + 4 * pix);
        }
        if (out && !team_failed(T) &&
            dgrid_points(G, &lv, W->pts, n, p0, p1, mt, out, T->galts, h, f) != 0)
            team_fail(T);
    }
}

/* Thread 0, after batch n's points: grid_grad's unresolvable points as intervals, its
 * alternatives attached (and the chunk handed on when it is the only output). */
static void team_dgrid_tail(grid_team *T, int64_t n)
{
    const gctx *G = T->G;
    const ref_grid_params *p = G->p;
    int64_t hw_out = p->h_out * p->w_out;
    ref_chunkbuf *g = &T->gb[T->stash ? n : 0];
    double *maxabs = NULL;
    bool multi = false;
    for (int64_t pix = 0; pix < hw_out; pix++) {
        uint8_t kind = T->W->kind[pix];
        multi = multi || (kind & PT_MULTI);
        if (team_failed(T) || (kind & (PT_OUT | PT_UNRES)) != PT_UNRES ||
            p->interpolation != REF_INTERP_BILINEAR)
            continue;
        if ((!maxabs && !(maxabs = plane_maxabs(G, n))) || !chunk_ival(&g->o))
            team_fail(T);
        else
            dgrid_unresolved(G, n, pix, maxabs, &g->o);
    }
    free(maxabs);
    /* only points of several outcomes have alternatives: without one every list is empty (the
     * chunk's have none already), and the array, zero still, serves the next batch instead of
     * a new one (2·H_out·W_out lists to clear and scan on the calling thread, the others
     * waiting) */
    if (T->galts && (multi || team_failed(T))) {
        if (ref_output_set_alts(&g->o, T->galts) != 0) /* frees galts, whatever it returns */
            team_fail(T);
        T->galts = NULL;
    }
    if (!T->stash)
        team_emit(T, 4, n * hw_out * 2, g);
}

/* A chunk of np planes as work items: blocks of DX_BLOCK elements of all its DXL-plane groups,
 * or of a share of them (*gs shares) when the planes are too small for DX_ITEMS blocks (fine
 * enough that a thread the system holds back delays the other by one block at most). */
#define DX_ITEMS 32
#define DX_BLOCK 128
static int64_t dx_chunk_items(const ref_grid_params *p, int64_t np, int64_t *gs)
{
    int64_t hw_in = p->h_in * p->w_in, ng = (np + DXL - 1) / DXL;
    int64_t nb = (hw_in + DX_BLOCK - 1) / DX_BLOCK;
    *gs = nb >= DX_ITEMS ? 1 : (DX_ITEMS + nb - 1) / nb; /* group shares per block */
    *gs = *gs < ng ? *gs : ng;
    return nb * *gs;
}

/* Thread 0: input_grad's chunk k of the batch made ready in its buffer (k % 2). */
static void dx_chunk_start(grid_team *T, int64_t k)
{
    const ref_grid_params *p = T->G->p;
    int64_t hw_in = p->h_in * p->w_in;
    dx_chunk *X = &T->xc[k % 2];
    const dx_batch *D = &T->D;
    X->c0 = k * T->group;
    X->np = p->c - X->c0 < T->group ? p->c - X->c0 : T->group;
    __atomic_store_n(&T->xhits[k % 3], 0, __ATOMIC_RELAXED);
    __atomic_store_n(&T->done[k % 2], 0, __ATOMIC_RELAXED);
    ref_chunkbuf_start(&X->b, X->np * hw_in);
    memset(X->fallback, 0, (size_t)(X->np * hw_in)); /* dx_finish4 marks only its own */
    for (int64_t g = 0; g < (X->np + DXL - 1) / DXL; g++) {
        int64_t c = X->c0 + g * DXL;
        const batch_view *bv = &T->v;
        bool s = !T->G->force && c + DXL <= X->c0 + X->np && bv->go_cs == 1 && bv->gsplit;
        for (int l = 0; s && l < DXL; l++)
            s = bv->gsplit[c + l];
        X->split[g] = s;
    }
    /* alternatives come from ambiguous points only */
    X->alts = D->namb ? calloc((size_t)(X->np * hw_in), sizeof *X->alts) : NULL;
    if ((D->namb && !X->alts) || (T->rest_all && !ref_chunkbuf_ival(&X->b)))
        team_fail(T);
}

/* Thread 0, after batch n's points and dgrid (before their dx terms are made): dgrid's tail,
 * dx's tables, input_grad's first two chunks made ready. */
static void team_batch_mid(grid_team *T, int64_t n)
{
    if (T->dgrid)
        team_dgrid_tail(T, n);
    if (!T->dx || team_failed(T))
        return;
    if (dx_batch_build(T->G->p, T->W, &T->D) != 0)
        team_fail(T);
    T->rest_all = T->D.namb || T->D.any_unres;
    for (int64_t k = 0; k < 2 && k < T->nchunks && !team_failed(T); k++)
        dx_chunk_start(T, k);
    const ref_grid_params *p = T->G->p;
    int64_t gs, last = p->c - (T->nchunks - 1) * T->group; /* the last chunk's planes */
    T->pipe = !T->G->force && !T->rest_all;
    T->ipc = dx_chunk_items(p, T->group, &gs);
    T->items = (T->nchunks - 1) * T->ipc + dx_chunk_items(p, last, &gs);
    T->next = T->emitted = 0;
    T->ready = T->nchunks < 2 ? T->nchunks : 2;
}

/* Thread 0, after input_grad's chunk k of batch n: its alternatives attached, the chunk handed
 * on, its buffer made ready for chunk k + 2. */
static void dx_chunk_done(grid_team *T, int64_t n, int64_t k)
{
    const ref_grid_params *p = T->G->p;
    dx_chunk *X = &T->xc[k % 2];
    if (X->alts && ref_output_set_alts(&X->b.o, X->alts) != 0) /* frees alts, whatever it returns */
        team_fail(T);
    X->alts = NULL;
    team_emit(T, 3, (n * p->c + X->c0) * p->h_in * p->w_in, &X->b);
    if (k + 2 < T->nchunks && !team_failed(T))
        dx_chunk_start(T, k + 2);
}

/* Item w of input_grad's chunk k (planes c0 .. c0 + np − 1, its buffer X): dx_block, its answers
 * counted into T->xhits[k % 3] and *h. */
static void dx_chunk_item(grid_team *T, int64_t k, dx_chunk *X, int64_t c0, int64_t np,
                          int64_t w, int64_t *h)
{
    const gctx *G = T->G;
    int64_t hw_in = G->p->h_in * G->p->w_in, gs, hb = 0;
    (void)dx_chunk_items(G->p, np, &gs);
    int64_t ng = (np + DXL - 1) / DXL, e0 = w / gs * DX_BLOCK;
    int64_t g0 = w % gs * ng / gs, g1 = (w % gs + 1) * ng / gs;
    const batch_work *W = T->W;
    dxterms terms = {W->terms, W->toff, W->tsplit, W->tone_word};
    dx_block(G, &terms, &T->v, c0, np, g0, g1, X->split, e0,
             e0 + DX_BLOCK < hw_in ? e0 + DX_BLOCK : hw_in, X->fallback, &X->b.o, &hb);
    __atomic_fetch_add(&T->xhits[k % 3], hb, __ATOMIC_RELAXED);
    *h += hb;
}

/* input_grad's chunk k of batch n by the team, OpenMP over its items, then, where some element
 * is marked or ambiguous points exist, over planes (dx_plane_rest); thread 0 then hands it on
 * while the others go on to chunk k + 1. */
static void team_dx_chunk(grid_team *T, int64_t n, int64_t k, mterms *mt, int64_t *h,
                          int64_t *f)
{
    const gctx *G = T->G;
    int64_t hw_in = G->p->h_in * G->p->w_in, gs;
    dx_chunk *X = &T->xc[k % 2];
    /* read before the first barrier: thread 0 readies this buffer for chunk k + 2 after it */
    int64_t c0 = X->c0, np = X->np, items = dx_chunk_items(G->p, np, &gs);
#pragma omp for schedule(dynamic, 1)
    for (int64_t w = 0; w < items; w++)
        if (!team_failed(T))
            dx_chunk_item(T, k, X, c0, np, w, h);
    /* dx_block counts every element it answers, and marks the others: the planes' rest only
     * where some element is marked or ambiguous points exist (every thread reads the same
     * count and rest_all after the loop's barrier) */
    if (__atomic_load_n(&T->xhits[k % 3], __ATOMIC_RELAXED) < np * hw_in || T->rest_all) {
#pragma omp for schedule(dynamic, 1)
        for (int64_t c = c0; c < c0 + np; c++)
            if (!team_failed(T) && dx_plane_rest(G, T->W->pts, &T->D, n, c, (c - c0) * hw_in,
                                                 X->fallback, mt, &X->b.o, X->alts, f) != 0)
                team_fail(T);
    }
#pragma omp master
    dx_chunk_done(T, n, k);
}

/* ---- input_grad's chunks without a barrier each ----
 * Where no chunk needs its planes' rest for ambiguous points (rest_all) and off force_mpfr
 * (where every element takes MPFR, by planes in parallel above), a batch's chunks are one
 * stream of items, chunk after chunk, taken in order by whichever thread is free (T->next), as
 * avg-pool's pipe does: a thread waits only until its chunk's buffer is ready (T->ready: chunk
 * k − 2 handed on and the buffer reset); thread 0 hands each chunk on once all its items are
 * done (T->done), first giving the rare elements dx_block marked their MPFR value itself. */

/* Thread 0: the next chunk of batch n handed on (once all its items are done: waiting for them
 * when wait, else only if they are), its buffer made ready for the chunk two on. False when it
 * was not done or the team failed. */
static bool dx_pipe_emit(grid_team *T, int64_t n, bool wait, mterms *mt, int64_t *f)
{
    const ref_grid_params *p = T->G->p;
    int64_t c = T->emitted, hw_in = p->h_in * p->w_in, gs;
    if (c >= T->nchunks || team_failed(T))
        return false;
    dx_chunk *X = &T->xc[c % 2];
    int64_t items = dx_chunk_items(p, X->np, &gs), *done = &T->done[c % 2];
    if (wait ? !ref_wait_until(done, items, &T->fail)
             : __atomic_load_n(done, __ATOMIC_ACQUIRE) < items)
        return false;
    bool marked = __atomic_load_n(&T->xhits[c % 3], __ATOMIC_RELAXED) < X->np * hw_in;
    for (int64_t pl = X->c0; marked && pl < X->c0 + X->np && !team_failed(T); pl++)
        if (dx_plane_rest(T->G, T->W->pts, &T->D, n, pl, (pl - X->c0) * hw_in, X->fallback, mt,
                          &X->b.o, X->alts, f) != 0)
            team_fail(T);
    T->emitted = c + 1;
    dx_chunk_done(T, n, c); /* resets done[c % 2] for chunk c + 2 */
    __atomic_store_n(&T->ready, c + 3 < T->nchunks ? c + 3 : T->nchunks, __ATOMIC_RELEASE);
    return !team_failed(T);
}

/* Batch n's input_grad, every chunk, by the team as one stream of items (see above). */
static void team_dx_pipe(grid_team *T, int64_t n, mterms *mt, int64_t *h, int64_t *f)
{
    bool t0 = omp_get_thread_num() == 0;
    for (int64_t g; (g = __atomic_fetch_add(&T->next, 1, __ATOMIC_RELAXED)) < T->items;) {
        int64_t k = g / T->ipc;
        if (t0) { /* only thread 0 readies buffers: never waits on itself */
            while (__atomic_load_n(&T->ready, __ATOMIC_ACQUIRE) <= k && !team_failed(T))
                (void)dx_pipe_emit(T, n, true, mt, f);
        } else if (!ref_wait_until(&T->ready, k + 1, &T->fail)) {
            continue; /* failed: the items are drained, nothing computed */
        }
        if (team_failed(T))
            continue;
        dx_chunk *X = &T->xc[k % 2];
        dx_chunk_item(T, k, X, X->c0, X->np, g % T->ipc, h);
        __atomic_fetch_add(&T->done[k % 2], 1, __ATOMIC_RELEASE);
        while (t0 && dx_pipe_emit(T, n, false, mt, f)) /* the chunks done by now */
            continue;
    }
    while (t0 && dx_pipe_emit(T, n, true, mt, f))
        continue;
}

/* Thread 0, after batch n: its dx tables and its points' outcome arrays freed, batch n + 1
 * started. */
static void team_batch_end(grid_team *T, int64_t n)
{
    batch_work *W = T->W;
    dx_batch_free(&T->D);
    for (int64_t pix = 0; pix < T->G->p->h_out * T->G->p->w_out; pix++)
        if (W->kind[pix] & PT_CLEAR) {
            grid_axis_clear(&W->pts[pix].ax[0]);
            grid_axis_clear(&W->pts[pix].ax[1]);
        }
    if (n + 1 < T->G->p->n)
        team_batch_start(T, n + 1);
}

/* The chunk views' alternative arrays set (chunkbuf_view_clear) by the team, a buffer at a time:
 * in a process's first call (and its second, which the allocator gives new pages too) this is
 * where most pages of the kept and input_grad chunks are first touched, each a 2 MiB page for
 * the kernel to clear, now shared between the threads instead of all the calling thread's. */
static void team_views_clear(grid_team *T)
{
#pragma omp for schedule(dynamic, 1) nowait
    for (int64_t i = 0; i < T->nkept + T->nxb; i++)
        chunkbuf_view_clear(i < T->nkept ? &T->gb[i] : &T->xc[i - T->nkept].b);
}

/* Every batch by one team of nth threads (see above); the fast answers and MPFR fallbacks
 * counted into *hits, *falls. */
static void team_run(grid_team *T, int nth, int64_t *hits, int64_t *falls)
{
    int64_t h = 0, f = 0;
#pragma omp parallel num_threads(nth) reduction(+ : h, f)
    {
        grid_scratch t = {.live = false};
        mterms mt = {0};
#pragma omp master
        if (T->G->p->n > 0)
            team_batch_start(T, 0);
        team_views_clear(T);
#pragma omp barrier
        for (int64_t n = 0; n < T->G->p->n; n++) {
            team_points(T, n, &t, &mt, &h, &f);
#pragma omp master
            team_batch_mid(T, n); /* while the others count dx's terms (dx_terms_team) */
            if (T->W->terms)
                dx_terms_team(T->G->p, T->W);
#pragma omp barrier
            if (T->dx && T->pipe)
                team_dx_pipe(T, n, &mt, &h, &f);
            for (int64_t k = 0; T->dx && !T->pipe && k < T->nchunks; k++)
                team_dx_chunk(T, n, k, &mt, &h, &f);
#pragma omp master
            team_batch_end(T, n);
#pragma omp barrier
        }
        grid_scratch_clear(&t);
        mterms_free(&mt);
    }
    *hits += h;
    *falls += f;
}

/* Per batch: the points (and grid_grad's chunk of the batch), then input_grad in chunks of whole
 * planes, all by one team (team_run). Memory: the batch's points, copies and dx tables, one
 * chunk of grid_grad (or all, kept), two of input_grad (reference/README.md "Memory"). */
int ref_grid_stream(const ref_grid_params *p, const double *grad_output, const double *input,
                    const double *grid, ref_options *opt, bool dx, bool dgrid, const ref_sink *s)
{
    if (!p || !params_ok(p))
        return -1;
    if (p->interpolation == REF_INTERP_BICUBIC)
        return grid_bicubic_stream(p, grad_output, input, grid, opt, dx, dgrid, s);
    int64_t hw_out = p->h_out * p->w_out, hw_in = p->h_in * p->w_in;
    /* both outputs: grid_grad's chunks kept until input_grad's are out (slot order), when they
     * fit; else one pass per output */
    bool stash = dx && dgrid;
    if (stash && 2 * hw_out * p->n > REF_GRID_STASH_MAX) {
        int rc = ref_grid_stream(p, grad_output, input, grid, opt, true, false, s);
        return rc ? rc : ref_grid_stream(p, grad_output, input, grid, opt, false, true, s);
    }
    int64_t step = s->elems > 0 ? s->elems : REF_CHUNK_ELEMS;
    int64_t group = step / hw_in < 1 ? 1 : step / hw_in; /* planes per chunk */
    if (group > p->c)
        group = p->c > 0 ? p->c : 1;
    int64_t nchunks = (p->c + group - 1) / group, nxb = nchunks < 2 ? 1 : 2;
    /* working precision of the coordinates: FP32, or double for a DOUBLE path */
    bool dbl = opt->path.name && strstr(opt->path.name, "double");
    gctx G = {p, grad_output, input, grid, dbl ? 0x1p-53 : 0x1p-24, opt->force_mpfr, &opt->path,
              ref_path_overflow_at(&opt->path)};
    /* points: 216 bytes each, not cleared: point_eval sets what is read; dx's terms; and the
     * channel-innermost copies of a batch (gradOutput for dx and dgrid, input for dgrid), when
     * that is worth it: dx reads DXL channels of a point at once, the dgrid gather a corner's.
     * One block for all, the chunk buffers and input_grad's fallback marks too (work_carve):
     * the allocator keeps a block that big between calls, where it hands several smaller ones
     * back to the system and faults them in again, and all of it can be huge pages
     * (ref_big_alloc). */
    size_t nterm = (size_t)(hw_out ? 4 * hw_out : 1), npts = (size_t)(hw_out ? hw_out : 1);
    int64_t tsz = (hw_out + (dgrid ? hw_in : 0)) * p->c;
    bool copies =
        (dx || p->interpolation == REF_INTERP_BILINEAR) && p->c > 1 && tsz <= TRANSPOSE_MAX;
    int nth = opt->threads > 0 ? opt->threads : omp_get_max_threads();
    size_t xcap = (size_t)(group * hw_in), ngroups = (size_t)(group + DXL - 1) / DXL;
    size_t sizes[8] = {npts * sizeof(gpoint), dx ? nterm * sizeof(dxterm) : 0,
                       dx ? nterm * sizeof(int64_t) : 0,
                       dx ? (size_t)(hw_in + 1) * sizeof(int64_t) : 0,
                       copies ? (size_t)tsz * sizeof(double) : 0,
                       dx ? 2 * (size_t)nth * (size_t)hw_in * sizeof(int64_t) : 0,
                       dx ? (size_t)nxb * xcap : 0, dx ? (size_t)nxb * ngroups : 0};
    size_t total = 0, nkept = stash ? (size_t)p->n : 0;
    for (int i = 0; i < 8; i++)
        total += WORK_ROUND(sizes[i]);
    total += nkept * chunkbuf_view_bytes(2 * hw_out); /* grid_grad's kept chunks */
    total += dx ? (size_t)nxb * chunkbuf_view_bytes(group * hw_in) : 0; /* input_grad's */
    char *raw, *block = work_block(total, &raw), *at = block;
    batch_work W = {0};
    grid_team T = {.G = &G, .s = s, .W = &W, .dx = dx, .dgrid = dgrid, .stash = stash,
                   .scan = dgrid && p->interpolation == REF_INTERP_BILINEAR, .group = group,
                   .nchunks = nchunks};
    if (block) {
        W.pts = work_carve(&at, sizes[0]);
        W.terms = work_carve(&at, sizes[1]);
        W.pe = work_carve(&at, sizes[2]);
        W.toff = work_carve(&at, sizes[3]);
        W.tbuf = work_carve(&at, sizes[4]);
        W.tcnt = work_carve(&at, sizes[5]);
        W.tslot = W.tcnt ? W.tcnt + (size_t)nth * (size_t)hw_in : NULL;
        uint8_t *fallback = work_carve(&at, sizes[6]);
        bool *split = work_carve(&at, sizes[7]);
        for (int b = 0; b < nxb && dx; b++) { /* both buffers' in one part each */
            T.xc[b].fallback = fallback + (size_t)b * xcap;
            T.xc[b].split = split + (size_t)b * ngroups;
        }
    }
    W.kind = calloc(npts, 1);
    if (W.tbuf && dx)
        W.gsplit = malloc((size_t)p->c); /* none: dx takes the per-term path */
    T.gb = calloc((size_t)(stash && p->n > 0 ? p->n : 1), sizeof *T.gb);
    int rc = W.pts && W.kind && T.gb && (!dx || (W.terms && W.pe && W.toff && W.tcnt)) ? 0 : -1;
    for (size_t n = 0; rc == 0 && n < nkept; n++)
        chunkbuf_view(&T.gb[n], 2 * hw_out, &at);
    for (int b = 0; rc == 0 && dx && b < nxb; b++)
        chunkbuf_view(&T.xc[b].b, group * hw_in, &at);
    T.nkept = rc == 0 ? (int64_t)nkept : 0;
    T.nxb = rc == 0 && dx ? nxb : 0;
    if (rc == 0 && dgrid && !stash)
        rc = ref_chunkbuf_init(&T.gb[0], 2 * hw_out);
    int64_t hits = 0, falls = 0;
    if (rc == 0)
        team_run(&T, nth, &hits, &falls);
    rc = rc ? rc : T.rc ? T.rc : T.fail ? -1 : 0;
    free(T.galts); /* lists all empty */
    for (int64_t n = 0; rc == 0 && stash && n < p->n; n++)
        rc = ref_emit(s, 4, n * hw_out * 2, &T.gb[n]);
    for (int64_t n = 0; T.gb && stash && n < p->n; n++) { /* the rest is the work block's */
        free(T.gb[n].o.alts);
        free(T.gb[n].o.ival);
    }
    if (T.gb && !stash)
        ref_chunkbuf_free(&T.gb[0]);
    free(T.gb);
    free(raw);
    free(W.kind);
    free(W.gsplit);
    for (int b = 0; b < 2; b++) { /* the rest of the buffers is the work block's */
        free(T.xc[b].b.o.alts);
        free(T.xc[b].b.o.ival);
    }
    opt->fast_hits += opt->force_mpfr ? 0 : hits;
    opt->mpfr_fallbacks += falls;
    return rc;
}

int ref_grid_sampler2d_backward(const ref_grid_params *p, const double *grad_output,
                                const double *input, const double *grid, ref_options *opt,
                                ref_output *input_grad, ref_output *grid_grad)
{
    if (!p || !params_ok(p))
        return -1;
    ref_options dflt = {0};
    if (!opt)
        opt = &dflt;
    int64_t nx = p->n * p->c * p->h_in * p->w_in, ng = p->n * p->h_out * p->w_out * 2;
    if (input_grad && ref_output_alloc(input_grad, nx) != 0)
        return -1;
    if (grid_grad && ref_output_alloc(grid_grad, ng) != 0) {
        ref_output_free(input_grad);
        return -1;
    }
    /* grid_grad is small (two values per point): its interval offsets always exist */
    if (grid_grad && !(grid_grad->ival = ref_big_alloc((size_t)(ng ? 2 * ng : 2), sizeof(double), true))) {
        ref_output_free(input_grad);
        ref_output_free(grid_grad);
        return -1;
    }
    /* whole batches per chunk, gathered into the outputs */
    ref_output *outs[REF_MAX_SLOTS] = {NULL, NULL, NULL, input_grad, grid_grad};
    ref_sink s = {ref_collect_chunk, outs, nx > 0 ? nx : 1};
    int rc = ref_grid_stream(p, grad_output, input, grid, opt, input_grad != NULL,
                             grid_grad != NULL, &s);
    if (rc) {
        ref_output_free(input_grad);
        ref_output_free(grid_grad);
    }
    return rc;
}

int ref_grid_sampler2d_backward_element_mpfr(const ref_grid_params *p, const double *grad_output,
                                             const double *input, const double *grid, int which,
                                             int64_t index, void *mpfr_out)
{
    if (!p || !params_ok(p) || (which != 0 && which != 1))
        return -1;
    if (p->interpolation == REF_INTERP_BICUBIC)
        return grid_bicubic_element_mpfr(p, grad_output, input, grid, which, index,
                                         (mpfr_ptr)mpfr_out);
    int64_t hw_out = p->h_out * p->w_out, hw_in = p->h_in * p->w_in;
    ref_path vec = ref_grid_path(REF_DT_FLOAT);
    gctx G = {p, grad_output, input, grid, 0x1p-24, true, &vec, ref_path_overflow_at(&vec)};
    grid_scratch t = {.live = false};
    mterms mt = {0};
    int rc = 0;
    if (which == 1) {
        if (index < 0 || index >= p->n * hw_out * 2) {
            rc = -1;
        } else {
            int64_t n = index / 2 / hw_out, pix = index / 2 % hw_out;
            int comp = (int)(index % 2);
            gpoint pt;
            point_eval(&G, n, pix, &pt, &t);
            mpfr_set_zero((mpfr_ptr)mpfr_out, 1);
            if (!pt.out && !pt.unres && p->interpolation == REF_INTERP_BILINEAR) {
                const grid_outcome *ox = &pt.ax[0].o[0], *oy = &pt.ax[1].o[0];
                const grid_outcome *ow = comp == 0 ? oy : ox;
                double scale = factor(p, comp) * (comp == 0 ? ox->mult : oy->mult);
                corner cs[4];
                int nc = corners(p, ox, oy, cs);
                for (int64_t c = 0; c < p->c; c++)
                    for (int k = 0; k < nc; k++) {
                        double val = input[(n * p->c + c) * hw_in + cs[k].e];
                        double g = grad_output[(n * p->c + c) * hw_out + pix];
                        int sign = (comp == 0 ? cs[k].kx : cs[k].ky) ? 1 : -1;
                        mpfr_ptr tt = mterm(&mt, 2);
                        mpfr_set_ui(tt, 1, MPFR_RNDN);
                        grid_weight_mul(tt, ow, comp == 0 ? cs[k].ky : cs[k].kx);
                        mpfr_prec_round(tt, mpfr_get_prec(tt) + 3 * 53 + 8, MPFR_RNDN);
                        mpfr_mul_d(tt, tt, val, MPFR_RNDN);
                        mpfr_mul_d(tt, tt, g, MPFR_RNDN);
                        mpfr_mul_d(tt, tt, sign * scale, MPFR_RNDN);
                    }
                mpfr_sum((mpfr_ptr)mpfr_out, mt.ptr, (unsigned long)mt.n, MPFR_RNDN);
            }
            grid_axis_clear(&pt.ax[0]);
            grid_axis_clear(&pt.ax[1]);
        }
    } else if (index < 0 || index >= p->n * p->c * hw_in) {
        rc = -1;
    } else {
        int64_t e = index % hw_in, c = index / hw_in % p->c, n = index / hw_in / p->c;
        ref_value v = {0};
        for (int64_t pix = 0; pix < hw_out; pix++) {
            gpoint pt;
            point_eval(&G, n, pix, &pt, &t);
            if (!pt.out && !pt.unres)
                dx_point_mpfr(&G, &pt.ax[0].o[0], &pt.ax[1].o[0],
                              grad_output[(n * p->c + c) * hw_out + pix], e, &mt, &v);
            grid_axis_clear(&pt.ax[0]);
            grid_axis_clear(&pt.ax[1]);
        }
        mpfr_sum((mpfr_ptr)mpfr_out, mt.ptr, (unsigned long)mt.n, MPFR_RNDN);
    }
    grid_scratch_clear(&t);
    mterms_free(&mt);
    return rc;
}
