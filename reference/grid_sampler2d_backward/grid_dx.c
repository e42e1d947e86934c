/* input_grad's fast path (dx): a batch's terms, per element, built by the team, and their sums
 * over four planes at once (exact products where they split, else double-double with a bound),
 * decided by Ziv's test; the undecided elements marked for grid_mpfr.c. */
#include "grid_values.h"

static bool dx_part_ok(double x) { return x == 0 || (fabs(x) >= DX_PART_MIN && fabs(x) <= DX_PART_MAX); }

/* x = hi + lo exactly, hi its leading 26 significant bits, lo (the rest) at most 27 */
static void dx_split26(double x, double *hi, double *lo)
{
    *hi = ref_of_bits(ref_bits_of(x) & ~(uint64_t)0x7ffffff);
    *lo = x - *hi;
}

/* The term of point pt (at pix) at corner cs, written field by field into *q, its slot: made in
 * a local and copied, its 64 bytes were read back whole from the smaller stores that made them,
 * which the CPU cannot forward (a stall a term). */
static inline __attribute__((always_inline)) void dx_term(const gpoint *pt, int64_t pix,
                                                         const corner *cs, dxterm *q)
{
    const grid_outcome *ox = &pt->ax[0].o[0], *oy = &pt->ax[1].o[0];
    double dx = pt->ax[0].delta * pt->ax[0].sens, dy = pt->ax[1].delta * pt->ax[1].sens;
    const ref_dd *wx = wdd(ox, cs->kx), *wy = wdd(oy, cs->ky);
    q->pix = (int32_t)pix;
    q->wx = wx->hi;
    q->wy = wy->hi;
    q->cfac = fabs(wy->hi) * dx + fabs(wx->hi) * dy + dx * dy;
    q->split = q->wxy_short = false;
    q->may_vanish = (dx > 0 && fabs(wx->hi) <= dx) || (dy > 0 && fabs(wy->hi) <= dy);
    double pxy = wx->hi * wy->hi;
    ref_dd wxy = {0, 0};
    if (ox->dd_inexact || oy->dd_inexact) {
        q->mode = DX_MPFR;
    } else if (wx->lo == 0 && wy->lo == 0 && ref_prod_clear(wx->hi, wy->hi, pxy) &&
               fma(wx->hi, wy->hi, -pxy) == 0) {
        q->mode = DX_EXACT;
        wxy = (ref_dd){pxy, 0};
        q->wxy_short = ref_short(pxy);
    } else {
        q->mode = DX_DD;
        wxy = ref_dd_mul(*wx, *wy);
    }
    /* wx·wy exactly as two doubles: exact above, or two one-word weights whose product's
     * rounding error fma gives exactly (then dd_mul's pair is that one) */
    double part[4] = {wxy.hi, wxy.lo, 0, 0};
    if (q->mode == DX_EXACT || (q->mode == DX_DD && wx->lo == 0 && wy->lo == 0 &&
                                ref_prod_clear(wx->hi, wy->hi, pxy))) {
        double sp[4];
        dx_split26(wxy.hi, &sp[0], &sp[1]);
        dx_split26(wxy.lo, &sp[2], &sp[3]);
        bool split = true;
        for (int i = 0; i < 4; i++)
            split = split && dx_part_ok(sp[i]);
        for (int i = 0; i < 4 && split; i++)
            part[i] = sp[i];
        q->split = split;
    }
    for (int i = 0; i < 4; i++)
        q->part[i] = part[i];
}

/* The corners of a point's dx terms (its primary outcomes' in-bounds ones, none when out or
 * unresolvable) into cs: their count. */
static int dx_point_corners(const ref_grid_params *p, const gpoint *pt, corner cs[4])
{
    return pt->out || pt->unres ? 0 : corners(p, &pt->ax[0].o[0], &pt->ax[1].o[0], cs);
}

/* The element each of a point's dx terms reaches, in corner order, into e[0..3] (-1: none). */
void grid_dx_point_elems(const ref_grid_params *p, const gpoint *pt, int64_t *e)
{
    corner cs[4];
    int nc = dx_point_corners(p, pt, cs);
    for (int k = 0; k < 4; k++)
        e[k] = k < nc ? cs[k].e : -1;
}

/* What an element's terms add up to in one plane: Σ|terms|, the coordinate term, the
 * magnitudes (unscaled: grid_under_round1), the non-finite class and (off force_mpfr) the sum s
 * with |exact − s| ≤ err. */
typedef struct {
    double sabs, cerr, mag, err;
    ref_nfclass cls;
    bool vanish;      /* a non-finite g on a weight a device may have 0 (dxterm.may_vanish) */
    ref_dd s;
} dxsum;

/* Element e's terms in the plane whose gradOutput is gp (element pix at gp[pix·is]), any data:
 * exact double terms summed error-free where the products split, else double-double. */
