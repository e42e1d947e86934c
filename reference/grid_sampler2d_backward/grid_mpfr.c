/* The grid sampler's MPFR sums: the term scratch, the exact dx terms of a point, an element's
 * value under a combination of branches, and the elements the fast path leaves undecided. */
#include "grid_values.h"

mpfr_ptr grid_mterm(mterms *m, mpfr_prec_t prec)
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

void grid_mterms_free(mterms *m)
{
    for (size_t i = 0; i < m->cap; i++)
        mpfr_clear(m->t[i]);
    free(m->t);
    free(m->ptr);
}

void grid_mpfr_finish(mterms *m, ref_value *v)
{
    ref_finish_mpfr_sum(m->ptr, (unsigned long)m->n, &v->hi, &v->lo, NULL);
}

/* Exact dx terms of point pt for element e under outcomes (ox, oy), appended to mt. */
void grid_dx_point_mpfr(const gctx *G, const grid_outcome *ox, const grid_outcome *oy, double g,
                        int64_t e, mterms *mt, ref_value *v)
{
    corner cs[4];
    int nc = corners(G->p, ox, oy, cs);
    for (int k = 0; k < nc; k++) {
        if (cs[k].e != e)
            continue;
        mpfr_ptr t = grid_mterm(mt, 2);
        mpfr_set_ui(t, 1, MPFR_RNDN);
        grid_weight_mul(t, ox, cs[k].kx);
        grid_weight_mul(t, oy, cs[k].ky);
        mpfr_prec_round(t, mpfr_get_prec(t) + 53 + 8, MPFR_RNDN);
        mpfr_mul_d(t, t, g, MPFR_RNDN);
        double wxd = wdd(ox, cs[k].kx)->hi, wyd = wdd(oy, cs[k].ky)->hi;
        v->sum_abs += fabs(g * wxd * wyd);
        v->under_mag += ref_fmax(1, fabs(g)) * REF_UNDER_SCALE;
        v->nterms++;
    }
}

/* Σ|terms| of the exact terms in m in units of 2^REF_SUM_EXP (ref_set_sum_abs): each rounded
 * once to a double. */
static double mterms_sabs_scaled(const void *ctx)
{
    const mterms *m = ctx;
    double s = 0;
    for (size_t i = 0; i < m->n; i++) {
        long ex;
        double d = mpfr_get_d_2exp(&ex, m->t[i], MPFR_RNDN);
        s += fabs(ldexp(d, (int)(ex - REF_SUM_EXP)));
    }
    return s;
}

/* Exact value of dx element e of plane (n,c) with ambiguous points amb[i] taking variant ch[i]:
 * the points of R reaching e and the ambiguous ones, merged in ascending point order. */
void grid_dx_combo_value(const gctx *G, const gpoint *pts, const dxreach *R, int64_t n,
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
        grid_dx_point_mpfr(G, &pt->ax[0].o[ix], &pt->ax[1].o[iy], g, e, mt, v);
    }
    ref_set_sum_abs(v, v->sum_abs, 1 + (double)(v->nterms + 6) * 0x1p-52, mterms_sabs_scaled, mt);
    v->under_mag *= 1 + 0x1p-40;
    grid_mpfr_finish(mt, v);
}

/* The elements marked in fallback, from their exact terms (gathered in one scan of the points)
 * summed by MPFR. */
int grid_dx_mpfr(const gctx *G, const gpoint *pts, int64_t n, int64_t c, const uint8_t *fallback,
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
        (void)grid_mterm(mt, 64);
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
