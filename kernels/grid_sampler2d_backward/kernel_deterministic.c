/* gs_kernel_deterministic: the grid sampler backward's fixed-order kernel for one compute type
 * GS_T (built once per type, grid_sampler2d_backward.h). Results are bitwise identical for any
 * thread count because every output element is computed by exactly one task in an order that
 * does not depend on the schedule:
 * - dx planes (b, c), (b, c + 1) are one task: zeroed, then every point of item b added in
 *   point order;
 * - the dgrid of a block of points is one task: each point sums the channels in ascending order.
 * dx planes of different channels and dgrid of different points are independent, so the tasks
 * run in parallel for any N (also N = 1). Point geometry is computed once per chunk of blocks
 * and shared by all tasks, so the per-channel loops are a load and one (nearest) or four
 * (bilinear) adds per point. */
#include <stdlib.h>
#include <string.h>

#include "grid_sampler2d_backward.h"

#define GS_CHUNK_BLOCKS 256 /* blocks of geometry held at once (~4 MB in FP32): bounds memory */

/* Which blocks a chunk holds: global blocks [k0, k1), block k = item k / bpi, its points
 * (k % bpi) * GS_BLOCK onwards; blocks never straddle items. */
typedef struct {
    int64_t k0, k1, bpi, po;
} GS_FN(chunk);

static int64_t GS_FN(block_count)(const GS_FN(chunk) *ch, int64_t k)
{
    int64_t p0 = k % ch->bpi * GS_BLOCK;
    return ch->po - p0 < GS_BLOCK ? ch->po - p0 : GS_BLOCK;
}

/* Geometry of global block k into g (in-plane cell offsets). */
static void GS_FN(det_geometry)(const gs_shape *s, const GS_T *grid, const GS_FN(chunk) *ch,
                                int64_t k, GS_FN(gs_geom) *g)
{
    const int64_t q0 = k / ch->bpi * ch->po + k % ch->bpi * GS_BLOCK; /* first point */
    const int64_t count = GS_FN(block_count)(ch, k);
    if (!GS_FN(gs_nearest_cells)(s, grid + q0 * 2, count, g))
        for (int64_t i = 0; i < count; i++) {
            g->cell[i] = 0;
            GS_FN(gs_geometry)(s, grid + (q0 + i) * 2, g, i);
        }
    /* The points that contribute, so the nearest dx loop neither tests nor masks (grids whose
     * points fall outside at random would mispredict); the build is branch-free too. */
    int32_t n = 0;
    for (int32_t i = 0; i < (int32_t)count; i++) {
        g->live[n] = i;
        n += g->ok[i] != 0;
    }
    g->nlive = n;
}

/* dx planes (b, c) and (b, c + 1) when two < C - c: the points of item b that lie in the
 * chunk, in point order. Two channels per pass share each point's geometry loads; each plane
 * still gets its points in order. The planes are zeroed by the chunk holding the item's first
 * block, right before their adds (in cache). */
static void GS_FN(det_dx)(const gs_shape *s, const GS_T *go, GS_T *dx, const GS_FN(gs_geom) *g,
                          const GS_FN(chunk) *ch, int64_t b, int64_t c)
{
    const int64_t hw = s->hi * s->wi, W = s->wi, two = s->c - c > 1;
    const int64_t first = b * ch->bpi > ch->k0 ? b * ch->bpi : ch->k0;
    const int64_t end = (b + 1) * ch->bpi < ch->k1 ? (b + 1) * ch->bpi : ch->k1;
    const GS_T *go_c = go + (b * s->c + c) * ch->po;
    GS_T *restrict d0 = dx + (b * s->c + c) * hw;
    GS_T *restrict d1 = d0 + (two ? hw : 0); /* one channel: d1 unused */
    if (first == b * ch->bpi)
        memset(d0, 0, (size_t)((1 + two) * hw) * sizeof *d0);
    for (int64_t k = first; k < end; k++) {
        const GS_FN(gs_geom) *gk = g + (k - ch->k0);
        const GS_T *g0 = go_c + k % ch->bpi * GS_BLOCK, *g1 = g0 + ch->po;
        const int64_t count = GS_FN(block_count)(ch, k);
        if (s->interpolation == GS_NEAREST && s->dx_sums != GS_SUMS_COMPUTE) {
            for (int32_t j = 0; j < gk->nlive; j++) {
                const int32_t i = gk->live[j];
                GS_FN(gs_add)(d0 + gk->cell[i], g0[i], false, s->dx_sums);
                if (two)
                    GS_FN(gs_add)(d1 + gk->cell[i], g1[i], false, s->dx_sums);
            }
        } else if (s->interpolation == GS_NEAREST && two) { /* the hot loop of nearest */
            for (int32_t j = 0; j < gk->nlive; j++) {
                const int32_t i = gk->live[j];
                const int64_t cell = gk->cell[i];
                d0[cell] += g0[i];
                d1[cell] += g1[i];
            }
        } else if (s->interpolation == GS_NEAREST) {
            for (int32_t j = 0; j < gk->nlive; j++)
                d0[gk->cell[gk->live[j]]] += g0[gk->live[j]];
        } else if (s->dx_sums != GS_SUMS_COMPUTE) {
            /* 950's deterministic SIMT kernel: per block of 256 points (its threads), corner by
             * corner, the block's points in order (ops-cv op_kernel/arch35/
             * grid_sampler2_d_grad_simt_det.h:78-106,108-157@4d57ffe7) */
            const int64_t off[4] = {0, 1, W, W + 1};
            for (int k = 0; k < 4; k++)
                for (int64_t i = 0; i < count; i++) {
                    if (!(gk->ok[i] >> k & 1))
                        continue;
                    const int64_t at = gk->cell[i] + off[k];
                    GS_FN(gs_add)(d0 + at, gk->wt[k][i] * g0[i], false, s->dx_sums);
                    if (two)
                        GS_FN(gs_add)(d1 + at, gk->wt[k][i] * g1[i], false, s->dx_sums);
                }
        } else {
            for (int64_t i = 0; i < count; i++) {
                if (!gk->ok[i])
                    continue;
                GS_FN(gs_bilinear_dx)(gk, i, W, g0[i], d0, false, s->dx_sums);
                if (two)
                    GS_FN(gs_bilinear_dx)(gk, i, W, g1[i], d1, false, s->dx_sums);
            }
        }
    }
}