static dxsum dx_sum_any(const gctx *G, const dxterm *t, int64_t nt, const double *gp, int64_t is)
{
    bool bil = G->p->interpolation == REF_INTERP_BILINEAR;
    dxsum r = {0};
    exact_sum acc = {0, 0, 0};
    for (int64_t i = 0; i < nt; i++) {
        const dxterm *k = &t[i];
        double g = gp[k->pix * is];
        double tt = g * k->wx * k->wy;
        r.sabs += fabs(tt);
        r.mag += grid_under_round1(ref_fmax(1, fabs(g))); /* wx·wy may underflow, then × g */
        if (!isfinite(g)) {
            double f[3] = {g, k->wx, k->wy};
            ref_nf_term(&r.cls, f, 3);
            r.vanish = r.vanish || k->may_vanish;
        }
        if (bil)
            r.cerr += fabs(g) * k->cfac;
        if (G->force)
            continue;
        if (k->mode == DX_MPFR) {
            acc.err = INFINITY; /* a weight is not hi + lo: the MPFR path */
        } else if (k->mode == DX_EXACT && isfinite(g)) {
            /* wx·wy exact: g·wx·wy = p + f exactly, two exact double terms (an exact value
             * halfway between doubles stays decidable) */
            double w = dx_wxy(k).hi, pg = w * g;
            double f = k->wxy_short && ref_short(g) ? 0 : fma(w, g, -pg);
            exact_sum_add(&acc, pg);
            if (f != 0)
                exact_sum_add(&acc, f);
            if (!ref_prod_clear(w, g, pg))
                acc.err = INFINITY; /* underflow: the MPFR path */
        } else if (isfinite(g)) {
            ref_dd d = ref_dd_mul_d(dx_wxy(k), g);
            exact_sum_add(&acc, d.hi); /* the pair exactly, its distance to the term */
            exact_sum_add(&acc, d.lo);
            /* wx·wy's low words may underflow (a subnormal weight product loses them: REF_DD_TINY),
             * and that loss is then scaled by |g| (2^1000·2^-1074 is 2^-74) */
            acc.err += 16 * REF_U2 * fabs(d.hi) + REF_DD_TINY * (1 + fabs(g));
        }
    }
    r.s = ref_two_sum(acc.s, acc.c);
    r.err = acc.err;
    return r;
}

/* dx_sum_any of a nearest element whose every term is g·1·1 (T->unit: both weights exactly 1, in
 * one word; pix its terms' points, T->pix), off force_mpfr: the same operations on the same values in the same order (g·1·1 and
 * 1·g are g, fma(1, g, −g) is 0), without the per-term tests and loads of the weights. False,
 * r unfinished, where some g is not finite or is below 2^-968 (dx_sum_any's other branches). */
#define DX_UNIT_AHEAD 24 /* terms between a gradOutput prefetch and its use (dx_sum_unit) */

static bool dx_sum_unit(const int32_t *pix, int64_t nt, const double *gp, int64_t is, dxsum *r)
{
    exact_sum acc = {0, 0, 0};
    double sabs = 0, mag = 0;
    bool ok = true;
    for (int64_t i = 0; i < nt; i++) {
        /* the points are anywhere in the plane: their lines asked for well ahead of use (its
         * loads were half of the time, the rest hardly waits on them) */
        if (i + DX_UNIT_AHEAD < nt)
            __builtin_prefetch(gp + pix[i + DX_UNIT_AHEAD] * is);
        double g = gp[pix[i] * is], a = fabs(g);
        ok &= a <= DBL_MAX && (a == 0 || a >= 0x1p-968);
        sabs += a;
        mag += grid_under_round1(ref_fmax(1, a));
        exact_sum_add(&acc, g);
    }
    *r = (dxsum){.sabs = sabs, .mag = mag, .err = acc.err, .s = ref_two_sum(acc.s, acc.c)};
    return ok;
}

/* dx_sum_unit of four planes at once, a lane each (plane l at gp + l·cs: a chunk without the
 * batch's channel-innermost copies, whose planes are far apart): each lane the scalar loop's
 * operations on its plane's values in the same order (ref_two_sum is dxv_exact_add's formula,
 * ref_fmax(1, a) is its select), so each r[l] is bitwise dx_sum_unit's. One element's terms
 * are a serial chain of dependent additions a plane; four planes side by side fill the vector
 * units where one chain left them waiting. Inlined, so it is built for grid_dx_block's clone's
 * target (a function of its own is built for the baseline, two SSE2 halves a vector: no faster
 * than dx_sum_unit). ok[l]: dx_sum_unit's return for plane l. */
int ref_grid_dx_unit_lanes = 1;

static inline __attribute__((always_inline)) void
dx_sum_unit4(const int32_t *pix, int64_t nt, const double *gp, int64_t cs, int64_t is,
             dxsum r[DXL], bool ok[DXL])
{
    const dxv zero = {0, 0, 0, 0}, one = zero + 1;
    dxv s = zero, c = zero, err = zero, sabs = zero, mag = zero;
    dxvi bad = {0, 0, 0, 0};
    for (int64_t i = 0; i < nt; i++) {
        const double *at = gp + pix[i] * is;
        if (i + DX_UNIT_AHEAD < nt)
            for (int l = 0; l < DXL; l++)
                __builtin_prefetch(gp + pix[i + DX_UNIT_AHEAD] * is + l * cs);
        dxv g = {at[0], at[cs], at[2 * cs], at[3 * cs]}, a = DXV_ABS(g);
        bad |= ~((a <= DBL_MAX) & ((a == 0) | (a >= 0x1p-968)));
        sabs += a;
        dxvi small = (one > a) | (a != a); /* ref_fmax(1, a) */
        dxv m = (dxv)(((dxvi)one & small) | ((dxvi)a & ~small));
        grid_under_round(&m);
        mag += m;
        dxv_exact_add(&s, &c, &err, &g);
    }
    for (int l = 0; l < DXL; l++) {
        r[l] = (dxsum){.sabs = sabs[l], .mag = mag[l], .err = err[l],
                       .s = ref_two_sum(s[l], c[l])};
        ok[l] = !bad[l];
    }
}

/* dx_sum_split's sums, a lane per plane: s + c with dropped error err, Σ|terms|, magnitudes
 * (unscaled: grid_under_round), coordinate term */
typedef struct { dxv s, c, err, sabs, mag, cerr; } dxsum4;

/* dx_sum_split's eight lanes: two groups' dxsum4 side by side, and the second exact sum
 * (s2, c2, err2); dxsum4x: the same for one group in four lanes */
typedef struct { dxw s, c, err, sabs, mag, cerr, s2, c2, err2; } dxsum8;
typedef struct { dxv s, c, err, sabs, mag, cerr, s2, c2, err2; } dxsum4x;

/* A group's gradOutput lanes into g: eight from two groups, or four repeated (no read past the
 * group); four for four */
