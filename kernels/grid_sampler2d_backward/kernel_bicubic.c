/* gs_kernel_bicubic: the grid sampler backward's bicubic mode (interpolationMode 2, the vendor's
 * releases from 9.1) for one compute type GS_T (built once per type,
 * grid_sampler2d_backward.h), as PyTorch's CPU grid_sampler_2d_backward and the vendor's
 * op_kernel/grid_sampler2_d_grad_bicubic.h compute it: the coordinate unnormalised only (no clip
 * or reflection of it), t = c − floor(c), Keys' coefficients (A = −0.75) of t + 1, t, 1 − t and
 * 2 − t by Horner's rule, and each of the 4×4 taps' index bounded per padding mode (zeros: taps
 * outside skipped; border: clamped; reflection: the tap coordinate reflected, then clamped).
 * dx[tap] += g·(wy·wx); dgrid x = mult_x·Σ val·(dwx·wy)·g, y likewise with wx·dwy. Every
 * operation in GS_T. Deterministic: per batch item, one task per dx plane adding the points in
 * order, one per point summing the channels in order. Otherwise blocks of points in parallel with
 * atomic adds into dx (a seeded order on one thread). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grid_sampler2d_backward.h"

typedef struct {
    int64_t ix[4], iy[4]; /* bounded tap indices; −1 outside (zeros) */
    GS_T wx[4], wy[4], dwx[4], dwy[4];
    GS_T mx, my;          /* dc/dgrid per axis */
    bool ok;              /* a tap inside on both axes */
    bool nan;             /* a non-finite coordinate whose coefficients the kernel keeps (NaN) */
} GS_FN(bc_geom);

/* K(t+1), K(t), K(1−t), K(2−t) and their derivatives in t, in the vendor's evaluation order. */
static void GS_FN(bc_coeffs)(GS_T t, GS_T w[4], GS_T dw[4])
{
    const GS_T x1 = t + 1, x2 = 1 - t, x3 = x2 + 1;
    w[0] = ((x1 * (GS_T)-0.75 + (GS_T)3.75) * x1 - 6) * x1 + 3;
    w[1] = (t * (GS_T)1.25 + (GS_T)-2.25) * t * t + 1;
    w[2] = (x2 * (GS_T)1.25 + (GS_T)-2.25) * x2 * x2 + 1;
    w[3] = ((x3 * (GS_T)-0.75 + (GS_T)3.75) * x3 - 6) * x3 + 3;
    dw[0] = (x1 * (GS_T)-2.25 + (GS_T)7.5) * x1 - 6;
    dw[1] = (t * (GS_T)3.75 + (GS_T)-4.5) * t;
    dw[2] = -((x2 * (GS_T)3.75 + (GS_T)-4.5) * x2);
    dw[3] = -((x3 * (GS_T)-2.25 + (GS_T)7.5) * x3 - 6);
}

/* PyTorch's reflect_coordinates of a tap coordinate (an integer-valued GS_T). */
static GS_T GS_FN(bc_reflect)(GS_T x, int64_t size, bool align)
{
    int64_t lo2 = align ? 0 : -1, hi2 = align ? 2 * (size - 1) : 2 * size - 1;
    if (lo2 == hi2)
        return 0;
    GS_T min = (GS_T)lo2 / 2, span = (GS_T)(hi2 - lo2) / 2;
    GS_T in = x - min;
    in = in < 0 ? -in : in;
    GS_T extra = GS_FMOD(in, span), flips = GS_FLOOR(in / span);
    return GS_FMOD(flips, 2) == 0 ? extra + min : span - extra + min;
}

/* The index of tap coordinate x (integer-valued) under the padding mode; −1 when zeros skips
 * it. The coordinate is bounded before its conversion, so huge ones stay defined. */