/* dgrid of global block k: each point's terms summed over the channels in ascending order. */
static void GS_FN(det_dgrid)(const gs_shape *s, const GS_T *go, const GS_T *in, GS_T *dgrid,
                             const GS_FN(gs_geom) *g, const GS_FN(chunk) *ch, int64_t k)
{
    const int64_t hw = s->hi * s->wi, b = k / ch->bpi, p0 = k % ch->bpi * GS_BLOCK;
    const int64_t count = GS_FN(block_count)(ch, k);
    GS_T gx[GS_BLOCK] = {0}, gy[GS_BLOCK] = {0};
    if (s->interpolation == GS_BILINEAR)
        for (int64_t c = 0; c < s->c; c++) {
            const GS_T *go_k = go + (b * s->c + c) * ch->po + p0, *in_c = in + (b * s->c + c) * hw;
            for (int64_t i = 0; i < count; i++)
                if (g->ok[i])
                    GS_FN(gs_bilinear_dgrid)(g, i, s->wi, go_k[i], in_c, &gx[i], &gy[i]);
        }
    GS_T *d = dgrid + (b * ch->po + p0) * 2;
    for (int64_t i = 0; i < count; i++)
        GS_FN(gs_store_dgrid)(s, g, i, gx[i], gy[i], d + i * 2);
}

bool GS_FN(gs_kernel_deterministic)(const gs_shape *s, const GS_T *go, const GS_T *in,
                                    const GS_T *grid, GS_T *dx, GS_T *dgrid)
{
    const int64_t po = s->ho * s->wo, bpi = (po + GS_BLOCK - 1) / GS_BLOCK, blocks = s->n * bpi;
    const int64_t cap = blocks < GS_CHUNK_BLOCKS ? blocks : GS_CHUNK_BLOCKS;
    GS_FN(gs_geom) *g = malloc((size_t)cap * sizeof *g);
    if (g == NULL)
        return false;
    for (int64_t k0 = 0; k0 < blocks; k0 += cap) {
        const GS_FN(chunk) ch = {k0, blocks - k0 < cap ? blocks : k0 + cap, bpi, po};
        const int64_t b0 = ch.k0 / bpi, items = (ch.k1 - 1) / bpi - b0 + 1;
        const int64_t pairs = (s->c + 1) / 2; /* dx tasks: channel pairs of each item */
        const int64_t n_dx = dx ? items * pairs : 0, n_dg = dgrid ? ch.k1 - ch.k0 : 0;
#pragma omp parallel
        {
            /* Dynamic schedules throughout: on a shared machine a descheduled thread then
             * holds up the others by one small piece, not by half of the work. */
#pragma omp for schedule(dynamic, 4)
            for (int64_t k = ch.k0; k < ch.k1; k++)
                GS_FN(det_geometry)(s, grid, &ch, k, g + (k - ch.k0));
            /* Tasks read the shared geometry (the loop above ends with a barrier). */
#pragma omp for schedule(dynamic, 1)
            for (int64_t t = 0; t < n_dx + n_dg; t++) {
                if (t < n_dx)
                    GS_FN(det_dx)(s, go, dx, g, &ch, b0 + t / pairs, t % pairs * 2);
                else
                    GS_FN(det_dgrid)(s, go, in, dgrid, g + (t - n_dx), &ch, ch.k0 + t - n_dx);
            }
        }
    }
    free(g);
    return true;
}
