/* Private to reference/grid_sampler2d_backward/: the values the files of the grid sampler's
 * exact model share (grid_sampler2d_backward.c says how the model computes): a batch's points
 * and views, dgrid's gathered data, dx's terms and tables, the four-lane vector type, and the
 * functions one file calls in another. */
#ifndef ACLCTS_GRID_VALUES_H_
#define ACLCTS_GRID_VALUES_H_

#include <float.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "grid_internal.h"

typedef struct {
    bool out;    /* non-finite grid value: out of bounds (docs/contract.md) */
    bool unres;  /* too many branches: uncheckable */
    grid_axis ax[2]; /* 0: x (width), 1: y (height) */
} gpoint;
/* ref_case's work-bytes bound (reference/common/case.c) counts 216 bytes a point and GRID_MAXO
 * outcomes per axis that has several */
_Static_assert(sizeof(gpoint) <= 216 && sizeof(grid_outcome) * GRID_MAXO <= 864, "case.c");

typedef struct {
    const ref_grid_params *p;
    const double *go, *in, *grid;
    grid_coord_fmt cf;
    bool force;
    const ref_path *path;
    double overflow_at; /* ref_path_overflow_at(path) */
} gctx;

typedef struct { int64_t e; int kx, ky; } corner;

/* The in-bounds corners of outcomes (ox, oy) into c (element, x and y weight index): their count */
static inline int corners(const ref_grid_params *p, const grid_outcome *ox,
                          const grid_outcome *oy, corner c[4])
{
    int n = 0, lim = p->interpolation == REF_INTERP_BILINEAR ? 2 : 1;
    for (int dy = 0; dy < lim; dy++)
        for (int dx = 0; dx < lim; dx++) {
            int64_t xi = ox->i0 + dx, yi = oy->i0 + dy;
            if (xi >= 0 && xi < p->w_in && yi >= 0 && yi < p->h_in)
                c[n++] = (corner){yi * p->w_in + xi, dx, dy};
        }
    return n;
}

/* Weight k of outcome o as a double-double */
static inline const ref_dd *wdd(const grid_outcome *o, int k) { return k ? &o->d1 : &o->d0; }

/* The weight a device on some branch multiplies a term by, as far as the term's non-finite class
 * goes (inf·0 = NaN, else the sign): exact weight w, its device error dl (δ·sens of its axis).
 * Bilinear weights are c − floor(c) and 1 − that on every branch, so never negative on a device
 * (an alternative's exact weight may be −2^-54: the exact coordinate on the branch's far side);
 * within dl of 0 the device's may be exactly 0 or positive (*may_zero set); exactly 0 with no
 * error, it is 0. */
static inline double grid_wclass(double w, double dl, bool *may_zero)
{
    if (w == 0 && dl == 0)
        return 0;
    if (fabs(w) <= dl) {
        *may_zero = true;
        return 1;
    }
    return fabs(w);
}

/* Term scratch for MPFR sums (grid_mpfr.c) */
typedef struct {
    mpfr_t *t;
    mpfr_ptr *ptr;
    size_t n, cap;
} mterms;

/* The unnormalisation factor of component comp (0: x, 1: y): size/2, (size − 1)/2 with align */
static inline double factor(const ref_grid_params *p, int comp)
{
    int64_t size = comp == 0 ? p->w_in : p->h_in;
    return p->align_corners ? (double)(size - 1) / 2 : (double)size / 2;
}

/* Σ of exact double terms as s + c: the running sum's rounding error goes into c by an
 * error-free addition, and only c's own rounding error is dropped (err bounds it). One addition
 * of latency per term on each word (ref_acc_add has a chain of three error-free additions). */
typedef struct { double s, c, err; } exact_sum;

static inline void exact_sum_add(exact_sum *a, double x)
{
    ref_dd t = ref_two_sum(a->s, x), u = ref_two_sum(a->c, t.lo);
    a->s = t.hi;
    a->c = u.hi;
    a->err += fabs(u.lo);
}

/* Four lanes as one GCC vector (element-wise IEEE operations, whatever instructions the target
 * has): dx's channels, dgrid's corners. */
#define DXL 4
typedef double dxv __attribute__((vector_size(DXL * sizeof(double))));
typedef int64_t dxvi __attribute__((vector_size(DXL * sizeof(double))));

#define DXV_ABS(x) ((dxv)((dxvi)(x) & INT64_MAX))

/* Whether any lane of mask m is set: halves or-ed together first (a lane at a time costs an
 * extraction each) */
static inline __attribute__((always_inline)) bool dxv_any(const dxvi *m)
{
    _Static_assert(DXL == 4, "two halves of two lanes");
    dxvi x = *m | __builtin_shufflevector(*m, *m, 2, 3, 0, 1);
    return (x[0] | x[1]) != 0;
}

