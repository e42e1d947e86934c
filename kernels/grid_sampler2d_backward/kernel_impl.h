/* The grid sampler backward kernel, written once for a scalar type. Include after defining
 * GS_T (float or double), GS_FN(name) (a suffixed name), GS_FLOOR, GS_FMOD, GS_NEARBYINT.
 * Semantics: PyTorch's CPU grid_sampler_2d_backward (spec/facts.md §4); every operation is done
 * in GS_T so FLOAT/FLOAT16/BF16 compute in FP32 and DOUBLE in double. */

#include <math.h>
#include <stdlib.h>

#include "gs_backward.h"

/* Grid coordinate -> pixel coordinate, *grad = d(pixel)/d(grid). */
static inline GS_T GS_FN(unnormalize)(GS_T coord, int64_t size, bool align, GS_T *grad)
{
    if (align) {
        *grad = (GS_T)(size - 1) / 2;
        return (coord + 1) / 2 * (GS_T)(size - 1);
    }
    *grad = (GS_T)size / 2;
    return ((coord + 1) * (GS_T)size - 1) / 2;
}

/* Clip to [0, size-1]; the gradient is 0 at and beyond the limits (as PyTorch). */
static inline GS_T GS_FN(clip)(GS_T in, int64_t size, GS_T *grad)
{
    GS_T max = (GS_T)(size - 1);
    if (in <= 0) {
        *grad = 0;
        return 0;
    }
    if (in >= max) {
        *grad = 0;
        return max;
    }
    *grad = 1;
    return in;
}

/* Reflect over [twice_low/2, twice_high/2]; *grad is +1 or -1 by the parity of the folds. The
 * fold count's parity is taken in floating point so huge coordinates stay well defined. */
static inline GS_T GS_FN(reflect)(GS_T in, int64_t twice_low, int64_t twice_high, GS_T *grad)
{
    if (twice_low == twice_high) {
        *grad = 0;
        return 0;
    }
    GS_T min = (GS_T)twice_low / 2;
    GS_T span = (GS_T)(twice_high - twice_low) / 2;
    GS_T sign = 1;
    in = in - min;
    if (in < 0) {
        sign = -1;
        in = -in;
    }
    GS_T extra = GS_FMOD(in, span);
    GS_T flips = GS_FLOOR(in / span);
    if (GS_FMOD(flips, 2) == 0) {
        *grad = sign;
        return extra + min;
    }
    *grad = -sign;
    return span - extra + min;
}

/* Pixel coordinate of a grid value under padding, with its gradient factor. */
static inline GS_T GS_FN(source_index)(GS_T coord, int64_t size, int padding, bool align,
                                       GS_T *grad)
{
    GS_T g_unnorm, g_clip, g_refl;
    coord = GS_FN(unnormalize)(coord, size, align, &g_unnorm);
    if (padding == GS_BORDER) {
        coord = GS_FN(clip)(coord, size, &g_clip);
        *grad = g_unnorm * g_clip;
    } else if (padding == GS_REFLECTION) {
        if (align)
            coord = GS_FN(reflect)(coord, 0, 2 * (size - 1), &g_refl);
        else
            coord = GS_FN(reflect)(coord, -1, 2 * size - 1, &g_refl);
        coord = GS_FN(clip)(coord, size, &g_clip);
        *grad = g_unnorm * g_refl * g_clip;
    } else {
        *grad = g_unnorm;
    }
    return coord;
}

#define GS_BLOCK 256 /* points per block: their geometry stays in L1 across the channels */

/* What the points of one block contribute, computed once and used for every channel; arrays
 * rather than structs so the channel loops read only what they use. */
typedef struct {
    int64_t go[GS_BLOCK];   /* offset of the point in channel 0 of gradOutput */
    int64_t cell[GS_BLOCK]; /* offset in channel 0 of input/dx: nearest cell or nw corner */
    int64_t dg[GS_BLOCK];   /* offset of the point's (x, y) in gridGrad */
    GS_T wt[4][GS_BLOCK];   /* bilinear weights nw, ne, sw, se */
    GS_T e[GS_BLOCK], w[GS_BLOCK], n[GS_BLOCK], s[GS_BLOCK]; /* distances to the sides */
    GS_T mx[GS_BLOCK], my[GS_BLOCK]; /* gradient factors of x and y */
    unsigned char ok[GS_BLOCK]; /* bit k: corner k inside; 0: no dx, dgrid 0 */
} GS_FN(geom);