static int64_t GS_FN(bc_index)(GS_T x, int64_t size, int padding, bool align)
{
    GS_T max = (GS_T)(size - 1);
    if (padding == GS_ZEROS)
        return x >= 0 && x <= max ? (int64_t)x : -1;
    if (padding == GS_REFLECTION)
        x = GS_FN(bc_reflect)(x, size, align);
    return x <= 0 ? 0 : x >= max ? (int64_t)max : (int64_t)x;
}

/* A non-finite coordinate c as the kernel keeps it (gs_shape.bicubic_nonfinite): every
 * coefficient NaN (t = c − floor(c)); on the SIMT kernel a NaN tap is out and an infinite one
 * clamps to its edge under border, out otherwise (ops-cv grid_sampler3_d_grad_simt_base.h:
 * 116-122,247-302@4d57ffe7); on the vector kernel under reflection the taps come from a
 * float-to-int32 cast the hardware defines: here index 0. False when no tap is inside. */
static bool GS_FN(bc_nonfinite)(GS_T c, int64_t size, const gs_shape *s, int64_t idx[4],
                                GS_T w[4], GS_T dw[4])
{
    int64_t at = -1;
    if (s->bicubic_nonfinite == GS_BCNF_VECTOR_REFLECT)
        at = 0;
    else if (s->padding == GS_BORDER && isinf(c))
        at = c > 0 ? size - 1 : 0;
    for (int k = 0; k < 4; k++) {
        w[k] = dw[k] = (GS_T)NAN;
        idx[k] = at;
    }
    return at >= 0;
}

/* One axis: taps, coefficients, gradient factor. False when no tap is inside (zeros) or the
 * coordinate is not finite; *nan when the kernel keeps a non-finite one (bc_nonfinite). */
static bool GS_FN(bc_axis)(GS_T coord, int64_t size, const gs_shape *s, int64_t idx[4],
                           GS_T w[4], GS_T dw[4], GS_T *mult, bool *nan)
{
    GS_T c;
    if (s->align_corners) {
        *mult = (GS_T)(size - 1) / 2;
        c = (coord + 1) / 2 * (GS_T)(size - 1);
    } else {
        *mult = (GS_T)size / 2;
        c = ((coord + 1) * (GS_T)size - 1) / 2;
    }
    if (s->coord_round) { /* 950's SIMT kernel from 9.1: both in the dtype (simt_base.h:54-64) */
        c = GS_FN(gs_sums_round)(c, s->coord_round);
        *mult = GS_FN(gs_sums_round)((GS_T)(s->align_corners ? size - 1 : size), s->coord_round) / 2;
    }
    *nan = !(c - c == 0) && s->bicubic_nonfinite != GS_BCNF_OUT;
    if (*nan)
        return GS_FN(bc_nonfinite)(c, size, s, idx, w, dw);
    if (!(c - c == 0)) /* NaN or infinite: out of bounds (docs/contract.md) */
        return false;
    GS_T f = GS_FLOOR(c);
    GS_FN(bc_coeffs)(c - f, w, dw);
    bool any = false;
    for (int k = 0; k < 4; k++) {
        idx[k] = GS_FN(bc_index)(f + (GS_T)(k - 1), size, s->padding, s->align_corners);
        any = any || idx[k] >= 0;
    }
    return any;
}

static void GS_FN(bc_point)(const gs_shape *s, const GS_T *xy, GS_FN(bc_geom) *g)
{
    bool nx = false, ny = false;
    bool okx = GS_FN(bc_axis)(xy[0], s->wi, s, g->ix, g->wx, g->dwx, &g->mx, &nx);
    bool oky = GS_FN(bc_axis)(xy[1], s->hi, s, g->iy, g->wy, g->dwy, &g->my, &ny);
    g->ok = okx && oky;
    g->nan = nx || ny;
}

/* dx of point g in one channel (plane d), the taps in row order; with sums in the dtype as 950's
 * SIMT kernel adds them: column-major, each term (g·wx)·wy (ops-cv
 * op_kernel/arch35/grid_sampler2_d_grad_simt.h:216-224@4d57ffe7), which matters where border
 * clamps several taps onto one pixel. */
