/* gs_kernel_atomic: the grid sampler backward's non-deterministic kernel for one compute type
 * GS_T (built once per type, grid_sampler2d_backward.h), as the device runs it by default:
 * blocks of points in parallel with atomic adds into dx. Semantics: PyTorch's CPU
 * grid_sampler_2d_backward (spec/facts.md §4); every operation is done in GS_T, so FLOAT,
 * FLOAT16 and BF16 compute in FP32 and DOUBLE in double. */
#include <stdlib.h>
#include <string.h>

#include "grid_sampler2d_backward.h"

/* Points in block k of `total` points. */
static inline int64_t block_count(int64_t total, int64_t k)
{
    return total - k * GS_BLOCK < GS_BLOCK ? total - k * GS_BLOCK : GS_BLOCK;
}

/* Channel c of one block of points: adds into dx (atomic when blocks run in parallel) in the
 * block's order, and each point's grid-gradient term added to gx, gy. */
static void GS_FN(block_channel)(const gs_shape *s, const GS_T *go, const GS_T *in, GS_T *dx,
                                 bool want_dgrid, const GS_FN(gs_geom) *g, int64_t count,
                                 int64_t c, GS_T *gx, GS_T *gy, bool atomic)
{
    const int64_t hw = s->hi * s->wi, po = s->ho * s->wo;
    const bool bilinear = s->interpolation == GS_BILINEAR;
    const GS_T *go_c = go + c * po;
    GS_T *dx_c = dx ? dx + c * hw : NULL;
    for (int64_t i = 0; i < count; i++) {
        if (!g->ok[i])
            continue;
        const GS_T gv = go_c[g->go[i]];
        if (!bilinear) {
            if (dx_c != NULL)
                GS_FN(gs_add)(dx_c + g->cell[i], gv, atomic, s->dx_sums);
            continue;
        }
        if (dx_c != NULL)
            GS_FN(gs_bilinear_dx)(g, i, s->wi, gv, dx_c, atomic, s->dx_sums);
        if (want_dgrid)
            GS_FN(gs_bilinear_dgrid)(g, i, s->wi, gv, in + c * hw, &gx[i], &gy[i]);
    }
}

/* Geometry of points order[first..first+count) (identity order when NULL) into g. */
static void GS_FN(block_geometry)(const gs_shape *s, const GS_T *grid, const int64_t *order,
                                  int64_t first, int64_t count, GS_FN(gs_geom) *g)
{
    const int64_t po = s->ho * s->wo, hw = s->hi * s->wi;
    for (int64_t i = 0; i < count; i++) {
        int64_t q = order ? order[first + i] : first + i, b = q / po, p = q % po;
        g->go[i] = b * s->c * po + p;
        g->cell[i] = b * s->c * hw;
        g->dg[i] = q * 2;
        GS_FN(gs_geometry)(s, grid + q * 2, g, i);
    }
}

/* One block of points over all channels, channel-major so each channel's planes stay in cache,
 * with atomic adds into dx (blocks run in parallel); each point's dgrid sums the channels in
 * ascending order. Returns false when out of memory. */
static bool GS_FN(run_block)(const gs_shape *s, const GS_T *go, const GS_T *in, const GS_T *grid,
                             GS_T *dx, GS_T *dgrid, int64_t first, int64_t count)
{
    GS_FN(gs_geom) *g = malloc(sizeof *g); /* ~20 KB: off the (OpenMP worker) stack */
    if (g == NULL)
        return false;
    GS_FN(block_geometry)(s, grid, NULL, first, count, g);
    GS_T gx[GS_BLOCK] = {0}, gy[GS_BLOCK] = {0};
    for (int64_t c = 0; c < s->c; c++)
        GS_FN(block_channel)(s, go, in, dx, dgrid != NULL, g, count, c, gx, gy, true);
    for (int64_t i = 0; dgrid != NULL && i < count; i++)
        GS_FN(gs_store_dgrid)(s, g, i, gx[i], gy[i], dgrid + g->dg[i]);
    free(g);
    return true;
}

