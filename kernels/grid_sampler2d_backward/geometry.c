/* gs_geometry, gs_nearest_cells: the per-point geometry of the grid sampler backward for one
 * compute type GS_T (built once per type, grid_sampler2d_backward.h): pixel coordinates under
 * each padding mode, corners, weights and gradient factors of blocks of points. Both kernels
 * share it, so they see the same numbers. */
#include "grid_sampler2d_backward.h"

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

/* nearbyint under the default rounding mode (ties to even), without a libm call (-O2 on
 * baseline x86-64 cannot inline nearbyint): adding and removing 2^(digits-1) leaves no
 * fraction bits, so the sum rounds x to an integer, ties to even. Values at or beyond that
 * magnitude are already integers; NaN and infinities pass through. Checked equal to nearbyintf
 * for all 2^32 floats (a zero's sign may differ, which no caller sees). */
static inline GS_T GS_FN(round_even)(GS_T x)
{
    const GS_T magic = 1 / GS_EPSILON;
    if (!(fabs((double)x) < (double)magic))
        return x;
    return x >= 0 ? (x + magic) - magic : (x - magic) + magic;
}

/* 950's SIMT kernel from release 9.1 on FLOAT16/BF16 (r: gs_shape.coord_round): the FP32
 * unnormalised coordinate rounded to the dtype, its gradient factor T(size)/2 in it, and the
 * padding's results kept in it: the clip's T(size − 1), the reflection's t − min and reflected
 * value (ops-cv grid_sampler3_d_grad_simt_base.h:51-114,156-180@4d57ffe7). */
static GS_T GS_FN(simt_source_index)(GS_T coord, int64_t size, const gs_shape *s, GS_T *grad)
{
    const int r = s->coord_round;
    const bool align = s->align_corners;
    GS_T g_unnorm, g = 1;
    coord = GS_FN(gs_sums_round)(GS_FN(unnormalize)(coord, size, align, &g_unnorm), r);
    g_unnorm = GS_FN(gs_sums_round)((GS_T)(align ? size - 1 : size), r) / 2;
    if (s->padding == GS_REFLECTION && !(align ? size == 1 : false)) {
        GS_T min = align ? 0 : (GS_T)-0.5, span = align ? (GS_T)(size - 1) : (GS_T)size;
        GS_T in = GS_FN(gs_sums_round)(coord - min, r);
        g = in < 0 ? -1 : 1;
        in = in < 0 ? -in : in;
        GS_T extra = GS_FMOD(in, span);
        bool odd = GS_FMOD(GS_FLOOR(in / span), 2) != 0;
        coord = GS_FN(gs_sums_round)(odd ? span - extra + min : extra + min, r);
        g = odd ? -g : g;
    } else if (s->padding == GS_REFLECTION) {
        coord = 0;
        g = 0;
    }
    if (s->padding != GS_ZEROS) {
        GS_T max = GS_FN(gs_sums_round)((GS_T)(size - 1), r);
        g = coord <= 0 || coord >= max ? 0 : g;
        coord = coord <= 0 ? 0 : coord >= max ? max : coord;
    }
    *grad = g_unnorm * g;
    return coord;
}

/* Pixel coordinate of a grid value under padding, with its gradient factor. Always inlined:
 * in the per-point geometry loop a call costs about as much as the zeros-padding arithmetic. */
__attribute__((always_inline)) static inline GS_T
GS_FN(source_index)(GS_T coord, int64_t size, int padding, bool align, GS_T *grad)
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