#define DX_LOAD8(g, at, two)                                                                       \
    do {                                                                                           \
        if (two) {                                                                                 \
            memcpy(&(g), at, sizeof(g));                                                           \
        } else {                                                                                   \
            dxv h_;                                                                                \
            memcpy(&h_, at, sizeof h_);                                                            \
            (g) = __builtin_shufflevector(h_, h_, 0, 1, 2, 3, 0, 1, 2, 3);                         \
        }                                                                                          \
    } while (0)
#define DX_LOAD4(g, at, two) ((void)(two), memcpy(&(g), at, sizeof(g)))

/* DXL planes at once, or with two 2·DXL (lanes: channels c..c + DXL − 1 and with two the next
 * DXL, element pix of lane l at gp[pix·is + l]), every term split and every g suiting the split
 * (dx_g_ok): each term is Σ g·part[i], exact products, each summed as exact_sum_add does, those
 * of part[0] and part[2] into one sum and those of part[1] and part[3] into another, added
 * into the first at the end: two chains of additions, each half as long as one (their latency
 * was what the sums waited on), and still an error bound (the sums' dropped errors added); a
 * value decided from them is the exact sum's (hi, lo) however it was approximated. The
 * same Σ|terms|, coordinate term and magnitudes as dx_sum_any, in the same order. The lanes are
 * GCC vectors: element-wise IEEE operations, whatever instructions the target has. Two bodies
 * from one text: eight lanes (V dxw: one AVX-512 register, two groups for the instructions of
 * one; without two the upper four repeat the lower) and four (V dxv, one group: AVX2 has no
 * eight-lane register, and GCC moves the halves of eight-lane values through the stack, about
 * six times the instructions a term). Lane for lane the same operations, so the same sums.
 * one_word: every term has part[2] = 0 (T->one_word), its per-term test left out.
 * unit: every |g| at most 1 (grid_batch_unit), so each term's magnitude max(1, |g|) is 1, which
 * rounds to itself, and their sum, exact, is the count: set by dx_sum_split, not summed.
 * The term function adds one term to r (first: r all 0 before). */
#define DX_SPLIT_TERM(name, V, VI, S, ABS, ADD, ROUND, LOAD)                                      \
    static inline __attribute__((always_inline)) void name(const dxterm *k, const double *gp,    \
                                                           int64_t is, bool bil, bool one_word,   \
                                                           bool unit, bool first, bool two, S *r) \
    {                                                                                              \
        const V one = (V){0} + 1, zero = {0};                                                      \
        V g;                                                                                       \
        LOAD(g, gp + k->pix * is, two);                                                            \
        V ag = ABS(g), p0 = g * k->part[0], p1 = g * k->part[1];                                   \
        r->sabs += ABS(g * k->wx * k->wy);                                                         \
        if (!unit) {                                                                               \
            VI small = ag < one; /* ref_fmax(1, |g|) of a finite g */                              \
            V mg = (V)(((VI)one & small) | ((VI)ag & ~small));                                     \
            ROUND(&mg); /* unscaled (|g| ≤ DX_G_MAX: the sum stays finite) */                      \
            r->mag += mg;                                                                          \
        }                                                                                          \
        if (bil)                                                                                   \
            r->cerr += ag * k->cfac;                                                               \
        if (first) { /* exact_sum_add on (0, 0, 0): s = 0 + p (−0 made +0 as there), c, err 0 */ \
            r->s = zero + p0;                                                                      \
            r->s2 = zero + p1;                                                                     \
        } else {                                                                                   \
            ADD(&r->s, &r->c, &r->err, &p0);                                                       \
            ADD(&r->s2, &r->c2, &r->err2, &p1);                                                    \
        }                                                                                          \
        if (!one_word && k->part[2] != 0) { /* wx·wy needs two words */                            \
            V p2 = g * k->part[2], p3 = g * k->part[3];                                            \
            ADD(&r->s, &r->c, &r->err, &p2);                                                       \
            ADD(&r->s2, &r->c2, &r->err2, &p3);                                                    \
        }                                                                                          \
    }
DX_SPLIT_TERM(dx_split_term, dxw, dxwi, dxsum8, DXW_ABS, dxw_exact_add, grid_under_round_w,
              DX_LOAD8)
DX_SPLIT_TERM(dx_split_term4, dxv, dxvi, dxsum4x, DXV_ABS, dxv_exact_add, grid_under_round,
              DX_LOAD4)

/* An element's terms summed into w (term function TERM, exact add ADD): the first term's first
 * addition peeled, the second sum added into the first at the end */
#define DX_SUM_TERMS(w, V, TERM, ADD)                                                              \
    do {                                                                                           \
        if (nt > 0)                                                                                \
            TERM(&t[0], gp, is, bil, one_word, unit, true, two, &(w));                             \
        for (int64_t i = 1; i < nt; i++)                                                           \
            TERM(&t[i], gp, is, bil, one_word, unit, false, two, &(w));                            \
        if (unit)                                                                                  \
            (w).mag = (V){0} + (double)nt;                                                         \
        ADD(&(w).s, &(w).c, &(w).err, &(w).s2); /* the second sum into the first */              \
        ADD(&(w).s, &(w).c, &(w).err, &(w).c2);                                                    \
        (w).err += (w).err2;                                                                       \
    } while (0)

/* The lower (h 0) or upper (h 1) four lanes of x */
#define DXW_HALF(x, h)                                                                             \
    ((h) ? __builtin_shufflevector(x, x, 4, 5, 6, 7) : __builtin_shufflevector(x, x, 0, 1, 2, 3))

/* The sums of one group in the lower four lanes of *r, with two of the next in the upper four
 * (eight lanes) */
static inline __attribute__((always_inline)) void
dx_sum_split(const dxterm *t, int64_t nt, const double *gp, int64_t is, bool bil, bool one_word,
             bool unit, bool two, dxsum8 *r)
{
    dxsum8 w = {{0}, {0}, {0}, {0}, {0}, {0}, {0}, {0}, {0}};
    DX_SUM_TERMS(w, dxw, dx_split_term, dxw_exact_add);
    *r = w;
}