static void GS_FN(bc_dx)(const GS_FN(bc_geom) *g, int64_t W, GS_T gv, GS_T *d, bool atomic,
                         int sums)
{
    for (int i = 0; sums != GS_SUMS_COMPUTE && i < 4; i++)
        for (int j = 0; g->ix[i] >= 0 && j < 4; j++)
            if (g->iy[j] >= 0)
                GS_FN(gs_add)(d + g->iy[j] * W + g->ix[i], gv * g->wx[i] * g->wy[j], atomic, sums);
    for (int j = 0; sums == GS_SUMS_COMPUTE && j < 4; j++) {
        if (g->iy[j] < 0)
            continue;
        GS_T *row = d + g->iy[j] * W;
        for (int i = 0; i < 4; i++)
            if (g->ix[i] >= 0)
                GS_FN(gs_add)(row + g->ix[i], g->wy[j] * g->wx[i] * gv, atomic, sums);
    }
}

/* dgrid terms of point g in one channel (plane v of input). */
static void GS_FN(bc_dgrid)(const GS_FN(bc_geom) *g, int64_t W, GS_T gv, const GS_T *v, GS_T *gx,
                            GS_T *gy)
{
    for (int j = 0; j < 4; j++) {
        if (g->iy[j] < 0)
            continue;
        const GS_T *row = v + g->iy[j] * W;
        for (int i = 0; i < 4; i++)
            if (g->ix[i] >= 0) {
                GS_T val = row[g->ix[i]];
                *gx += val * (g->dwx[i] * g->wy[j]) * gv;
                *gy += val * (g->wx[i] * g->dwy[j]) * gv;
            }
    }
}

/* dgrid of point q (geometry g) summing the channels in ascending order. */
static void GS_FN(bc_point_dgrid)(const gs_shape *s, const GS_T *go, const GS_T *in,
                                  const GS_FN(bc_geom) *g, int64_t q, GS_T *dgrid)
{
    const int64_t po = s->ho * s->wo, hw = s->hi * s->wi, b = q / po, p = q % po;
    GS_T gx = 0, gy = 0;
    for (int64_t c = 0; g->ok && c < s->c; c++)
        GS_FN(bc_dgrid)(g, s->wi, go[(b * s->c + c) * po + p], in + (b * s->c + c) * hw, &gx,
                        &gy);
    /* a kept non-finite coordinate: val·NaN over the 16 taps, out-of-bounds ones as val 0 */
    if (g->nan && s->c > 0)
        gx = gy = (GS_T)NAN;
    dgrid[q * 2] = g->ok || g->nan ? gx * g->mx : 0;
    dgrid[q * 2 + 1] = g->ok || g->nan ? gy * g->my : 0;
}

/* dx plane d of one batch item as 950's deterministic SIMT kernel adds it: per block of 256
 * points (its threads), tap by tap (x outer), the block's points in order, each term g·(wx·wy)
 * (ops-cv op_kernel/arch35/grid_sampler2_d_grad_simt_det.h:218-262,299-311@4d57ffe7). */
static void GS_FN(bc_dx_simt_det)(const gs_shape *s, const GS_FN(bc_geom) *g, const GS_T *gc,
                                  GS_T *d)
{
    const int64_t po = s->ho * s->wo;
    for (int64_t p0 = 0; p0 < po; p0 += GS_BLOCK)
        for (int t = 0; t < 16; t++)
            for (int64_t p = p0; p < po && p < p0 + GS_BLOCK; p++) {
                const int i = t / 4, j = t % 4;
                if (g[p].ok && g[p].ix[i] >= 0 && g[p].iy[j] >= 0)
                    GS_FN(gs_add)(d + g[p].iy[j] * s->wi + g[p].ix[i],
                                  gc[p] * (g[p].wx[i] * g[p].wy[j]), false, s->dx_sums);
            }
}

