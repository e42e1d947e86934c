/* The grid sampler backward kernels, written once for a scalar type. Include after defining
 * GS_T (float or double), GS_UINT (an unsigned integer of its width), GS_FN(name) (a suffixed
 * name), GS_FLOOR, GS_FMOD, GS_EPSILON (its machine epsilon).
 * Semantics: PyTorch's CPU grid_sampler_2d_backward (spec/facts.md §4); every operation is done
 * in GS_T so FLOAT/FLOAT16/BF16 compute in FP32 and DOUBLE in double. This file holds the
 * per-point contributions and the non-deterministic (atomic) kernel; kernel_det_impl.h the
 * fixed-order one. */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grid_sampler2d_backward.h"

#include "geometry_impl.h"

static inline void GS_FN(add)(GS_T *p, GS_T v, bool atomic)
{
    if (atomic) {
#pragma omp atomic
        *p += v;
    } else {
        *p += v;
    }
}

/* dx contribution of bilinear block point i (ok != 0) in one channel (dx at the channel). */
static inline void GS_FN(bilinear_dx)(const GS_FN(geom) *g, int64_t i, int64_t W, GS_T gv,
                                      GS_T *dx, bool atomic)
{
    GS_T *d = dx + g->cell[i];
    if (g->ok[i] == 15 && !atomic) { /* interior: no bounds tests */
        d[0] += g->wt[0][i] * gv;
        d[1] += g->wt[1][i] * gv;
        d[W] += g->wt[2][i] * gv;
        d[W + 1] += g->wt[3][i] * gv;
        return;
    }
    const int64_t off[4] = {0, 1, W, W + 1};
    for (int k = 0; k < 4; k++)
        if (g->ok[i] >> k & 1)
            GS_FN(add)(d + off[k], g->wt[k][i] * gv, atomic);
}

/* Grid-gradient term of bilinear block point i (ok != 0) in one channel, added to *gx, *gy in
 * PyTorch's vectorised form; corners outside read as zeros. */
static inline void GS_FN(bilinear_dgrid)(const GS_FN(geom) *g, int64_t i, int64_t W, GS_T gv,
                                         const GS_T *in, GS_T *gx, GS_T *gy)
{
    const GS_T *v = in + g->cell[i];
    GS_T v0, v1, v2, v3;
    if (g->ok[i] == 15) {
        v0 = v[0], v1 = v[1], v2 = v[W], v3 = v[W + 1];
    } else {
        unsigned ok = g->ok[i];
        v0 = ok & 1 ? v[0] : 0;
        v1 = ok & 2 ? v[1] : 0;
        v2 = ok & 4 ? v[W] : 0;
        v3 = ok & 8 ? v[W + 1] : 0;
    }
    *gx += ((v1 - v0) * g->s[i] + (v3 - v2) * g->n[i]) * gv;
    *gy += ((v2 - v0) * g->e[i] + (v3 - v1) * g->w[i]) * gv;
}

/* dgrid of block point i from its summed terms (nearest has no grid gradient). */
static inline void GS_FN(store_dgrid)(const gs_shape *s, const GS_FN(geom) *g, int64_t i,
                                      GS_T gx, GS_T gy, GS_T *d)
{
    const bool live = s->interpolation == GS_BILINEAR && g->ok[i];
    d[0] = live ? gx * g->mx[i] : 0;
    d[1] = live ? gy * g->my[i] : 0;
}

/* One block of points over all channels with atomic adds into dx, channel-major so each
 * channel's planes stay in cache; each point's dgrid sums the channels in ascending order. */
static void GS_FN(block_atomic)(const gs_shape *s, const GS_T *go, const GS_T *in, GS_T *dx,
                                GS_T *dgrid, const GS_FN(geom) *g, int64_t count)
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
                    GS_FN(add)(dx_c + g->cell[i], gv, true);
                continue;
            }
            if (dx_c != NULL)
                GS_FN(bilinear_dx)(g, i, s->wi, gv, dx_c, true);
            if (dgrid != NULL)
                GS_FN(bilinear_dgrid)(g, i, s->wi, gv, in + c * hw, &gx[i], &gy[i]);
        }
    }
    if (dgrid != NULL)
        for (int64_t i = 0; i < count; i++)
            GS_FN(store_dgrid)(s, g, i, gx[i], gy[i], dgrid + g->dg[i]);
}

/* Geometry of points order[first..first+count) (identity order when NULL), then the block.
 * Returns false when out of memory. */
static bool GS_FN(run_block)(const gs_shape *s, const GS_T *go, const GS_T *in, const GS_T *grid,
                             GS_T *dx, GS_T *dgrid, const int64_t *order, int64_t first,
                             int64_t count)
{
    const int64_t po = s->ho * s->wo, hw = s->hi * s->wi;
    GS_FN(geom) *g = malloc(sizeof *g); /* ~20 KB: off the (OpenMP worker) stack */
    if (g == NULL)
        return false;
    for (int64_t i = 0; i < count; i++) {
        int64_t q = order ? order[first + i] : first + i, b = q / po, p = q % po;
        g->go[i] = b * s->c * po + p;
        g->cell[i] = b * s->c * hw;
        g->dg[i] = q * 2;
        GS_FN(geometry)(s, grid + q * 2, g, i);
    }
    GS_FN(block_atomic)(s, go, in, dx, dgrid, g, count);
    free(g);
    return true;
}

#include "kernel_det_impl.h"

bool GS_FN(gs_kernel)(const gs_shape *s, const GS_T *go, const GS_T *in, const GS_T *grid,
                      GS_T *dx, GS_T *dgrid, bool det, uint64_t shuffle_seed)
{
    /* No grid points (Hout or Wout or N is 0): a selected dx is still written, all zeros, as
     * the sum over no points (docs/contract.md); both kernels below assume points exist. */
    if (s->n * s->ho * s->wo == 0) {
        if (dx != NULL)
            memset(dx, 0, (size_t)(s->n * s->c * s->hi * s->wi) * sizeof *dx);
        return true;
    }
    if (det)
        return GS_FN(det_kernel)(s, go, in, grid, dx, dgrid);
    /* Non-deterministic, like the device: blocks of points in parallel with atomic adds into
     * dx; ACLNN_EMU_SHUFFLE permutes the points first so the order changes on every call. */
    const int64_t total = s->n * s->ho * s->wo;
    int64_t *order = shuffle_seed ? gs_permutation(total, shuffle_seed) : NULL;
    if (shuffle_seed && order == NULL)
        return false;
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
    free(order);
    return ok;
}