/* Eight lanes (dx's sums of two four-plane groups at once: one AVX-512 register, two AVX2 ones) */
#define DXW 8
typedef double dxw __attribute__((vector_size(DXW * sizeof(double))));
typedef int64_t dxwi __attribute__((vector_size(DXW * sizeof(double))));

#define DXW_ABS(x) ((dxw)((dxwi)(x) & INT64_MAX))

/* Code for AVX-512 alone (GRID_HAS_V4, where GRID_CLONES has clones): eight-lane compares
 * compile to mask compares only in a function whose own target has them. In a default-target
 * or target_clones function, the v4 clone too, GCC lowers a 512-bit compare to eight scalar
 * ones (vcomisd, seta, vpinsrq a lane), before any inlining. Called only where the CPU has it. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(REF_NO_CLONES)
#define GRID_HAS_V4 1
#define GRID_V4 __attribute__((target("arch=x86-64-v4")))
#else
#define GRID_HAS_V4 0
#define GRID_V4
#endif

/* Whether any lane of an eight-lane mask m is set: its halves or-ed, then as dxv_any */
static inline __attribute__((always_inline)) GRID_V4 bool dxw_any(const dxwi *m)
{
    dxvi x = __builtin_shufflevector(*m, *m, 0, 1, 2, 3) |
             __builtin_shufflevector(*m, *m, 4, 5, 6, 7);
    return dxv_any(&x);
}

/* exact_sum_add of *x on each lane (vectors by address: no 32-byte vector in the ABI); the one
 * body for both widths */
#define GRID_EXACT_ADD(V, ABS)                                                                     \
    static inline __attribute__((always_inline)) void V##_exact_add(V *s, V *c, V *err,          \
                                                                    const V *x)                    \
    {                                                                                              \
        V t = *s + *x, tb = t - *s, tl = (*s - (t - tb)) + (*x - tb);                              \
        V u = *c + tl, ub = u - *c, ul = (*c - (u - ub)) + (tl - ub);                              \
        *s = t;                                                                                    \
        *c = u;                                                                                    \
        *err += ABS(ul);                                                                           \
    }
GRID_EXACT_ADD(dxv, DXV_ABS)
GRID_EXACT_ADD(dxw, DXW_ABS)

/* a·b − p exactly for p = RN(a·b), |a|, |b| within [2^-400, 2^400] or 0 (no overflow in the
 * split, no underflow in the partial products) */
static inline __attribute__((always_inline)) void dxv_prod_err(const dxv *a, const dxv *b,
                                                              const dxv *p, dxv *e)
{
    const dxv k = {0x1p27 + 1, 0x1p27 + 1, 0x1p27 + 1, 0x1p27 + 1};
    dxv ta = *a * k, ah = ta - (ta - *a), al = *a - ah;
    dxv tb = *b * k, bh = tb - (tb - *b), bl = *b - bh;
    *e = ((ah * bh - *p) + ah * bl + al * bh) + al * bl;
}

/* under_mag's sums without subnormal arithmetic. Its terms are products of factors ≥ 1 times
 * REF_UNDER_SCALE = 2^-1070, subnormal below 2^-1022, and x86 takes a microcode assist on
 * every operation with a subnormal operand or result (some hundred cycles: those sums made the
 * grid sampler's reference 5 times slower). So the lanes keep them unscaled, u = value / scale,
 * each result rounded as the scaled one is: below UNDER_TOP (a subnormal scaled value, a
 * multiple of 2^-1074) to a multiple of 2^-4, above it to 53 bits as any double. Two such
 * values add exactly below 2^49 and round as the scaled sum above it, so value = u·scale
 * exactly while u stays finite (grid_under_final). */
#define UNDER_TOP 0x1p48 /* 2^-1022 / REF_UNDER_SCALE; the quantum 2^-4 is 2^-1074 / it */

/* *x (≥ 0) as RN(*x·REF_UNDER_SCALE) unscaled: below UNDER_TOP rounded to a multiple of 2^-4
 * (added to 2^48, whose ulp that is, ties to even); exact for an exact *x */
#define GRID_UNDER_ROUND(name, V, VI)                                                              \
    static inline __attribute__((always_inline)) void name(V *x)                                   \
    {                                                                                              \
        const V top = (V){0} + UNDER_TOP;                                                          \
        VI low = *x < top;                                                                         \
        V r = (*x + top) - top;                                                                    \
        *x = (V)(((VI)r & low) | ((VI)*x & ~low));                                                 \
    }
GRID_UNDER_ROUND(grid_under_round, dxv, dxvi)
GRID_UNDER_ROUND(grid_under_round_w, dxw, dxwi) /* eight lanes */

/* *p = RN(a·scale·b) unscaled for unscaled a ≥ 0 and b ≥ 1: a·b rounded, then as
 * grid_under_round. Where that double lands halfway between multiples of 2^-4 the exact
 * product's side of it decides (dxv_prod_err: a + 2^-5 above, − below, a tie to even when
 * exact); *odd is set where a factor is past the range in which that error is exact. */