/* Geometry of point i of the block, at grid values xy. A point whose grid value or pixel
 * coordinate is not finite, or whose corners all lie outside, gets ok = 0: it contributes
 * nothing and its dgrid is 0 (contract: non-finite grid values are out of bounds). */
static void GS_FN(geometry)(const gs_shape *s, const GS_T *xy, GS_FN(geom) *g, int64_t i)
{
    const int64_t W = s->wi, H = s->hi;
    g->ok[i] = 0;
    g->mx[i] = g->my[i] = 0;
    if (!isfinite(xy[0]) || !isfinite(xy[1]))
        return;
    GS_T ix = GS_FN(source_index)(xy[0], W, s->padding, s->align_corners, &g->mx[i]);
    GS_T iy = GS_FN(source_index)(xy[1], H, s->padding, s->align_corners, &g->my[i]);
    if (s->interpolation == GS_NEAREST) {
        GS_T rx = GS_NEARBYINT(ix), ry = GS_NEARBYINT(iy); /* ties to even */
        if (rx >= 0 && rx < (GS_T)W && ry >= 0 && ry < (GS_T)H) {
            g->cell[i] += (int64_t)ry * W + (int64_t)rx;
            g->ok[i] = 1;
        }
        return;
    }
    /* Corners exist only for -1 <= coordinate < size (this also rejects NaN). */
    if (!(ix >= -1 && ix < (GS_T)W && iy >= -1 && iy < (GS_T)H))
        return;
    GS_T fx = GS_FLOOR(ix), fy = GS_FLOOR(iy);
    int64_t x0 = (int64_t)fx, y0 = (int64_t)fy;
    GS_T w = ix - fx, e = 1 - w, n = iy - fy, so = 1 - n;
    g->w[i] = w;
    g->e[i] = e;
    g->n[i] = n;
    g->s[i] = so;
    g->wt[0][i] = so * e;
    g->wt[1][i] = so * w;
    g->wt[2][i] = n * e;
    g->wt[3][i] = n * w;
    bool x0_in = x0 >= 0, x1_in = x0 + 1 < W, y0_in = y0 >= 0, y1_in = y0 + 1 < H;
    g->ok[i] = (unsigned char)((x0_in && y0_in) | (x1_in && y0_in) << 1 |
                               (x0_in && y1_in) << 2 | (x1_in && y1_in) << 3);
    g->cell[i] += y0 * W + x0;
}

static inline void GS_FN(add)(GS_T *p, GS_T v, bool atomic)
{
    if (atomic) {
#pragma omp atomic
        *p += v;
    } else {
        *p += v;
    }
}

/* Bilinear contribution of block point i in one channel (go, in, dx at channel offsets). */
static inline void GS_FN(bilinear)(const GS_FN(geom) *g, int64_t i, int64_t W, const GS_T *go,
                                   const GS_T *in, GS_T *dx, bool want_dgrid, GS_T *gx,
                                   GS_T *gy, bool atomic)
{
    const GS_T gv = go[g->go[i]];
    const int64_t cell = g->cell[i];
    if (g->ok[i] == 15 && !atomic) { /* interior: no bounds tests */
        if (dx) {
            GS_T *d = dx + cell;
            d[0] += g->wt[0][i] * gv;
            d[1] += g->wt[1][i] * gv;
            d[W] += g->wt[2][i] * gv;
            d[W + 1] += g->wt[3][i] * gv;
        }
        if (want_dgrid) {
            const GS_T *v = in + cell;
            *gx += ((v[1] - v[0]) * g->s[i] + (v[W + 1] - v[W]) * g->n[i]) * gv;
            *gy += ((v[W] - v[0]) * g->e[i] + (v[W + 1] - v[1]) * g->w[i]) * gv;
        }
        return;
    }
    const int64_t off[4] = {0, 1, W, W + 1};
    GS_T v[4];
    for (int k = 0; k < 4; k++) {
        bool inside = g->ok[i] >> k & 1;
        v[k] = inside && want_dgrid ? in[cell + off[k]] : 0; /* zeros outside */
        if (inside && dx)
            GS_FN(add)(dx + cell + off[k], g->wt[k][i] * gv, atomic);
    }
    if (want_dgrid) {
        *gx += ((v[1] - v[0]) * g->s[i] + (v[3] - v[2]) * g->n[i]) * gv;
        *gy += ((v[2] - v[0]) * g->e[i] + (v[3] - v[1]) * g->w[i]) * gv;
    }
}