/* Group h's sums (lanes 4h .. 4h + 3) of dx_sum_split's */
static inline __attribute__((always_inline)) dxsum4 dx_half(const dxsum8 *w, int h)
{
    return (dxsum4){DXW_HALF(w->s, h),    DXW_HALF(w->c, h),   DXW_HALF(w->err, h),
                    DXW_HALF(w->sabs, h), DXW_HALF(w->mag, h), DXW_HALF(w->cerr, h)};
}

/* The sums of one group into *r in four lanes */
static inline __attribute__((always_inline)) void
dx_sum_split4(const dxterm *t, int64_t nt, const double *gp, int64_t is, bool bil, bool one_word,
              bool unit, dxsum4 *r)
{
    const bool two = false;
    dxsum4x w = {{0}, {0}, {0}, {0}, {0}, {0}, {0}, {0}, {0}};
    DX_SUM_TERMS(w, dxv, dx_split_term4, dxv_exact_add);
    *r = (dxsum4){w.s, w.c, w.err, w.sabs, w.mag, w.cerr};
}

/* Whether input_grad's split sums take eight lanes (two groups a call: dx_sum_split) or four
 * (dx_sum_split4): eight with AVX-512, where they are one register. ref_grid_dx_lanes, when 4
 * or 8, chooses instead (tests: both ways on any CPU; the answers are the same). */
int ref_grid_dx_lanes;

static bool dx_wide(void) { return grid_lanes_wide(ref_grid_dx_lanes); }

/* An element's terms in one plane (gradOutput of point pix at gp[pix·is]), for sums redone. */
typedef struct { const dxterm *t; int64_t nt; const double *gp; int64_t is; } dx_plane_terms;

/* Σ|g·wx·wy| of the terms in units of 2^REF_SUM_EXP (ref_set_sum_abs), the same roundings. */
static double dx_sabs_scaled(const void *ctx)
{
    const dx_plane_terms *d = ctx;
    double s = 0, down = ldexp(1, -REF_SUM_EXP);
    for (int64_t i = 0; i < d->nt; i++)
        s += fabs(d->gp[d->t[i].pix * d->is] * down * d->t[i].wx * d->t[i].wy);
    return s;
}

/* Σ max(1, |g|)·REF_UNDER_SCALE of the terms, scaled term by term as dx_sum_any's magnitudes
 * stand for: where their unscaled sum leaves the double range. */
static double dx_mag_scaled(const dx_plane_terms *d)
{
    double s = 0;
    for (int64_t i = 0; i < d->nt; i++)
        s += ref_fmax(1, fabs(d->gp[d->t[i].pix * d->is])) * REF_UNDER_SCALE;
    return s;
}

/* mark_range's REF_FLAG_RANGE (grid_stream.c: a device's sum may pass the working range) of an
 * answer the fast path decided (a finite value, or a class without alternatives), given where it
 * is made, in cache, instead of by a pass over the chunk before it is handed on. */
static inline void dx_mark_range(const gctx *G, const ref_value *v, uint8_t *fl)
{
    if (!(*fl & (REF_FLAG_UNCHECKABLE | REF_FLAG_NONFINITE)) && grid_may_pass_range(G, v))
        *fl |= REF_FLAG_RANGE;
}

/* Element e's answer from its sums (v, fl) and terms: the bound data, and its value where the
 * terms are non-finite or Ziv's test decides; else 1 (the MPFR path). */
static int dx_finish(const gctx *G, const dx_plane_terms *pt, const dxsum *r, ref_value *v,
                     uint8_t *fl, int64_t *hits)
{
    bool bil = G->p->interpolation == REF_INTERP_BILINEAR;
    int64_t nt = pt->nt;
    v->nterms = nt;
    v->nops = bil ? 4 : 0;
    ref_set_sum_abs(v, r->sabs, 1 + (double)(nt + 6) * 0x1p-52, dx_sabs_scaled, pt);
    v->coord_err = r->cerr * (1 + 0x1p-40);
    v->under_mag = grid_under_grow(r->mag < INFINITY ? grid_under_scaled1(r->mag)
                                                     : dx_mag_scaled(pt));
    v->min_weight = 0;
    /* partial sums of |g·w| past the working range may overflow (FP32 for FP32 data) */
    if (r->sabs * (1 + 0x1p-40) > G->overflow_at)
        *fl |= REF_FLAG_RANGE;
    if (ref_nf_any(&r->cls)) {
        v->hi = ref_nf_value(&r->cls);
        v->lo = 0;
        v->sum_abs = INFINITY;
        v->sum_exp = 0;
        *fl |= REF_FLAG_NONFINITE;
        /* NaN (weight 0), the exact class, or no such term on the device's branch (then maybe
         * a finite sum): no finite interval holds them all */
        if (r->vanish)
            *fl |= REF_FLAG_UNCHECKABLE;
    } else if (G->force || !ref_decide(r->s, r->err, &v->hi, &v->lo)) {
        return 1;
    }
    dx_mark_range(G, v, fl);
    (*hits)++;
    return 0;
}

/* A lane's answer as dx_finish4 and dx_finish8 stored it, element i: decided (known, d) or by
 * ref_decide, marked in fallback where not, else counted and range-flagged (dx_mark_range) */
static inline __attribute__((always_inline)) void
dx_lane_end(const gctx *G, bool known, int64_t d, double s, double c, double err, int64_t i,
            uint8_t *fallback, ref_output *out, int64_t *hits)
{
    ref_value *v = &out->v[i];
    int64_t dl = known ? d : ref_decide(ref_two_sum(s, c), err, &v->hi, &v->lo);
    fallback[i] = (uint8_t)!dl;
    *hits += dl;
    if (dl)
        dx_mark_range(G, v, &out->flags[i]);
}