static inline __attribute__((always_inline)) void grid_under_mul(const dxv *a, const dxv *b,
                                                                 dxv *p, dxvi *odd)
{
    const dxv half = {0x1p-5, 0x1p-5, 0x1p-5, 0x1p-5}, zero = {0, 0, 0, 0};
    dxv x = *a * *b, r = x, e;
    grid_under_round(&r);
    dxvi mid = DXV_ABS(x - r) == half; /* x below UNDER_TOP, an odd multiple of 2^-5 */
    if (dxv_any(&mid)) {
        dxv_prod_err(a, b, &x, &e);
        dxvi up = mid & (e > zero), down = mid & (e < zero);
        r = (dxv)(((dxvi)(x + half) & up) | ((dxvi)(x - half) & down) | ((dxvi)r & ~(up | down)));
        *odd |= mid & ((*a > 0x1p400) | (*b > 0x1p400));
    }
    *p = r;
}

/* The scaled value u·REF_UNDER_SCALE of unscaled sums u (≥ 0, finite) times 1 + 2^-40, as
 * the bound's fields take them: below UNDER_TOP, u = k·2^-4 is the subnormal k·2^-1074 whose
 * bits are k, those of 2^48 + u less 2^48's; above, a normal product (by 2^-535 twice: the
 * scale is itself subnormal, an operand that takes the assist). The factor 1 + 2^-40
 * leaves a subnormal k·2^-1074 as it is for k < 2^39 (u < 2^35), so it is applied (to every
 * lane, the original operation) only where some lane is larger. */
#define GRID_UNDER_FINAL(name, V, VI, ATTR)                                                        \
    static inline __attribute__((always_inline)) ATTR void name(const V *u, V *v, VI *big)       \
    {                                                                                              \
        const V top = (V){0} + UNDER_TOP, keep = (V){0} + 0x1p35;                                  \
        VI low = *u < top;                                                                         \
        VI k = (VI)(*u + top) - (VI)top;                                                           \
        V n = (V)(((VI)top & low) | ((VI)*u & ~low)) * 0x1p-535 * 0x1p-535;                       \
        *v = (V)((k & low) | ((VI)n & ~low));                                                      \
        *big = *u >= keep;                                                                         \
    }
/* *v before its factor 1 + 2^-40, *big the lanes that take it: four lanes and eight */
GRID_UNDER_FINAL(grid_under_final_unf, dxv, dxvi, )
GRID_UNDER_FINAL(grid_under_final_unf_w, dxw, dxwi, GRID_V4)

static inline __attribute__((always_inline)) void grid_under_final(const dxv *u, dxv *v)
{
    dxvi big;
    grid_under_final_unf(u, v, &big);
    if (dxv_any(&big))
        *v *= 1 + 0x1p-40;
}


/* Batch n's gradOutput and input as read by the gather: element (c, i) at base[c·cs + i·is],
 * from the tensors (cs a plane, is 1) or from channel-innermost copies (cs 1, is C). */
typedef struct {
    const double *go, *in;
    int64_t go_cs, go_is, in_cs, in_is;
    /* grid_batch_prepare: every value of the batch's gradOutput and input finite, of at most 26
     * significant bits, 0 or at least 2^-484 (their products exact and clear of underflow), and
     * the largest magnitudes */
    bool plain;
    double max_go, max_in;
    bool lean_all;    /* batch_points: grid_dgrid_lean_all */
    /* grid_batch_prepare, with the copies: per channel, whether its gradOutput suits dx_sum_split
     * (dx_g_ok for all its values); NULL: unknown */
    bool *gsplit;
} batch_view;

/* Whether every value of the batch's gradOutput (and, with input, its input) is known to be at
 * most 1 in magnitude: the magnitudes max(1, |g|)(·max(1, |val|)) of the fast sums are then 1
 * each, and their sum the term count (grid_dx_block, dgrid_lanes). Known where
 * grid_batch_prepare scanned the batch (plain). */
static inline bool grid_batch_unit(const batch_view *bv, bool input)
{
    return bv->plain && bv->max_go <= 1 && (!input || bv->max_in <= 1);
}

/* One dgrid component of a point under outcomes (ox, oy): scale·Σ_c Σ_k sgn_k·w_k·val_k·g, its
 * weights w_k = wk[k] on the axis ow, and the bound data gathered in one pass with the other
 * component's (dgrid_gather_fill): Σ|terms| (sabs) and count, coordinate term, magnitudes, and
 * pre = Σ|val·(g·w)|, PyTorch's sum before the scale. */
typedef struct {
    const grid_outcome *ow;
    int mult;
    double scale, dl, mscale;
    int sgn[4];
    const ref_dd *wk[4];
    bool skip[4];
    double pre, sabs, mag, cerr;
    int64_t nt;
} dgrid_comp;

