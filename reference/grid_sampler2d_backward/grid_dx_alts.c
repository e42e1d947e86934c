/* input_grad where a point's branch is uncertain: the ambiguous points' variants, the legal
 * alternatives of the elements they reach, and intervals where there are too many or a point is
 * unresolvable. */
#include "grid_values.h"

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
    grid_dx_combo_value(G, pts, R, n, c, e, NULL, NULL, 0, mt, v);
    v->coord_err = cerr;
    v->nterms += u.n;
    ref_sum_abs_add(v, u.abs * grow);
    /* Σ max(1, |g|) ≤ n + Σ|g| */
    v->under_mag += ((double)u.n + u.abs) * REF_UNDER_SCALE * grow;
    if (!isfinite(v->hi)) {
        /* finite past the double range: no interval of doubles around it; ±inf stays the
         * answer where its excess lo is more than twice the uncertain points' reach (every
         * branch overflows), else any double may be legal */
        bool judged = fabs(v->lo) > 2 * ref_fmax(fabs(u.lo), fabs(u.hi)) * grow;
        *fl = (uint8_t)(judged ? *fl & ~REF_FLAG_UNCHECKABLE : *fl | REF_FLAG_UNCHECKABLE);
        return;
    }
    ival[2 * e] = u.lo * grow;
    ival[2 * e + 1] = u.hi * grow;
    *fl = (uint8_t)((*fl & ~REF_FLAG_UNCHECKABLE) | REF_FLAG_INTERVAL);
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
            grid_dx_combo_value(G, pts, R, n, c, e, sel, ch, tn[e], mt, &v);
            v.coord_err = vals[e].coord_err;
            if (ref_altlist_push(L, &v) != 0)
                return -1;
        }
        vals[e] = L->v[0]; /* the primary, with the bound of any combination of its value */
    }
    return 0;
}

/* The elements of plane (n, c) that D's points of a non-finite gradOutput there reach on a
 * branch besides their primary one: unjudged (REF_FLAG_UNCHECKABLE). On that branch a corner's
 * weight is within the coordinate error of 0: the device adds ±inf·w (its class), NaN (w = 0),
 * or nothing (its branch misses the corner), so the element's legal values are no interval. */
static void nonfinite_other_branches(const gctx *G, const gpoint *pts, const dx_batch *D,
                                     int64_t n, int64_t c, uint8_t *fl)
{
    const ref_grid_params *p = G->p;
    int64_t hw_out = p->h_out * p->w_out;
    for (int64_t i = 0; i < D->nnfm; i++) {
        const gpoint *pt = &pts[D->nfm[i]];
        if (isfinite(G->go[(n * p->c + c) * hw_out + D->nfm[i]]))
            continue;
        corner c0[4];
        int n0 = corners(p, &pt->ax[0].o[0], &pt->ax[1].o[0], c0);
        double dx = pt->ax[0].delta * pt->ax[0].sens, dy = pt->ax[1].delta * pt->ax[1].sens;
        for (int ix = 0; ix < pt->ax[0].n; ix++)
            for (int iy = 0; iy < pt->ax[1].n; iy++) {
                const grid_outcome *ox = &pt->ax[0].o[ix], *oy = &pt->ax[1].o[iy];
                corner cs[4];
                int nc = ix || iy ? corners(p, ox, oy, cs) : 0;
                for (int k = 0; k < nc; k++) {
                    /* a corner the primary shares keeps its class unless a weight vanishes
                     * (the weights are continuous across the cell edge) */
                    bool shared = false, mz = false;
                    for (int j = 0; j < n0; j++)
                        shared = shared || c0[j].e == cs[k].e;
                    (void)grid_wclass(wdd(ox, cs[k].kx)->hi, dx, &mz);
                    (void)grid_wclass(wdd(oy, cs[k].ky)->hi, dy, &mz);
                    if (!shared || mz)
                        fl[cs[k].e] |= REF_FLAG_UNCHECKABLE;
                }
            }
    }
}

/* Plane c of input_grad (at offset at of the chunk out) after grid_dx_block: its marked elements by
 * MPFR, then the elements ambiguous points reach. */
int grid_dx_plane_rest(const gctx *G, const gpoint *pts, const dx_batch *D, int64_t n, int64_t c,
                       int64_t at, const uint8_t *fallback, mterms *mt, ref_output *out,
                         ref_altlist *alts, int64_t *falls)
{
    int64_t hw_in = G->p->h_in * G->p->w_in;
    bool any = memchr(fallback + at, 1, (size_t)hw_in) != NULL;
    if (any && grid_dx_mpfr(G, pts, n, c, fallback + at, mt, out->v + at, falls) != 0)
        return -1;
    if (dx_ambiguous(G, pts, D->amb, D->namb, D->tn, D->tl, &D->R, D->any_unres, n, c, at, mt,
                     out, alts) != 0)
        return -1;
    nonfinite_other_branches(G, pts, D, n, c, out->flags + at);
    return 0;
}

void grid_dx_batch_free(dx_batch *D)
{
    free(D->nfm);
    free(D->amb);
    free(D->tn);
    free(D->tl);
    free(D->R.off);
    free(D->R.pix);
    memset(D, 0, sizeof *D);
}

/* Whether point pix of batch n has a non-finite gradOutput in some plane. */
static bool point_nonfinite_g(const gctx *G, int64_t n, int64_t pix)
{
    const ref_grid_params *p = G->p;
    int64_t hw_out = p->h_out * p->w_out;
    for (int64_t c = 0; c < p->c; c++)
        if (!isfinite(G->go[(n * p->c + c) * hw_out + pix]))
            return true;
    return false;
}

int grid_dx_batch_build(const gctx *G, int64_t n, const batch_work *W, dx_batch *D)
{
    const ref_grid_params *p = G->p;
    const gpoint *pts = W->pts;
    int64_t hw_out = p->h_out * p->w_out, hw_in = p->h_in * p->w_in;
    memset(D, 0, sizeof *D);
    for (int64_t pix = 0; pix < hw_out; pix++) {
        D->any_unres = D->any_unres || (W->kind[pix] & PT_UNRES);
        if ((W->kind[pix] & (PT_OUT | PT_UNRES | PT_MULTI)) != PT_MULTI)
            continue;
        if (p->interpolation == REF_INTERP_BILINEAR && point_nonfinite_g(G, n, pix)) {
            int64_t *nf = realloc(D->nfm, (size_t)(D->nnfm + 1) * sizeof *D->nfm);
            if (!nf)
                return -1;
            D->nfm = nf;
            D->nfm[D->nnfm++] = pix;
        }
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
