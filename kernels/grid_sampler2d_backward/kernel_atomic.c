/* gs_kernel_atomic: the grid sampler backward's non-deterministic kernel for one compute type
 * GS_T (built once per type, grid_sampler2d_backward.h), as the device runs it by default:
 * blocks of points in parallel with atomic adds into dx. Semantics: PyTorch's CPU
 * grid_sampler_2d_backward (spec/facts.md §4); every operation is done in GS_T, so FLOAT,
 * FLOAT16 and BF16 compute in FP32 and DOUBLE in double. */
#include <stdlib.h>
#include <string.h>

#include "grid_sampler2d_backward.h"

/* One block of points over all channels with atomic adds into dx, channel-major so each
 * channel's planes stay in cache; each point's dgrid sums the channels in ascending order. */
static void GS_FN(block_atomic)(const gs_shape *s, const GS_T *go, const GS_T *in, GS_T *dx,
                                GS_T *dgrid, const GS_FN(gs_geom) *g, int64_t count)
{
    const int64_t hw = s->hi * s->wi, po = s->ho * s->wo;
    GS_T gx[GS_BLOCK] = {0}, gy[GS_BLOCK] = {0};
    const bool bilinear = s->interpolation == GS_BILINEAR;
    for (int64_t c = 0; c < s->c; c++) {
        const GS_T *go_c = go + c * po;
        GS_T *dx_c = dx ? dx + c * hw : NULL;
        for (int64_t i = 0; i < count; i++) {
            if (!g->ok[i])
                continue;
            const GS_T gv = go_c[g->go[i]];
            if (!bilinear) {
                if (dx_c != NULL)
                    GS_FN(gs_add)(dx_c + g->cell[i], gv, true, s->dx_sums);
                continue;
            }
            if (dx_c != NULL)
                GS_FN(gs_bilinear_dx)(g, i, s->wi, gv, dx_c, true, s->dx_sums);
            if (dgrid != NULL)
                GS_FN(gs_bilinear_dgrid)(g, i, s->wi, gv, in + c * hw, &gx[i], &gy[i]);
        }
    }
    if (dgrid != NULL)
        for (int64_t i = 0; i < count; i++)
            GS_FN(gs_store_dgrid)(s, g, i, gx[i], gy[i], dgrid + g->dg[i]);
}

/* Geometry of points order[first..first+count) (identity order when NULL), then the block.
 * Returns false when out of memory. */
static bool GS_FN(run_block)(const gs_shape *s, const GS_T *go, const GS_T *in, const GS_T *grid,
                             GS_T *dx, GS_T *dgrid, const int64_t *order, int64_t first,
                             int64_t count)
{
    const int64_t po = s->ho * s->wo, hw = s->hi * s->wi;
    GS_FN(gs_geom) *g = malloc(sizeof *g); /* ~20 KB: off the (OpenMP worker) stack */
    if (g == NULL)
        return false;
    for (int64_t i = 0; i < count; i++) {
        int64_t q = order ? order[first + i] : first + i, b = q / po, p = q % po;
        g->go[i] = b * s->c * po + p;
        g->cell[i] = b * s->c * hw;
        g->dg[i] = q * 2;
        GS_FN(gs_geometry)(s, grid + q * 2, g, i);
    }
    GS_FN(block_atomic)(s, go, in, dx, dgrid, g, count);
    free(g);
    return true;
}

bool GS_FN(gs_kernel_atomic)(const gs_shape *s, const GS_T *go, const GS_T *in,
                             const GS_T *grid, GS_T *dx, GS_T *dgrid, const int64_t *order)
{
    /* ACLNN_EMU_SHUFFLE permutes the points first (run.c) so the order changes on every call. */
    const int64_t total = s->n * s->ho * s->wo;
    if (dx != NULL)
        memset(dx, 0, (size_t)(s->n * s->c * s->hi * s->wi) * sizeof *dx);
    bool ok = true;
    /* A seeded order runs on one thread so that it alone decides the sums: different on every
     * call, reproducible for the same seed and call count (as in the avg-pool scatter). */
#pragma omp parallel for schedule(dynamic, 1) if (order == NULL)
    for (int64_t first = 0; first < total; first += GS_BLOCK)
        if (!GS_FN(run_block)(s, go, in, grid, dx, dgrid, order, first,
                              total - first < GS_BLOCK ? total - first : GS_BLOCK)) {
#pragma omp atomic write
            ok = false;
        }
    return ok;
}