/* A point's data under outcomes (ox, oy): its in-bounds corners, where its gradOutput (gb) and
 * corner values (vb[k]) lie (channel c at [c·go_cs], [c·in_cs]), both components, whether every
 * term is finite, the largest intermediate magnitude pmax of PyTorch's form (ne − nw)·w·g, and
 * (fast path) per corner k the channel sum S_k = Σ_c val·g, each product split exactly into
 * two doubles, with its error bound. dgrid_comp = scale·Σ_k ±w_k·S_k. */
typedef struct {
    int nc;
    corner cs[4];
    const double *gb, *vb[4];
    int64_t go_cs, in_cs;
    bool finite;
    double pmax;
    ref_acc S[4];
    dgrid_comp comp[2];
} dgrid_gather;

/* The vector loops (grid_dx_block, dgrid_lanes, grid_dgrid_point, prepare_rows) and grid_dx_terms_team (its
 * fma calls) compiled three times, for x86-64-v4 (AVX-512: 32 vector registers, so dgrid's 18
 * sums spill less), x86-64-v3 (AVX2 with FMA: "avx2" alone would leave every fma() a libm call)
 * and the baseline, the one the CPU runs chosen when the program loads:
 * the same IEEE operations either way (ISO C mode contracts nothing, so FMA units only serve
 * explicit fma() calls, which round once whatever computes them), only other registers.
 * -DREF_NO_CLONES keeps one version, for the compiler's target (the tests build the library so
 * for the baseline and for x86-64-v3, which this machine's dispatch would not pick). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(REF_NO_CLONES)
#define GRID_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define GRID_CLONES
#endif

typedef struct { int64_t pix; int nv; int vx[GRID_MAXO * GRID_MAXO], vy[GRID_MAXO * GRID_MAXO]; } dxamb;

/* Per element, the points that are not ambiguous and reach it with their primary corners, in
 * ascending point order (CSR): a combination's value only needs those and its own points. */
typedef struct { int64_t *off, *pix; } dxreach;

#define AMB_PER_ELEM 6 /* each ambiguous point has ≥ 2 variants: 7 of them exceed REF_MAX_ALTS */

/* The terms of dx: per element, the primary corners of the batch's resolved points that reach
 * it, in point order (CSR over the elements), with what no channel changes: built once per
 * batch, read once per group of planes (an element's sums then stay in registers, and its
 * answer is written once). */
enum { DX_EXACT, DX_DD, DX_MPFR };
typedef struct {
    int32_t pix;      /* the point */
    int8_t mode;      /* DX_EXACT: wx·wy = wxy.hi exactly; DX_DD: wxy = dd_mul(wx, wy) with its
                       * bound; DX_MPFR: a weight is not hi + lo */
    bool split;       /* the parts hold wx·wy, each 0 or within [DX_PART_MIN, DX_PART_MAX] */
    bool wxy_short;   /* ref_short(wxy.hi) */
    bool may_vanish;  /* wx or wy within its coordinate error of 0: a device's may be 0, or the
                       * device's branch may not reach this corner */
    double wx, wy;    /* the weights' high words */
    double cfac;      /* |wy|·δx + |wx|·δy + δx·δy: the coordinate term per |g| */
    double part[4];   /* split: wx·wy = part[0] + … + part[3] exactly, parts of at most 27
                       * significant bits (wxy.hi's two, wxy.lo's two), so g·part[i] is exact for
                       * a g of at most 26 (dx_g_ok); else wxy.hi, wxy.lo, 0, 0 (dx_wxy) */
} dxterm;
/* 64 bytes: a term a cache line (wxy is not kept beside the parts it is the sums of), and the
 * sort's copies and grid_dx_block's reads move a fifth less than 80 */
_Static_assert(sizeof(dxterm) == 64, "dxterm layout");

/* grid_under_round, grid_under_mul and the scaled value of grid_under_final for one double (the
 * scalar passes, any data: a product's error by fma) */
static inline double grid_under_round1(double x)
{
    return x < UNDER_TOP ? (x + UNDER_TOP) - UNDER_TOP : x;
}

static inline double grid_under_mul1(double a, double b)
{
    double x = a * b, r = grid_under_round1(x);
    if (fabs(x - r) == 0x1p-5) { /* halfway: the exact product's side */
        double e = fma(a, b, -x);
        r = e > 0 ? x + 0x1p-5 : e < 0 ? x - 0x1p-5 : r;
    }
    return r;
}

/* u·REF_UNDER_SCALE exactly for a finite unscaled sum u ≥ 0 */
static inline double grid_under_scaled1(double u)
{
    if (!(u < UNDER_TOP))
        return u * 0x1p-535 * 0x1p-535;
    double t = u + UNDER_TOP, top = UNDER_TOP, v;
    int64_t k, k0;
    memcpy(&k, &t, sizeof k);
    memcpy(&k0, &top, sizeof k0);
    k -= k0;
    memcpy(&v, &k, sizeof v);
    return v;
}