void GS_FN(gs_geometry)(const gs_shape *s, const GS_T *xy, GS_FN(gs_geom) *g, int64_t i)
{
    const int64_t W = s->wi, H = s->hi;
    g->ok[i] = 0;
    g->mx[i] = g->my[i] = 0;
    if (!isfinite(xy[0]) || !isfinite(xy[1]))
        return;
    GS_T ix, iy;
    if (s->coord_round) {
        ix = GS_FN(simt_source_index)(xy[0], W, s, &g->mx[i]);
        iy = GS_FN(simt_source_index)(xy[1], H, s, &g->my[i]);
    } else {
        ix = GS_FN(source_index)(xy[0], W, s->padding, s->align_corners, &g->mx[i]);
        iy = GS_FN(source_index)(xy[1], H, s->padding, s->align_corners, &g->my[i]);
    }
    if (s->interpolation == GS_NEAREST) {
        GS_T rx = GS_FN(round_even)(ix), ry = GS_FN(round_even)(iy);
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
    if (s->coord_round) { /* the differences and the weights in the dtype (simt.h:132-135) */
        const int r = s->coord_round;
        w = GS_FN(gs_sums_round)(w, r);
        e = GS_FN(gs_sums_round)(fx + 1 - ix, r);
        n = GS_FN(gs_sums_round)(n, r);
        so = GS_FN(gs_sums_round)(fy + 1 - iy, r);
    }
    g->w[i] = w;
    g->e[i] = e;
    g->n[i] = n;
    g->s[i] = so;
    g->wt[0][i] = GS_FN(gs_sums_round)(so * e, s->coord_round);
    g->wt[1][i] = GS_FN(gs_sums_round)(so * w, s->coord_round);
    g->wt[2][i] = GS_FN(gs_sums_round)(n * e, s->coord_round);
    g->wt[3][i] = GS_FN(gs_sums_round)(n * w, s->coord_round);
    bool x0_in = x0 >= 0, x1_in = x0 + 1 < W, y0_in = y0 >= 0, y1_in = y0 + 1 < H;
    g->ok[i] = (unsigned char)((x0_in && y0_in) | (x1_in && y0_in) << 1 |
                               (x0_in && y1_in) << 2 | (x1_in && y1_in) << 3);
    g->cell[i] += y0 * W + x0;
}

/* Pixel index of nearest for grid value v on an axis of `size` (fsize, last = size - 1 as
 * GS_T) under zeros or border padding: source_index() then round_even(), as selects. align and
 * border are constants at each call so the callers' loops are straight-line code. */
__attribute__((always_inline)) static inline GS_T
GS_FN(nearest_index)(GS_T v, GS_T fsize, GS_T last, bool align, bool border)
{
    const GS_T magic = 1 / GS_EPSILON;
    GS_T c = align ? (v + 1) / 2 * last : ((v + 1) * fsize - 1) / 2;
    if (border) /* clip(): at or below 0 is 0, at or above the last index is it */
        c = c <= 0 ? 0 : c >= last ? last : c;
    GS_T up = (c + magic) - magic, down = (c - magic) + magic;
    GS_T r = c >= 0 ? up : down;
    return fabs(c) < magic ? r : c;
}

/* Nearest cells and masks of count points at grid values xy (see gs_nearest_cells). */
__attribute__((always_inline)) static inline void
GS_FN(nearest_cells_loop)(const gs_shape *s, const GS_T *restrict xy, int64_t count,
                          GS_FN(gs_geom) *restrict g, bool align, bool border)
{
    const int64_t W = s->wi;
    const GS_T fw = (GS_T)W, fh = (GS_T)s->hi, lw = (GS_T)(W - 1), lh = (GS_T)(s->hi - 1);
#pragma omp simd
    for (int64_t i = 0; i < count; i++) {
        const GS_T x = xy[2 * i], y = xy[2 * i + 1];
        const GS_T rx = GS_FN(nearest_index)(x, fw, lw, align, border);
        const GS_T ry = GS_FN(nearest_index)(y, fh, lh, align, border);
        const bool in = (x - x == 0) & (y - y == 0) & (rx >= 0) & (rx < fw) & (ry >= 0) &
                        (ry < fh);
        const int32_t cx = (int32_t)(in ? rx : 0), cy = (int32_t)(in ? ry : 0);
        g->cell[i] = (int64_t)cy * W + cx;
        g->ok[i] = in;
    }
}

/* Nearest cells of count points at grid values xy under zeros or border padding (false, and
 * nothing done, for reflection or planes too wide for int32 indices): geometry()'s operations
 * in the same order with selects instead of branches, so the loop vectorizes (geometry took a
 * sixth of the nearest kernel's time, one call per point). Same cell and ok for every input:
 * x - x == 0 is isfinite (NaN and infinities give NaN), and a point outside or not finite gets
 * cell 0, ok 0. The deterministic kernel uses neither mx nor my of nearest points. */
bool GS_FN(gs_nearest_cells)(const gs_shape *s, const GS_T *restrict xy, int64_t count,
                             GS_FN(gs_geom) *restrict g)
{
    if (s->interpolation != GS_NEAREST || s->padding == GS_REFLECTION || s->wi > INT32_MAX ||
        s->hi > INT32_MAX || s->coord_round)
        return false;
    const bool border = s->padding == GS_BORDER;
    if (s->align_corners && border)
        GS_FN(nearest_cells_loop)(s, xy, count, g, true, true);
    else if (s->align_corners)
        GS_FN(nearest_cells_loop)(s, xy, count, g, true, false);
    else if (border)
        GS_FN(nearest_cells_loop)(s, xy, count, g, false, true);
    else
        GS_FN(nearest_cells_loop)(s, xy, count, g, false, false);
    return true;
}