/* out[l] = {a[l], b[l], c[l], d[l]}: four lanes' fields side by side, each one half of a
 * ref_value (two unpacks and two lane swaps a pair) */
static inline __attribute__((always_inline)) void
dxv_transpose(const dxv *a, const dxv *b, const dxv *c, const dxv *d, dxv out[DXL])
{
    /* __builtin_shufflevector: GCC 12 and clang both have it (avgpool_lanes.c too) */
    dxv ab0 = __builtin_shufflevector(*a, *b, 0, 4, 2, 6);
    dxv ab1 = __builtin_shufflevector(*a, *b, 1, 5, 3, 7);
    dxv cd0 = __builtin_shufflevector(*c, *d, 0, 4, 2, 6);
    dxv cd1 = __builtin_shufflevector(*c, *d, 1, 5, 3, 7);
    out[0] = __builtin_shufflevector(ab0, cd0, 0, 1, 4, 5);
    out[1] = __builtin_shufflevector(ab1, cd1, 0, 1, 4, 5);
    out[2] = __builtin_shufflevector(ab0, cd0, 2, 3, 6, 7);
    out[3] = __builtin_shufflevector(ab1, cd1, 2, 3, 6, 7);
}

_Static_assert(offsetof(ref_value, hi) == 0 && offsetof(ref_value, lo) == 8 &&
                   offsetof(ref_value, sum_abs) == 16 && offsetof(ref_value, nterms) == 24 &&
                   offsetof(ref_value, nops) == 32 && offsetof(ref_value, sum_exp) == 36 &&
                   offsetof(ref_value, coord_err) == 40 &&
                   offsetof(ref_value, min_weight) == 48 && offsetof(ref_value, under_mag) == 56 &&
                   sizeof(ref_value) == 64,
               "dx_finish4 writes a ref_value as two rows of four doubles");
/* nops and sum_exp, written as one 64-bit lane nops (little-endian: nops, then sum_exp 0) */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "dx_finish4's nops lane");

/* dx_finish of four planes' element from dx_sum_split's sums (every term finite): lane l is
 * element i + l·stride of the chunk out, marked in fallback (zero before) where undecided. The
 * values are made as vectors and stored as two rows each (not field by field from extracted
 * lanes). */
static inline __attribute__((always_inline)) void
dx_finish4(const gctx *G, const dx_plane_terms *pt, const dxsum4 *r, bool bil, bool safe,
           int64_t i, int64_t stride, uint8_t *fallback, ref_output *out, int64_t *hits)
{
    int64_t nt = pt->nt;
    int64_t nops = bil ? 4 : 0;
    dxv sum_abs = r->sabs * (1 + (double)(nt + 6) * 0x1p-52), cerr = r->cerr * (1 + 0x1p-40);
    dxv mag, hi, lo;
    grid_under_final(&r->mag, &mag);
    dxvi range = {0, 0, 0, 0}, past = range, over = range, dec, known;
    if (!safe) {
        range = r->sabs * (1 + 0x1p-40) > G->overflow_at;
        past = sum_abs > DBL_MAX; /* Σ|terms| past the double range: redone scaled */
        /* grid_may_pass_range of the lanes (past ones aside), as dx_mark_range asks it */
        dxv grow = (dxv){1, 1, 1, 1} + (double)(nt + 4) * 0x1p-23;
        over = (sum_abs + cerr) * grow > G->overflow_at;
    }
    dxv_decide(&r->s, &r->c, &r->err, &hi, &lo, &dec, &known);
    dxv ntv = (dxv)(dxvi){nt, nt, nt, nt}, nopv = (dxv)(dxvi){nops, nops, nops, nops};
    dxv zero = {0, 0, 0, 0}, row0[DXL], row1[DXL];
    dxv_transpose(&hi, &lo, &sum_abs, &ntv, row0);
    dxv_transpose(&nopv, &cerr, &zero, &mag, row1);
    dxvi d = known & dec & 1;
    /* the rows stored from registers (an unaligned vector type: no copy through the stack) */
    typedef double dxv_row __attribute__((vector_size(sizeof(dxv)), aligned(8), may_alias));
    ref_value *v0 = out->v + i;
    *(dxv_row *)&v0[0] = row0[0];
    *(dxv_row *)&v0[0].nops = row1[0];
    *(dxv_row *)&v0[stride] = row0[1];
    *(dxv_row *)&v0[stride].nops = row1[1];
    *(dxv_row *)&v0[2 * stride] = row0[2];
    *(dxv_row *)&v0[2 * stride].nops = row1[2];
    *(dxv_row *)&v0[3 * stride] = row0[3];
    *(dxv_row *)&v0[3 * stride].nops = row1[3];
    /* a flag to set, a sum to redo, a lane to decide */
    dxvi odd = range | past | ~(known & dec) | over;
    if (!dxv_any(&odd)) { /* the common case: nothing to mark */
        *hits += DXL;
        return;
    }
    for (int l = 0; l < DXL; l++, i += stride) {
        ref_value *v = &out->v[i];
        if (range[l])
            out->flags[i] |= REF_FLAG_RANGE;
        if (past[l]) {
            dx_plane_terms lane = {pt->t, nt, pt->gp + l, pt->is};
            ref_set_sum_abs(v, r->sabs[l], 1 + (double)(nt + 6) * 0x1p-52, dx_sabs_scaled, &lane);
        }
        dx_lane_end(G, known[l] != 0, d[l], r->s[l], r->c[l], r->err[l], i, fallback, out, hits);
    }
}

/* dx_finish4 of both groups of dx_sum_split's eight lanes at once (lane l: element i + l·stride)
 * where the batch rules its range tests out (safe) and no lane's magnitudes take under_mag's
 * factor (else false, nothing written: dx_finish4 for each group instead). The same operations
 * lane for lane, so the same answers, each stored as one 64-byte row. */