/* m·(1 + 2^-40) for a scaled magnitude m ≥ 0 as the bound's fields take it, with no subnormal
 * operand where that leaves m as it is (m = k·2^-1074, k < 2^39) */
static inline double grid_under_grow(double m)
{
    int64_t k;
    memcpy(&k, &m, sizeof k);
    return k >= 0 && k < (INT64_C(1) << 39) ? m : m * (1 + 0x1p-40);
}

/* x as split into hi, lo by dx_split26, again: hi + lo, or hi itself when lo is 0 (so a −0
 * stays −0; lo ≠ 0 means x ≠ 0, and then hi + lo is x exactly) */
static inline double dx_unsplit(double hi, double lo) { return lo == 0 ? hi : hi + lo; }

/* The term's weight product wxy (mode DX_EXACT or DX_DD): from the parts when split. */
static inline ref_dd dx_wxy(const dxterm *k)
{
    if (!k->split)
        return (ref_dd){k->part[0], k->part[1]};
    return (ref_dd){dx_unsplit(k->part[0], k->part[1]), dx_unsplit(k->part[2], k->part[3])};
}

typedef struct {
    dxterm *t;        /* the terms of element e: t[off[e]] .. t[off[e + 1] − 1] */
    int64_t *off;
    bool split;       /* every term split */
    bool one_word;    /* every term's wx·wy one double (part[2] = part[3] = 0) */
    bool unit;        /* every term DX_EXACT with wx = wy = wx·wy = 1 (nearest) */
    const int32_t *pix; /* with unit, each term's point (grid_dx_unit_pix), else NULL */
    double tmax;      /* the largest |wx|·|wy| + cfac of a term (each rounded) */
    int64_t ntmax;    /* the most terms of an element */
} dxterms;

/* Magnitudes where the split products g·part are exact and their sums finite: parts in
 * [2^-500, 2^8] (or 0), g of at most 26 significant bits in [2^-400, 2^400] (or 0). */
#define DX_PART_MIN 0x1p-500
#define DX_PART_MAX 0x1p8
#define DX_G_MIN 0x1p-400
#define DX_G_MAX 0x1p400

/* Whether a gradOutput value suits dx_sum_split: finite, at most 26 significant bits, zero or
 * within [DX_G_MIN, DX_G_MAX] (FP32, FP16 and BF16 data always are, but for extreme exponents). */
static inline bool dx_g_ok(double g)
{
    double a = fabs(g);
    return ref_short(g) && (g == 0 || (a >= DX_G_MIN && a <= DX_G_MAX));
}

/* ref_decide on four lanes, (s, c) the pair it is given before its two-sum: where every
 * quantity it looks at is finite with a fast exponent (ref_fast_exp) or 0, *known is -1 and
 * *dec -1 where it decides, with its *hi, *lo, operation for operation; other lanes are left to
 * ref_decide itself. */
#define GRID_DECIDE(name, V, VI, ABS, ANY, ATTR)                                                   \
    static inline __attribute__((always_inline)) ATTR void name(const V *s, const V *c,           \
                                                                const V *err, V *hi, V *lo,       \
                                                                VI *dec, VI *known)               \
    {                                                                                              \
        typedef uint64_t vu_ __attribute__((vector_size(sizeof(V))));                              \
        const VI expm = (VI){0} + 0x7ff0000000000000, sgn = (VI){0} + INT64_MIN;                  \
        const V inf = (V){0} + INFINITY;                                                           \
        V h = *s + *c, hb = h - *s, l = (*s - (h - hb)) + (*c - hb);                               \
        VI be_h = (VI)((vu_)h >> 52) & 0x7ff, be_l = (VI)((vu_)l >> 52) & 0x7ff;                   \
        VI hz = h == 0, lz = l == 0, ez = *err == 0;                                               \
        VI fast_h = (be_h != 0x7ff) & (be_h - 1023 >= REF_FAST_EMIN);                              \
        VI fast_l = (be_l != 0x7ff) & (be_l - 1023 >= REF_FAST_EMIN);                              \
        *known = (*err >= 0) & (*err < inf) & (hz | fast_h) & (lz | fast_l);                       \
        /* r = ref_round_lo_bits(l) */                                                             \
        V rc = (V)((VI)l & expm) * (0x1.8p0 * 0x1p21), r = (l + rc) - rc;                          \
        /* h = 0: decided only when exact (0, 0); err = 0: (h, round(l)); else both tests.       \
         * Every lane exact (the sums of exact terms nearly always are): all decided, no tests */ \
        VI inexact = ~ez;                                                                          \
        *dec = ez;                                                                                 \
        if (ANY(&inexact)) {                                                                       \
            /* half_gaps(|h|, 53) and half_gaps(|r|, REF_LO_BITS) */                               \
            V a = ABS(h), e2 = (V)((VI)h & expm), g = e2 * 0x1p-53;                                \
            V tw = (V)(((VI)(g * 0.5) & (a == e2)) | ((VI)g & ~(a == e2)));                        \
            V L = (V)((VI)l ^ ((VI)h & sgn));                                                      \
            VI t1 = ((g - L) * (1 - 0x1p-50) > *err) & ((tw + L) * (1 - 0x1p-50) > *err);         \
            V ar = ABS(r), e2r = (V)((VI)r & expm), gr = e2r * 0x1p-32;                            \
            V twr = (V)(((VI)(gr * 0.5) & (ar == e2r)) | ((VI)gr & ~(ar == e2r)));                 \
            V lam = (V)((VI)l ^ ((VI)r & sgn));                                                    \
            VI t2 = (((ar + gr) - lam) > *err) & ((lam - (ar - twr)) > *err);                      \
            *dec = (hz & ez) | (~hz & (ez | (t1 & ~lz & t2)));                                     \
        }                                                                                          \
        *hi = (V)((VI)h & ~hz);                                                                    \
        *lo = (V)((((VI)l & lz) | ((VI)r & ~lz)) & ~hz);                                           \
    }