/* One block of points over all channels, channel-major so each channel's planes stay in cache.
 * Every dx cell receives its contributions of one channel in the block's point order, and each
 * point's dgrid sums the channels in ascending order: results do not depend on how the points
 * are grouped into blocks. */
static void GS_FN(block)(const gs_shape *s, const GS_T *go, const GS_T *in, GS_T *dx,
                         GS_T *dgrid, const GS_FN(geom) *g, int64_t count, bool atomic)
{
    const int64_t hw = s->hi * s->wi, po = s->ho * s->wo;
    GS_T gx[GS_BLOCK] = {0}, gy[GS_BLOCK] = {0};
    const bool bilinear = s->interpolation == GS_BILINEAR;
    for (int64_t c = 0; c < s->c; c++) {
        const GS_T *go_c = go + c * po, *in_c = in ? in + c * hw : NULL;
        GS_T *dx_c = dx ? dx + c * hw : NULL;
        if (!bilinear) {
            if (dx_c != NULL && atomic) {
                for (int64_t i = 0; i < count; i++)
                    if (g->ok[i])
                        GS_FN(add)(dx_c + g->cell[i], go_c[g->go[i]], true);
            } else if (dx_c != NULL) { /* the hot loop of nearest: one add per point */
                for (int64_t i = 0; i < count; i++)
                    dx_c[g->cell[i]] += g->ok[i] ? go_c[g->go[i]] : 0;
            }
            continue;
        }
        for (int64_t i = 0; i < count; i++)
            if (g->ok[i])
                GS_FN(bilinear)(g, i, s->wi, go_c, in_c, dx_c, dgrid != NULL, &gx[i], &gy[i],
                                atomic);
    }
    if (dgrid == NULL)
        return;
    for (int64_t i = 0; i < count; i++) { /* nearest has no grid gradient */
        GS_T *d = dgrid + g->dg[i];
        d[0] = bilinear && g->ok[i] ? gx[i] * g->mx[i] : 0;
        d[1] = bilinear && g->ok[i] ? gy[i] * g->my[i] : 0;
    }
}

/* Geometry of points order[first..first+count) (identity order when NULL), then the block. */
static void GS_FN(run_block)(const gs_shape *s, const GS_T *go, const GS_T *in,
                             const GS_T *grid, GS_T *dx, GS_T *dgrid, const int64_t *order,
                             int64_t first, int64_t count, bool atomic)
{
    const int64_t po = s->ho * s->wo, hw = s->hi * s->wi;
    GS_FN(geom) *g = malloc(sizeof *g); /* ~20 KB: off the (OpenMP worker) stack */
    if (g == NULL)
        return;
    for (int64_t i = 0; i < count; i++) {
        int64_t q = order ? order[first + i] : first + i, b = q / po, p = q % po;
        g->go[i] = b * s->c * po + p;
        g->cell[i] = b * s->c * hw;
        g->dg[i] = q * 2;
        GS_FN(geometry)(s, grid + q * 2, g, i);
    }
    GS_FN(block)(s, go, in, dx, dgrid, g, count, atomic);
    free(g);
}

void GS_FN(gs_kernel)(const gs_shape *s, const GS_T *go, const GS_T *in, const GS_T *grid,
                      GS_T *dx, GS_T *dgrid, bool det, uint64_t shuffle_seed)
{
    const int64_t po = s->ho * s->wo;
    if (det) {
        /* One batch item per task, its points in order: every dx element and every dgrid pair
         * is computed by one task in a fixed order, whatever the thread count. */
#pragma omp parallel for schedule(dynamic, 1)
        for (int64_t b = 0; b < s->n; b++)
            for (int64_t p = 0; p < po; p += GS_BLOCK)
                GS_FN(run_block)(s, go, in, grid, dx, dgrid, NULL, b * po + p,
                                 po - p < GS_BLOCK ? po - p : GS_BLOCK, false);
        return;
    }
    /* Non-deterministic, like the device: blocks of points in parallel with atomic adds into
     * dx; ACLNN_EMU_SHUFFLE permutes the points first so the order changes on every call. */
    const int64_t total = s->n * po;
    int64_t *order = shuffle_seed ? gs_permutation(total, shuffle_seed) : NULL;
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t first = 0; first < total; first += GS_BLOCK)
        GS_FN(run_block)(s, go, in, grid, dx, dgrid, order, first,
                         total - first < GS_BLOCK ? total - first : GS_BLOCK, true);
    free(order);
}