static inline __attribute__((always_inline)) GRID_V4 bool
dx_finish8(const gctx *G, int64_t nt, bool bil, const dxsum8 *w, int64_t i, int64_t stride,
           uint8_t *fallback, ref_output *out, int64_t *hits)
{
    dxw mag, hi, lo;
    dxwi big, dec, known;
    grid_under_final_unf_w(&w->mag, &mag, &big);
    if (dxw_any(&big))
        return false;
    dxw_decide(&w->s, &w->c, &w->err, &hi, &lo, &dec, &known);
    const dxw f[8] = {hi, lo, w->sabs * (1 + (double)(nt + 6) * 0x1p-52), (dxw)((dxwi){0} + nt),
                      (dxw)((dxwi){0} + (bil ? 4 : 0)), w->cerr * (1 + 0x1p-40), (dxw){0}, mag};
    dxw_store_values(f, out->v + i, stride);
    dxwi odd = ~(known & dec), d = known & dec & 1;
    if (!dxw_any(&odd)) { /* the common case: every lane decided */
        *hits += 2 * DXL;
        return true;
    }
    for (int l = 0; l < 2 * DXL; l++, i += stride)
        dx_lane_end(G, known[l] != 0, d[l], w->s[l], w->c[l], w->err[l], i, fallback, out, hits);
    return true;
}

/* Whether no element of the batch can reach dx_finish4's range tests in any plane: every g is
 * known (bv->plain) to be at most max_go, so a plane's Σ|terms| is at most max_go·Σ|wx|·|wy| and
 * its coordinate term max_go·Σcfac, at most ntmax·tmax·max_go together, each grown by its
 * roundings (under 2^20 terms a factor below 1 + 2^-31); with grid_may_pass_range's growth
 * (below 1.13), four times that within the range leaves every test false. */
static bool dx_range_safe(const gctx *G, const dxterms *T, const batch_view *bv)
{
    double lim = G->overflow_at < DBL_MAX ? G->overflow_at : DBL_MAX;
    return bv->plain && T->ntmax <= ((int64_t)1 << 20) &&
           bv->max_go * T->tmax * (double)T->ntmax < 0x1p-2 * lim;
}

/* Element e (at its offset at in the chunk) of np planes a stride apart where no term reaches it:
 * what dx_finish and dx_finish4 make of an empty sum off force_mpfr (every field 0 but nops,
 * decided, no flag) stored without the sums, as most elements of a grid that mostly samples
 * outside the input (zeros padding) or on its edges (border) are. */
static inline __attribute__((always_inline)) void dx_empty(int32_t nops, int64_t at,
                                                          int64_t stride, int64_t np,
                                                          ref_output *out, int64_t *hits)
{
    const ref_value z = {.nops = nops};
    for (int64_t l = 0; l < np; l++)
        out->v[at + l * stride] = z;
    *hits += np;
}

#define DX_AHEAD 3 /* elements between a gradOutput prefetch and its use (grid_dx_block) */
#define DX_TERMS_AHEAD 16 /* elements between a prefetch of their terms and its use */

/* The gradOutput lines element e + DX_AHEAD reads in planes cb.., asked for now: the points
 * are anywhere in the batch, so those loads would otherwise wait on L2 or beyond; with terms
 * also the terms of element e + DX_TERMS_AHEAD (read in order: on the Intel AVX-512 machine
 * its hardware prefetcher does better without them, dx_block_v4) */
static inline __attribute__((always_inline)) void
dx_prefetch(const dxterms *T, const batch_view *bv, int64_t e, int64_t hw_in, int64_t cb,
            bool terms)
{
    const dxterm *t = T->t;
    const int64_t *off = T->off;
    if (terms && !T->pix && e + DX_TERMS_AHEAD < hw_in) /* a term a line */
        for (const dxterm *a = t + off[e + DX_TERMS_AHEAD], *b = t + off[e + DX_TERMS_AHEAD + 1];
             a < b; a++)
            __builtin_prefetch(a);
    if (e + DX_AHEAD >= hw_in)
        return;
    const double *go = bv->go + cb * bv->go_cs;
    int64_t is = bv->go_is, i0 = off[e + DX_AHEAD], i1 = off[e + DX_AHEAD + 1];
    if (T->pix)
        for (int64_t i = i0; i < i1; i++)
            __builtin_prefetch(go + T->pix[i] * is);
    else
        for (int64_t i = i0; i < i1; i++)
            __builtin_prefetch(go + t[i].pix * is);
}

/* grid_dx_block where every group of planes cb .. ce − 1 suits dx_sum_split, its flags constant: a
 * loop without a test per group for each case. FIN8: two whole groups' finish at once where
 * the batch allows (dx_finish8, AVX-512 only: dx_block_v4), or dx_finish8_none (never);
 * FIN8_WIDE: the former (no prefetch of the terms). */