_Static_assert(REF_LO_BITS == 32, "the decision's gap below is 2^-32 of r's binade");
GRID_DECIDE(dxv_decide, dxv, dxvi, DXV_ABS, dxv_any, )
GRID_DECIDE(dxw_decide, dxw, dxwi, DXW_ABS, dxw_any, GRID_V4) /* eight lanes (AVX-512) */

/* out[l] = {f[0][l], .., f[7][l]}: eight lanes' fields side by side, a ref_value each (three
 * rounds of eight shuffles) */
static inline __attribute__((always_inline)) GRID_V4 void dxw_transpose(const dxw f[8],
                                                                        dxw out[8])
{
    dxw t[8], u[8];
    for (int k = 0; k < 8; k += 2) { /* t[k], t[k + 1]: even, odd lanes of fields k, k + 1 */
        t[k] = __builtin_shufflevector(f[k], f[k + 1], 0, 8, 2, 10, 4, 12, 6, 14);
        t[k + 1] = __builtin_shufflevector(f[k], f[k + 1], 1, 9, 3, 11, 5, 13, 7, 15);
    }
    for (int k = 0; k < 8; k += 4) /* u[j], u[4 + j]: lanes j, j + 4 of fields 0-3, 4-7 */
        for (int o = 0; o < 2; o++) {
            u[k + o] = __builtin_shufflevector(t[k + o], t[k + o + 2], 0, 1, 8, 9, 4, 5, 12, 13);
            u[k + o + 2] =
                __builtin_shufflevector(t[k + o], t[k + o + 2], 2, 3, 10, 11, 6, 7, 14, 15);
        }
    for (int j = 0; j < 4; j++) {
        out[j] = __builtin_shufflevector(u[j], u[j + 4], 0, 1, 2, 3, 8, 9, 10, 11);
        out[j + 4] = __builtin_shufflevector(u[j], u[j + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    }
}

/* Eight ref_values from their fields (f[k] lane l: field k of value l, in ref_value's order),
 * value l stored at v[l·stride] as one 64-byte row from registers (an unaligned vector type: no
 * copy through the stack; dx_finish8, bicubic's dx_lanes_plain) */
static inline __attribute__((always_inline)) GRID_V4 void dxw_store_values(const dxw f[8],
                                                                           ref_value *v,
                                                                           int64_t stride)
{
    _Static_assert(sizeof(ref_value) == sizeof(dxw), "a ref_value is one row of eight fields");
    dxw row[8];
    dxw_transpose(f, row);
    typedef double dxw_row __attribute__((vector_size(sizeof(dxw)), aligned(8), may_alias));
    for (int l = 0; l < 8; l++)
        *(dxw_row *)&v[l * stride] = row[l];
}

/* Whether GRID_V4 code built as such (GRID_HAS_V4) may run: the CPU has x86-64-v4's AVX-512 */
static inline bool grid_v4_cpu(void)
{
#if GRID_HAS_V4
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512cd");
#else
    return false;
#endif
}

/* What dx of batch n needs besides the points and their terms: the ambiguous points (amb), per
 * element the ones that may reach it (tn, tl), the certain points reaching each element (R). */
typedef struct {
    dxamb *amb;
    int namb;
    bool any_unres;
    int *tn, *tl;
    dxreach R;
    /* bilinear points of several outcomes with a non-finite gradOutput in some plane: where
     * another branch reaches other corners (or a weight there is 0), the device's class is
     * not the exact one's */
    int64_t *nfm, nnfm;
} dx_batch;

/* A call's parameters within the model's domain */
static inline int params_ok(const ref_grid_params *p)
{
    return p->n >= 0 && p->c >= 0 && p->h_in > 0 && p->w_in > 0 && p->h_out >= 0 &&
           p->w_out >= 0 &&
           (p->interpolation == REF_INTERP_BILINEAR || p->interpolation == REF_INTERP_NEAREST ||
            p->interpolation == REF_INTERP_BICUBIC) &&
           (p->padding == REF_PAD_ZEROS || p->padding == REF_PAD_BORDER ||
            p->padding == REF_PAD_REFLECTION);
}

/* What a batch's chunks share: its points, the channel-innermost copies (tbuf, or NULL) and
 * room for dx's terms (pe: 4·hw_out, the element of each point's; terms: 4·hw_out, toff:
 * hw_in + 1, per element). */
typedef struct {
    gpoint *pts;
    uint8_t *kind;    /* per point, what the serial passes over the points ask (PT_*): one byte
                       * each instead of the points' 216 bytes apart */
    double *tbuf;
    dxterm *terms;
    int64_t *pe, *toff;
    int64_t *tcnt;    /* dx: per thread, hw_in term counts (grid_dx_terms_team) */
    int64_t *tslot;   /* and its next slot of each element */
    bool tsplit, tone_word, tunit; /* grid_dx_terms_team: dxterms.split, .one_word and .unit of
                                    * terms (true before) */
    double tmax;      /* grid_dx_terms_team: dxterms.tmax (0 before) */
    int64_t ntmax;    /* and dxterms.ntmax */
    const int32_t *tpix; /* dxterms.pix: grid_dx_unit_pix's, or NULL */
    bool *gsplit;     /* per channel, with tbuf for dx (batch_view.gsplit) */
    int64_t *pclaim;  /* the points' blocks' claims (ref_share_next), keyed by batch + 1 */
    int64_t *bclaim;  /* grid_batch_prepare's */
} batch_work;

/* grid_point_kind's bits */
enum {
    PT_OUT = 1,
    PT_UNRES = 2,
    PT_MULTI = 4, /* several outcome pairs */
    PT_CLEAR = 8  /* MPFR weights or an outcome array for grid_axis_clear to free */
};

#define POINT_BLOCK 64 /* points per OpenMP work item */

/* Parts of one work block: each rounded to 64 bytes (whole cache lines); NULL for 0 bytes. */
#define WORK_ROUND(b) (((b) + 63) & ~(size_t)63)

/* ---- grid_mpfr.c: MPFR sums of exact terms ---- */
mpfr_ptr grid_mterm(mterms *m, mpfr_prec_t prec);
void grid_mterms_free(mterms *m);
void grid_mpfr_finish(mterms *m, ref_value *v);
void grid_dx_point_mpfr(const gctx *G, const grid_outcome *ox, const grid_outcome *oy, double g,
                        int64_t e, mterms *mt, ref_value *v);
void grid_dx_combo_value(const gctx *G, const gpoint *pts, const dxreach *R, int64_t n,
                         int64_t c, int64_t e, const dxamb *amb, const int *ch, int namb,
                         mterms *mt, ref_value *v);
int grid_dx_mpfr(const gctx *G, const gpoint *pts, int64_t n, int64_t c, const uint8_t *fallback,
                 mterms *mt, ref_value *vals, int64_t *falls);

/* ---- grid_stream.c ---- */
/* A finite exact value past the double range (MPFR's hi = ±inf without REF_FLAG_NONFINITE)
 * that a device may still answer with a finite double: lo = 0 (ref_finish_mpfr_sum: its sum may
 * stop at ±DBL_MAX, an ULP away, or larger terms cancel), or a coordinate term near the range
 * (another branch's weights may give any value). (hi, lo) cannot say which finite doubles are
 * legal. Inline: mark_range asks it of every element. */
static inline bool grid_beyond_range(const ref_value *v)
{
    return isinf(v->hi) && (v->lo == 0 || !(v->coord_err < DBL_MAX * 0x1p-30));
}

/* Whether a device's terms of v, each within its rounding and coordinate error, may sum past
 * the working format's range though the exact value does not (an FP32 sum 2 ULPs below FLT_MAX
 * with a bound of 177): Σ|terms| and the coordinate term, grown by a rounding per term. */
static inline bool grid_may_pass_range(const gctx *G, const ref_value *v)
{
    double grow = 1 + (double)(v->nterms + 4) * 0x1p-23;
    return (ref_sum_abs_real(v) + v->coord_err) * grow > G->overflow_at;
}

/* ---- grid_dgrid.c: grid_grad of one point ---- */
void grid_dgrid_comp_init(const gctx *G, const gpoint *pt, const grid_outcome *ox,
                          const grid_outcome *oy, const dgrid_gather *D, int comp, dgrid_comp *q);
bool grid_dgrid_lean(const gctx *G, const batch_view *bv, const dgrid_gather *D);
bool grid_dgrid_lean_all(const gctx *G, const batch_view *bv);
double *grid_chunk_ival(ref_output *out);
int grid_dgrid_point(const gctx *G, const batch_view *bv, const gpoint *pt, int64_t n,
                     int64_t pix, mterms *mt, ref_output *out, ref_altlist *alts, int64_t *hits,
                     int64_t *falls);
double *grid_plane_maxabs(const gctx *G, int64_t n);
void grid_dgrid_unresolved(const gctx *G, int64_t n, int64_t pix, const double *maxabs,
                           ref_output *out);

/* ---- grid_dgrid_lanes.c: grid_grad of four points at once ---- */
int grid_dgrid_points(const gctx *G, const batch_view *bv, const gpoint *pts, int64_t n,
                      int64_t p0, int64_t p1, mterms *mt, ref_output *out, ref_altlist *alts,
                      int64_t *hits, int64_t *falls);

/* ---- grid_dx.c: input_grad's terms and fast sums ---- */
void grid_dx_point_elems(const ref_grid_params *p, const gpoint *pt, int64_t *e);
void grid_dx_block(const gctx *G, const dxterms *T, const batch_view *bv, int64_t c0, int64_t np,
                   int64_t g0, int64_t g1, const bool *split, int64_t e0, int64_t e1,
                   uint8_t *fallback, ref_output *out, int64_t *hits_out);
void grid_dx_terms_team(const ref_grid_params *p, batch_work *W);
/* Whether the grid sampler's lane sums take eight lanes (bilinear's input_grad and dgrid,
 * bicubic's): where eight-lane vectors are one register (AVX-512), but four on AMD's family 19h
 * (Zen 4; Zen 3, the family's other, has no AVX-512), which runs a 512-bit operation as two
 * 256-bit halves: there the eight lanes' fewer instructions gain nothing, and the four-lane sums
 * took less CPU (bilinear 1-2%, same process alternating; bicubic 4-7%, alternating
 * processes). forced 4 or 8 chooses instead (tests: both widths on any CPU, the answers the
 * same); else the CPU's. */
static inline bool grid_lanes_wide(int forced)
{
    if (forced == 4 || forced == 8)
        return forced == 8;
#if defined(__x86_64__) && defined(__GNUC__)
    return __builtin_cpu_supports("avx512f") && !__builtin_cpu_is("amdfam19h");
#else
    return false;
#endif
}
/* 4 or 8: the lanes of bilinear's sums (grid_dx_block's split sums, dgrid's lanes), whatever
 * the CPU (tests); else 0 */
extern int ref_grid_dx_lanes;
/* 1 (the default): nearest's unit sums four planes at once where a chunk has no copies
 * (dx_sum_unit4); 0: one plane at a time (tests: both ways; the answers are the same) */
extern int ref_grid_dx_unit_lanes;
int32_t *grid_dx_unit_pix(const ref_grid_params *p, batch_work *W);

/* ---- grid_dx_alts.c: input_grad where points' branches are uncertain ---- */
int grid_dx_plane_rest(const gctx *G, const gpoint *pts, const dx_batch *D, int64_t n, int64_t c,
                       int64_t at, const uint8_t *fallback, mterms *mt, ref_output *out,
                       ref_altlist *alts, int64_t *falls);
void grid_dx_batch_free(dx_batch *D);
int grid_dx_batch_build(const gctx *G, int64_t n, const batch_work *W, dx_batch *D);

/* At most this many doubles in a batch's channel-innermost copies (16 MiB): the gather then
 * reads a corner's channels from consecutive memory instead of one plane each. */
#define TRANSPOSE_MAX ((int64_t)1 << 21)

/* ---- grid_batch.c: a batch's views, copies and points; the work block ---- */
batch_view grid_batch_view_of(const gctx *G, int64_t n, double *buf, bool in);
int64_t grid_batch_prepare_blocks(const ref_grid_params *p);
void grid_batch_prepare(const gctx *G, int64_t n, double *buf, bool in, bool scan,
                        int64_t *claim, batch_view *v);
void grid_point_eval(const gctx *G, int64_t n, int64_t pix, gpoint *pt, grid_scratch *t);
uint8_t grid_point_kind(const gpoint *pt);
void *grid_work_carve(char **at, size_t bytes);
char *grid_work_block(size_t total, char **raw);
#define GRID_HUGE_PAGE ((size_t)2 << 20)
char *grid_huge_block(size_t total, char **raw);
size_t grid_chunkbuf_view_bytes(int64_t cap);
void grid_chunkbuf_view(ref_chunkbuf *b, int64_t cap, char **at);
void grid_chunkbuf_view_clear(ref_chunkbuf *b);

#endif
