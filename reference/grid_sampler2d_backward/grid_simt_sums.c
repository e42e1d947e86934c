/* grid_simt_sums: input_grad as 950's arch35 SIMT kernel sums it for FLOAT16 and
 * BF16 from release 9.0 (docs/contract.md "Sums in the dtype on 950"), and from 9.1 the
 * roundings to the dtype its terms and grid_grad's factor take besides the coordinate's. Every contribution,
 * computed in FP32, is rounded to the dtype and added into input_grad by an atomic add in the
 * dtype, in whatever order the threads reach it; the vector kernels and the document's reading
 * add in FP32 and round once. The exact values stay the stream's; each input_grad element (and
 * alternative) gets the extra error those roundings may make, held in its coordinate term (an
 * absolute allowance the bound adds: reference.h ref_value.coord_err), and REF_FLAG_RANGE where
 * a partial sum may pass the dtype's range. grid_grad is the stream's: the kernel sums it in
 * FP32 and rounds it once. */
#include <math.h>
#include <stdlib.h>

#include "grid_internal.h"

/* The extra error of n terms t̃ (the FP32 ones, Σ|t̃| ≤ S) each rounded to the dtype (relative
 * u, absolute η below its normal range) and summed in it in any order (n − 1 roundings of
 * partial sums each at most u·Σ|t̂|, Higham §4.2 without the first order's nu < 1): every
 * partial sum is within (1 + u)^n·S + n·η·(1 + u)^n, and the result within
 * ((1 + u)^n − 1)·S + n·η·(1 + u)^n of Σ t̃. *top: that partial sums' bound. */
static double dtype_sum_error(const grid_simt_sums *Z, double n, double S, double *top)
{
    double grow = expm1((n + Z->term_rounds) * log1p(Z->u)) * (1 + 0x1p-40);
    double eta = n * (Z->eta + Z->term_eta) * (1 + grow);
    *top = (1 + grow) * S + eta;
    return grow * S + eta;
}

/* grid_grad's v widened by the relative roundings to the dtype of its factor (from 9.1). */
static void widen_dgrid(const grid_simt_sums *Z, ref_value *v)
{
    if (!isfinite(v->hi) || v->sum_exp > 0 || Z->dgrid_rounds == 0)
        return;
    double k = (double)v->nops + (double)v->nterms + 1;
    double S = (v->sum_abs + v->coord_err) * (1 + k * 0x1p-23);
    v->coord_err += expm1(Z->dgrid_rounds * log1p(Z->u)) * (1 + 0x1p-40) * S;
}

/* v widened by the dtype's sums; true where a partial sum may pass the dtype's range. S covers
 * the FP32 terms: Σ|terms| and the coordinate term, grown by their FP32 roundings. */
static bool widen(const grid_simt_sums *Z, ref_value *v)
{
    if (!isfinite(v->hi))
        return false;
    if (v->sum_exp > 0) /* Σ|terms| past the double range: far past any narrow dtype */
        return true;
    double n = (double)(v->nterms > 0 ? v->nterms : 0);
    if (n == 0)
        return false;
    double k = (double)v->nops + n + 1;
    double S = (v->sum_abs + v->coord_err) * (1 + k * 0x1p-23), top;
    v->coord_err += dtype_sum_error(Z, n, S, &top);
    return top >= Z->ovf;
}

/* Room for n answers and m alternatives; false when out of memory. */
static bool reserve(grid_simt_sums *Z, int64_t n, int64_t m)
{
    if (n > Z->cap_v) {
        ref_value *v = realloc(Z->v, (size_t)n * sizeof *v);
        uint8_t *f = v ? realloc(Z->flags, (size_t)n) : NULL;
        if (v) Z->v = v;
        if (!f) return false;
        Z->flags = f;
        Z->cap_v = n;
    }
    if (m > Z->cap_a) {
        ref_value *a = realloc(Z->alts, (size_t)m * sizeof *a);
        if (!a) return false;
        Z->alts = a;
        Z->cap_a = m;
    }
    return true;
}

static int sums_chunk(void *ctx, const ref_chunk *ch)
{
    grid_simt_sums *Z = ctx;
    bool dx = ch->slot == REF_GRID_INPUT_GRAD;
    if (!dx && (ch->slot != REF_GRID_GRID_GRAD || Z->dgrid_rounds == 0))
        return Z->down->fn(Z->down->ctx, ch);
    const ref_output *c = ch->out;
    if (!reserve(Z, c->numel, c->nalts))
        return -1;
    ref_output o = *c; /* alternative indices and intervals are the chunk's own */
    o.v = Z->v;
    o.flags = Z->flags;
    o.alts = c->nalts ? Z->alts : c->alts;
    for (int64_t a = 0; a < c->nalts; a++)
        o.alts[a] = c->alts[a];
    for (int64_t k = 0; k < c->numel; k++) {
        o.v[k] = c->v[k];
        o.flags[k] = c->flags[k];
        if (c->flags[k] & REF_FLAG_UNCHECKABLE)
            continue;
        if (!dx) {
            widen_dgrid(Z, &o.v[k]);
            for (int32_t a = 0; (c->flags[k] & REF_FLAG_AMBIGUOUS) && c->alt_first[k] >= 0 &&
                                a < c->alt_count[k]; a++)
                widen_dgrid(Z, &o.alts[c->alt_first[k] + a]);
            continue;
        }
        bool range = widen(Z, &o.v[k]);
        for (int32_t a = 0; (c->flags[k] & REF_FLAG_AMBIGUOUS) && c->alt_first[k] >= 0 &&
                            a < c->alt_count[k]; a++)
            range = widen(Z, &o.alts[c->alt_first[k] + a]) || range;
        if (range && !(c->flags[k] & REF_FLAG_NONFINITE))
            o.flags[k] |= REF_FLAG_RANGE;
    }
    ref_chunk out = {ch->slot, ch->first, &o};
    return Z->down->fn(Z->down->ctx, &out);
}

void grid_simt_sums_init(grid_simt_sums *Z, ref_dtype dtype, const grid_simt_rounds *r,
                         const ref_sink *down)
{
    const ref_prec *f = ref_dtype_prec(dtype);
    *Z = (grid_simt_sums){.down = down, .sink = {sums_chunk, Z, down->elems},
                          .u = f->unit_roundoff, .eta = f->eta,
                          .ovf = ldexp(2.0 - f->unit_roundoff, f->emax),
                          .term_rounds = r->term_rounds,
                          .term_eta = r->term_rounds ? f->eta * r->g_max : 0,
                          .dgrid_rounds = r->dgrid_rounds};
}

void grid_simt_sums_free(grid_simt_sums *Z)
{
    free(Z->v);
    free(Z->flags);
    free(Z->alts);
    Z->v = Z->alts = NULL;
    Z->flags = NULL;
    Z->cap_v = Z->cap_a = 0;
}

uint64_t grid_simt_sums_work_bytes(int64_t chunk)
{
    return (uint64_t)(chunk > 0 ? chunk : 0) * (2 * sizeof(ref_value) + 1);
}
