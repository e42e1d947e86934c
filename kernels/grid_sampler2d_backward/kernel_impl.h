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

static inline void GS_FN(atomic_add)(GS_T *p, GS_T v)
{
#pragma omp atomic
    *p += v;
}

/* One grid point (n, p) over all channels. Adds into dx (atomically when `atomic`), writes
 * dgrid[0..1]. A point whose grid value or pixel coordinate is not finite, or whose corners all
 * lie outside, contributes nothing and gets dgrid 0 (contract: non-finite = out of bounds). */
static inline void GS_FN(point)(const gs_shape *s, const GS_T *go, const GS_T *in,
                                const GS_T *xy, GS_T *dx, GS_T *dgrid, bool atomic)
{
    const int64_t hw = s->hi * s->wi, po = s->ho * s->wo, W = s->wi, H = s->hi;
    GS_T gx = 0, gy = 0, gx_mult = 0, gy_mult = 0;
    if (!isfinite(xy[0]) || !isfinite(xy[1]))
        goto out;
    GS_T ix = GS_FN(source_index)(xy[0], W, s->padding, s->align_corners, &gx_mult);
    GS_T iy = GS_FN(source_index)(xy[1], H, s->padding, s->align_corners, &gy_mult);

    if (s->interpolation == GS_NEAREST) {
        GS_T rx = GS_NEARBYINT(ix), ry = GS_NEARBYINT(iy); /* ties to even */
        if (dx == NULL || !(rx >= 0 && rx < (GS_T)W && ry >= 0 && ry < (GS_T)H))
            goto out;
        GS_T *d = dx + (int64_t)ry * W + (int64_t)rx;
        for (int64_t c = 0; c < s->c; c++) {
            if (atomic)
                GS_FN(atomic_add)(d + c * hw, go[c * po]);
            else
                d[c * hw] += go[c * po];
        }
        goto out; /* nearest has no grid gradient */
    }

    /* Corners exist only for -1 <= coordinate < size (this also rejects NaN). */
    if (!(ix >= -1 && ix < (GS_T)W && iy >= -1 && iy < (GS_T)H))
        goto out;
    GS_T fx = GS_FLOOR(ix), fy = GS_FLOOR(iy);
    int64_t x0 = (int64_t)fx, y0 = (int64_t)fy;
    GS_T w = ix - fx, e = 1 - w, n = iy - fy, so = 1 - n; /* distances to the four sides */
    GS_T nw = so * e, ne = so * w, sw = n * e, se = n * w;
    bool in_x0 = x0 >= 0, in_x1 = x0 + 1 < W, in_y0 = y0 >= 0, in_y1 = y0 + 1 < H;
    int64_t base = y0 * W + x0;

    if (in_x0 && in_x1 && in_y0 && in_y1 && !atomic) {
        /* Interior point: no bounds tests in the channel loop. */
        for (int64_t c = 0; c < s->c; c++) {
            GS_T g = go[c * po];
            if (dx) {
                GS_T *d = dx + c * hw + base;
                d[0] += nw * g;
                d[1] += ne * g;
                d[W] += sw * g;
                d[W + 1] += se * g;
            }
            if (dgrid) {
                const GS_T *v = in + c * hw + base;
                gx += ((v[1] - v[0]) * so + (v[W + 1] - v[W]) * n) * g;
                gy += ((v[W] - v[0]) * e + (v[W + 1] - v[1]) * w) * g;
            }
        }
    } else {
        bool ok[4] = {in_x0 && in_y0, in_x1 && in_y0, in_x0 && in_y1, in_x1 && in_y1};
        const int64_t off[4] = {base, base + 1, base + W, base + W + 1};
        const GS_T wt[4] = {nw, ne, sw, se};
        for (int64_t c = 0; c < s->c; c++) {
            GS_T g = go[c * po];
            if (dx) {
                for (int k = 0; k < 4; k++) {
                    if (!ok[k])
                        continue;
                    if (atomic)
                        GS_FN(atomic_add)(dx + c * hw + off[k], wt[k] * g);
                    else
                        dx[c * hw + off[k]] += wt[k] * g;
                }
            }
            if (dgrid) {
                GS_T v[4];
                for (int k = 0; k < 4; k++)
                    v[k] = ok[k] ? in[c * hw + off[k]] : 0; /* zeros outside */
                gx += ((v[1] - v[0]) * so + (v[3] - v[2]) * n) * g;
                gy += ((v[2] - v[0]) * e + (v[3] - v[1]) * w) * g;
            }
        }
    }
    gx = gx * gx_mult;
    gy = gy * gy_mult;
out:
    if (dgrid) {
        dgrid[0] = s->interpolation == GS_NEAREST ? 0 : gx;
        dgrid[1] = s->interpolation == GS_NEAREST ? 0 : gy;
    }
}

void GS_FN(gs_kernel)(const gs_shape *s, const GS_T *go, const GS_T *in, const GS_T *grid,
                      GS_T *dx, GS_T *dgrid, bool det, uint64_t shuffle_seed)
{
    const int64_t po = s->ho * s->wo, ci = s->c * s->hi * s->wi, co = s->c * po;
    if (det) {
        /* One batch item per task, its points in order: every dx element and every dgrid pair
         * is computed by one task in a fixed order, whatever the thread count. */
#pragma omp parallel for schedule(dynamic, 1)
        for (int64_t b = 0; b < s->n; b++) {
            for (int64_t p = 0; p < po; p++)
                GS_FN(point)(s, go + b * co + p, in + b * ci, grid + (b * po + p) * 2,
                             dx ? dx + b * ci : NULL, dgrid ? dgrid + (b * po + p) * 2 : NULL,
                             false);
        }
        return;
    }
    /* Non-deterministic, like the device: all points in parallel, atomic adds into dx. */
    const int64_t total = s->n * po;
    int64_t *order = shuffle_seed ? gs_permutation(total, shuffle_seed) : NULL;
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t i = 0; i < total; i++) {
        int64_t q = order ? order[i] : i, b = q / po, p = q % po;
        GS_FN(point)(s, go + b * co + p, in + b * ci, grid + q * 2, dx ? dx + b * ci : NULL,
                     dgrid ? dgrid + q * 2 : NULL, true);
    }
    free(order);
}