#define DX_BLOCK_SPLIT(name, ATTR, FIN8, FIN8_WIDE)                                                \
    static inline __attribute__((always_inline)) ATTR void name(                                   \
        const gctx *G, const dxterms *T, const batch_view *bv, int64_t c0, int64_t cb, int64_t ce, \
        int64_t e0, int64_t e1, bool bil, bool one_word, bool unit, bool wide, bool safe,         \
        uint8_t *fallback, ref_output *out, int64_t *hits)                                         \
    {                                                                                              \
        int64_t hw_in = G->p->h_in * G->p->w_in;                                                   \
        for (int64_t e = e0; e < e1; e++) {                                                        \
            const dxterm *t = T->t + T->off[e];                                                    \
            int64_t nt = T->off[e + 1] - T->off[e];                                                \
            if (nt == 0) {                                                                         \
                dx_empty(bil ? 4 : 0, (cb - c0) * hw_in + e, hw_in, ce - cb, out, hits);           \
                continue;                                                                          \
            }                                                                                      \
            dx_prefetch(T, bv, e, hw_in, cb, !FIN8_WIDE);                                          \
            for (int64_t c = cb; c < ce && !wide; c += DXL) {                                      \
                dxsum4 r;                                                                          \
                dx_plane_terms pt = {t, nt, bv->go + c, bv->go_is};                                \
                dx_sum_split4(t, nt, bv->go + c, bv->go_is, bil, one_word, unit, &r);              \
                dx_finish4(G, &pt, &r, bil, safe, (c - c0) * hw_in + e, hw_in, fallback, out,      \
                           hits);                                                                  \
            }                                                                                      \
            for (int64_t c = cb; c < ce && wide; c += 2 * DXL) {                                   \
                dxsum8 w;                                                                          \
                bool two = c + 2 * DXL <= ce;                                                      \
                dx_sum_split(t, nt, bv->go + c, bv->go_is, bil, one_word, unit, two, &w);          \
                if (two && safe &&                                                                 \
                    FIN8(G, nt, bil, &w, (c - c0) * hw_in + e, hw_in, fallback, out, hits))        \
                    continue;                                                                      \
                for (int h = 0; h < 1 + two; h++) {                                                \
                    dxsum4 r = dx_half(&w, h);                                                     \
                    dx_plane_terms pt = {t, nt, bv->go + c + h * DXL, bv->go_is};                  \
                    dx_finish4(G, &pt, &r, bil, safe, (c + h * DXL - c0) * hw_in + e, hw_in,       \
                               fallback, out, hits);                                               \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }
static inline __attribute__((always_inline)) bool
dx_finish8_none(const gctx *G, int64_t nt, bool bil, const dxsum8 *w, int64_t i, int64_t stride,
                uint8_t *fallback, ref_output *out, int64_t *hits)
{
    (void)G, (void)nt, (void)bil, (void)w, (void)i, (void)stride, (void)fallback, (void)out;
    (void)hits;
    return false;
}
DX_BLOCK_SPLIT(dx_block_split, , dx_finish8_none, false)
DX_BLOCK_SPLIT(dx_block_split_v4, GRID_V4, dx_finish8, true)

/* SPLIT (dx_block_split or its AVX-512 copy) for grid_dx_block's cases (every group split) */
#define DX_BLOCK_CASES(name, ATTR, SPLIT)                                                          \
    static inline __attribute__((always_inline)) ATTR void name(                                   \
        const gctx *G, const dxterms *T, const batch_view *bv, int64_t c0, int64_t cb, int64_t ce, \
        int64_t e0, int64_t e1, bool wide, bool safe, uint8_t *fallback, ref_output *out,         \
        int64_t *hits)                                                                             \
    {                                                                                              \
        bool bil = G->p->interpolation == REF_INTERP_BILINEAR;                                     \
        if (bil && T->one_word && grid_batch_unit(bv, false))                                      \
            SPLIT(G, T, bv, c0, cb, ce, e0, e1, true, true, true, wide, safe, fallback, out,       \
                  hits);                                                                           \
        else if (bil && T->one_word)                                                               \
            SPLIT(G, T, bv, c0, cb, ce, e0, e1, true, true, false, wide, safe, fallback, out,      \
                  hits);                                                                           \
        else if (bil)                                                                              \
            SPLIT(G, T, bv, c0, cb, ce, e0, e1, true, false, false, wide, safe, fallback, out,     \
                  hits);                                                                           \
        else                                                                                       \
            SPLIT(G, T, bv, c0, cb, ce, e0, e1, false, false, false, wide, safe, fallback, out,    \
                  hits);                                                                           \
    }
DX_BLOCK_CASES(dx_block_cases, , dx_block_split)
DX_BLOCK_CASES(dx_block_cases_v4, GRID_V4, dx_block_split_v4)

/* The eight-lane cases as AVX-512 code (GRID_V4), two groups finished at once */
__attribute__((noinline)) GRID_V4 static void
dx_block_v4(const gctx *G, const dxterms *T, const batch_view *bv, int64_t c0, int64_t cb,
            int64_t ce, int64_t e0, int64_t e1, bool safe, uint8_t *fallback, ref_output *out,
            int64_t *hits)
{
    dx_block_cases_v4(G, T, bv, c0, cb, ce, e0, e1, true, safe, fallback, out, hits);
}

/* Elements e0 .. e1 − 1 of the DXL-plane groups g0 .. g1 − 1 of the chunk out (planes c0 ..
 * c0 + np − 1 of input_grad, group g from plane c0 + g·DXL, plane c0 at offset 0): every
 * element's sums and the values they decide; the others marked in fallback (zero before, laid
 * out as the chunk). split[g]: group g's planes suit dx_sum_split when the terms do (T->split).
 * An element's groups one after
 * the other: they read the same points' gradOutput (channel-innermost, so mostly the same cache
 * lines) while those are in L1. */
GRID_CLONES void grid_dx_block(const gctx *G, const dxterms *T, const batch_view *bv, int64_t c0,
                               int64_t np, int64_t g0, int64_t g1, const bool *split, int64_t e0,
                                 int64_t e1, uint8_t *fallback, ref_output *out, int64_t *hits_out)
{
    int64_t hw_in = G->p->h_in * G->p->w_in, hits_local = 0, *hits = &hits_local;
    bool bil = G->p->interpolation == REF_INTERP_BILINEAR, all = T->split, wide = dx_wide();
    bool safe = dx_range_safe(G, T, bv);
    bool unit = T->unit && T->pix && !bil && !G->force;
    int64_t cb = c0 + g0 * DXL, ce = c0 + np < c0 + g1 * DXL ? c0 + np : c0 + g1 * DXL;
    for (int64_t g = g0; g < g1; g++)
        all = all && split[g];
    if (all && wide && grid_v4_cpu())
        dx_block_v4(G, T, bv, c0, cb, ce, e0, e1, safe, fallback, out, hits);
    else if (all)
        dx_block_cases(G, T, bv, c0, cb, ce, e0, e1, wide, safe, fallback, out, hits);
    for (int64_t e = e0; e < e1 && !all; e++) {
        const dxterm *t = T->t + T->off[e];
        int64_t nt = T->off[e + 1] - T->off[e];
        if (nt == 0 && !G->force) {
            dx_empty(bil ? 4 : 0, (cb - c0) * hw_in + e, hw_in, ce - cb, out, hits);
            continue;
        }
        dx_prefetch(T, bv, e, hw_in, cb, true);
        for (int64_t c = cb; c < ce; c += DXL) {
            int64_t at = (c - c0) * hw_in;
            if (T->split && split[(c - c0) / DXL]) {
                dxsum4 r;
                dx_plane_terms pt = {t, nt, bv->go + c, bv->go_is};
                if (bil)
                    dx_sum_split4(t, nt, bv->go + c, bv->go_is, true, false, false, &r);
                else
                    dx_sum_split4(t, nt, bv->go + c, bv->go_is, false, false, false, &r);
                dx_finish4(G, &pt, &r, bil, safe, at + e, hw_in, fallback, out, hits);
                continue;
            }
            int nl = (int)(c0 + np - c < DXL ? c0 + np - c : DXL);
            dxsum r[DXL];
            bool ok[DXL] = {false, false, false, false};
            if (unit && nl == DXL && ref_grid_dx_unit_lanes)
                dx_sum_unit4(T->pix + T->off[e], nt, bv->go + c * bv->go_cs, bv->go_cs,
                             bv->go_is, r, ok);
            else
                for (int l = 0; unit && l < nl; l++)
                    ok[l] = dx_sum_unit(T->pix + T->off[e], nt, bv->go + (c + l) * bv->go_cs,
                                        bv->go_is, &r[l]);
            for (int l = 0; l < nl; l++)
                if (!ok[l])
                    r[l] = dx_sum_any(G, t, nt, bv->go + (c + l) * bv->go_cs, bv->go_is);
            for (int l = 0; l < nl; l++) {
                int64_t i = at + l * hw_in + e;
                dx_plane_terms pt = {t, nt, bv->go + (c + l) * bv->go_cs, bv->go_is};
                fallback[i] = (uint8_t)dx_finish(G, &pt, &r[l], &out->v[i], &out->flags[i], hits);
            }
        }
    }
    *hits_out += hits_local; /* counted in a register meanwhile */
}

/* The batch's terms (dx_term of each point's corners, pe their elements: grid_dx_point_elems) into
 * terms, each element's in point order, toff its offsets, tsplit and tone_word: called by every
 * thread of a team. Each thread takes a share of the points in order and puts its terms of an
 * element after the earlier threads' (counts, offsets from one thread, then the terms made by
 * all, each stored where it belongs: stores all over the terms, but no copy of them in point
 * order to write and read again). */
GRID_CLONES void grid_dx_terms_team(const ref_grid_params *p, batch_work *W)
{
    int th = omp_get_thread_num(), nth = omp_get_num_threads();
    int64_t n = p->h_out * p->w_out, hw_in = p->h_in * p->w_in;
    int64_t p0 = n * th / nth, p1 = n * (th + 1) / nth, *cnt = W->tcnt + th * hw_in;
    memset(cnt, 0, (size_t)hw_in * sizeof *cnt);
    for (int64_t i = 4 * p0; i < 4 * p1; i++)
        if (W->pe[i] >= 0)
            cnt[W->pe[i]]++;
#pragma omp barrier
    /* this thread's first slot of each element; thread 0 the offsets too */
    int64_t *slot = W->tslot + th * hw_in, ntmax;
    int64_t at = ref_team_slots(W->tcnt, hw_in, th, nth, slot, th == 0 ? W->toff : NULL, &ntmax);
    if (th == 0) {
        W->toff[hw_in] = at;
        W->ntmax = ntmax;
    }
    bool split = true, one_word = true, unit = true;
    double tmax = 0;
    for (int64_t pix = p0; pix < p1; pix++) {
        corner cs[4];
        int nc = W->pe[4 * pix] >= 0 ? dx_point_corners(p, &W->pts[pix], cs) : 0;
        for (int k = 0; k < nc; k++) {
            dxterm *t = &W->terms[slot[cs[k].e]++];
            dx_term(&W->pts[pix], pix, &cs[k], t);
            split = split && t->split;
            one_word = one_word && t->part[2] == 0;
            unit = unit && t->mode == DX_EXACT && t->wx == 1 && t->wy == 1 && dx_wxy(t).hi == 1;
            double m = fabs(t->wx) * fabs(t->wy) + t->cfac; /* not finite: no bound */
            tmax = !(m < INFINITY) ? INFINITY : m > tmax ? m : tmax;
        }
    }
#pragma omp critical(grid_dx_terms)
    {
        W->tsplit = W->tsplit && split;
        W->tone_word = W->tone_word && one_word;
        W->tunit = W->tunit && unit;
        W->tmax = tmax > W->tmax ? tmax : W->tmax;
    }
}

/* The batch's terms' points alone (pix[i] = terms[i].pix) for dx_sum_unit, which then reads 4
 * bytes a term instead of its 64 (a batch's terms are read once per plane, and a 1-plane chunk
 * has no four planes to share them), into the room of pe, which grid_dx_terms_team no longer
 * reads after its barrier. Called by every thread of the team, ending in a barrier; the array. */
int32_t *grid_dx_unit_pix(const ref_grid_params *p, batch_work *W)
{
    int32_t *pix = (int32_t *)W->pe;
    _Static_assert(sizeof *W->pe >= sizeof *pix, "a term's point in its pe slot");
#pragma omp for schedule(static)
    for (int64_t i = 0; i < W->toff[p->h_in * p->w_in]; i++)
        pix[i] = W->terms[i].pix;
    return pix;
}