/* Fixed order per batch item b: geometry of its points, then one task per dx plane (points in
 * order; 950's SIMT sums in its own order) and per point's dgrid. */
static bool GS_FN(bc_deterministic)(const gs_shape *s, const GS_T *go, const GS_T *in,
                                    const GS_T *grid, GS_T *dx, GS_T *dgrid)
{
    const int64_t po = s->ho * s->wo, hw = s->hi * s->wi;
    GS_FN(bc_geom) *g = malloc((size_t)po * sizeof *g);
    if (g == NULL)
        return false;
    for (int64_t b = 0; b < s->n; b++) {
#pragma omp parallel for schedule(static)
        for (int64_t p = 0; p < po; p++)
            GS_FN(bc_point)(s, grid + (b * po + p) * 2, &g[p]);
        if (dx != NULL) {
#pragma omp parallel for schedule(dynamic, 1)
            for (int64_t c = 0; c < s->c; c++) {
                GS_T *d = dx + (b * s->c + c) * hw;
                const GS_T *gc = go + (b * s->c + c) * po;
                memset(d, 0, (size_t)hw * sizeof *d);
                if (s->dx_sums != GS_SUMS_COMPUTE) {
                    GS_FN(bc_dx_simt_det)(s, g, gc, d);
                    continue;
                }
                for (int64_t p = 0; p < po; p++)
                    if (g[p].ok)
                        GS_FN(bc_dx)(&g[p], s->wi, gc[p], d, false, s->dx_sums);
            }
        }
        if (dgrid != NULL) {
#pragma omp parallel for schedule(static)
            for (int64_t p = 0; p < po; p++)
                GS_FN(bc_point_dgrid)(s, go, in, &g[p], b * po + p, dgrid);
        }
    }
    free(g);
    return true;
}

/* Points order[first..first+count) (identity when NULL): dx by atomic adds (plain ones for a
 * seeded order, which runs on one thread), dgrid per point. */
static void GS_FN(bc_block)(const gs_shape *s, const GS_T *go, const GS_T *in, const GS_T *grid,
                            GS_T *dx, GS_T *dgrid, const int64_t *order, int64_t first,
                            int64_t count)
{
    const int64_t po = s->ho * s->wo, hw = s->hi * s->wi;
    for (int64_t i = 0; i < count; i++) {
        int64_t q = order ? order[first + i] : first + i, b = q / po, p = q % po;
        GS_FN(bc_geom) g;
        GS_FN(bc_point)(s, grid + q * 2, &g);
        for (int64_t c = 0; dx != NULL && g.ok && c < s->c; c++)
            GS_FN(bc_dx)(&g, s->wi, go[(b * s->c + c) * po + p], dx + (b * s->c + c) * hw,
                         order == NULL, s->dx_sums); /* a seeded order: one thread, plain adds */
        if (dgrid != NULL)
            GS_FN(bc_point_dgrid)(s, go, in, &g, q, dgrid);
    }
}

bool GS_FN(gs_kernel_bicubic)(const gs_shape *s, const GS_T *go, const GS_T *in,
                              const GS_T *grid, GS_T *dx, GS_T *dgrid, bool deterministic,
                              const int64_t *order)
{
    if (deterministic)
        return GS_FN(bc_deterministic)(s, go, in, grid, dx, dgrid);
    const int64_t total = s->n * s->ho * s->wo;
    if (dx != NULL)
        memset(dx, 0, (size_t)(s->n * s->c * s->hi * s->wi) * sizeof *dx);
    /* a seeded order on one thread, so that it alone decides the sums (as kernel_atomic.c) */
#pragma omp parallel for schedule(dynamic, 1) if (order == NULL)
    for (int64_t first = 0; first < total; first += GS_BLOCK)
        GS_FN(bc_block)(s, go, in, grid, dx, dgrid, order, first,
                        total - first < GS_BLOCK ? total - first : GS_BLOCK);
    return true;
}