/* The seeded order (ACLNN_EMU_SHUFFLE) on one thread. A point adds only into its own batch
 * item's planes, so taking the items one at a time, each one's points in the order they have
 * in `order`, and the channels one at a time over all of them, gives every dx element its
 * contributions in the same order as the blocks of `order` over all channels would, and every
 * point's dgrid the channels in ascending order, with plain adds: the same sums, while one
 * channel's planes of one item stay in cache instead of each add missing it. False when out of
 * memory. */
static bool GS_FN(run_seeded)(const gs_shape *s, const GS_T *go, const GS_T *in, const GS_T *grid,
                              GS_T *dx, GS_T *dgrid, const int64_t *order)
{
    const int64_t po = s->ho * s->wo, hw = s->hi * s->wi, blocks = (po + GS_BLOCK - 1) / GS_BLOCK;
    /* order grouped by batch item, stably: item b's po points (order is a permutation) */
    int64_t *sorted = malloc((size_t)(s->n * po) * sizeof *sorted);
    int64_t *fill = malloc((size_t)s->n * sizeof *fill);
    GS_FN(gs_geom) *g = malloc((size_t)blocks * sizeof *g);
    GS_T *gx = calloc((size_t)po, sizeof *gx), *gy = calloc((size_t)po, sizeof *gy);
    bool ok = sorted && fill && g && gx && gy;
    for (int64_t b = 0; ok && b < s->n; b++)
        fill[b] = b * po;
    for (int64_t i = 0; ok && i < s->n * po; i++)
        sorted[fill[order[i] / po]++] = order[i];
    for (int64_t b = 0; ok && b < s->n; b++) {
        const int64_t *item = sorted + b * po;
        for (int64_t k = 0; k < blocks; k++)
            GS_FN(block_geometry)(s, grid, item, k * GS_BLOCK, block_count(po, k), &g[k]);
        for (int64_t c = 0; c < s->c; c++) {
            if (dx != NULL) /* zeroed right before its adds: in cache */
                memset(dx + (b * s->c + c) * hw, 0, (size_t)hw * sizeof *dx);
            for (int64_t k = 0; k < blocks; k++)
                GS_FN(block_channel)(s, go, in, dx, dgrid != NULL, &g[k], block_count(po, k), c,
                                     gx + k * GS_BLOCK, gy + k * GS_BLOCK, false);
        }
        for (int64_t i = 0; dgrid != NULL && i < po; i++) {
            const GS_FN(gs_geom) *gk = &g[i / GS_BLOCK];
            GS_FN(gs_store_dgrid)(s, gk, i % GS_BLOCK, gx[i], gy[i], dgrid + gk->dg[i % GS_BLOCK]);
            gx[i] = gy[i] = 0;
        }
    }
    free(sorted);
    free(fill);
    free(g);
    free(gx);
    free(gy);
    return ok;
}

bool GS_FN(gs_kernel_atomic)(const gs_shape *s, const GS_T *go, const GS_T *in,
                             const GS_T *grid, GS_T *dx, GS_T *dgrid, const int64_t *order)
{
    /* ACLNN_EMU_SHUFFLE permutes the points first (run.c) so the order changes on every call. */
    const int64_t total = s->n * s->ho * s->wo;
    if (order != NULL)
        return GS_FN(run_seeded)(s, go, in, grid, dx, dgrid, order);
    if (dx != NULL)
        memset(dx, 0, (size_t)(s->n * s->c * s->hi * s->wi) * sizeof *dx);
    bool ok = true;
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t first = 0; first < total; first += GS_BLOCK)
        if (!GS_FN(run_block)(s, go, in, grid, dx, dgrid, first,
                              block_count(total, first / GS_BLOCK))) {
#pragma omp atomic write
            ok = false;
        }
    return ok;
}
