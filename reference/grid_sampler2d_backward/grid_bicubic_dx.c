/* The grid sampler's bicubic input_grad (grid_bicubic.c's opening comment states the model and
 * the bound): which points' taps reach each input element (the reach, in element order), and
 * each element's value from them, fast path or MPFR terms. */
#include "grid_bicubic.h"

/* Adds w·x within its error: the product's 3u² and w's own 2^-102 relative. Inlined into
 * bc_dx_element's clones, where fma is an instruction (the baseline's a libm call). */
static inline __attribute__((always_inline)) void fast_add(bc_fast *f, ref_dd w, double x)
{
    if (!f->ok || w.hi == 0 || x == 0)
        return;
    ref_dd t = ref_dd_mul_d(w, x);
    double m = fabs(t.hi);
    if (!(m >= 0x1p-900 && m <= 0x1p900)) {
        f->ok = false;
        return;
    }
    ref_acc_add(&f->a, t, m * 0x1p-101 + REF_DD_TINY);
    f->nonzero++;
}

/* The indices an axis's taps may reach: the reach of an unresolved one, else its taps'. */
void bc_axis_range(const bc_axis *a, int64_t *lo, int64_t *hi)
{
    if (a->unres) {
        *lo = a->reach_lo;
        *hi = a->reach_hi;
        return;
    }
    *lo = INT64_MAX;
    *hi = -1;
    for (int k = 0; k < 5; k++)
        if (a->idx[k] >= 0) {
            *lo = a->idx[k] < *lo ? a->idx[k] : *lo;
            *hi = a->idx[k] > *hi ? a->idx[k] : *hi;
        }
}

static bc_entry entry_of(const bc_point *pt, int64_t pix, int kx, int ky)
{
    const bc_axis *ax = &pt->ax[0], *ay = &pt->ax[1];
    double wx = ax->wd[kx], wy = ay->wd[ky];
    bool ghost = kx == 4 || ky == 4;
    return (bc_entry){pix, (uint8_t)kx, (uint8_t)ky, pt->dd, wx, wy,
                      ax->ew * wy + wx * ay->ew + ax->ew * ay->ew,
                      ghost ? (ref_dd){0, 0} : pt->Wd[ky * 4 + kx]};
}

/* The unresolved points' boxes, in point order, and the elements they may reach (serial: rare). */
static int reach_boxes(const ref_grid_params *p, const bc_point *pts, bc_reach *R)
{
    for (int64_t pix = 0; pix < p->h_out * p->w_out; pix++) {
        const bc_axis *ax = &pts[pix].ax[0], *ay = &pts[pix].ax[1];
        if (pts[pix].out || !(ax->unres || ay->unres))
            continue;
        bc_box b = {pix, 0, 0, 0, 0};
        bc_axis_range(ax, &b.x0, &b.x1);
        bc_axis_range(ay, &b.y0, &b.y1);
        bc_box *nb = realloc(R->box, (size_t)(R->nbox + 1) * sizeof *nb);
        if (!nb)
            return -1;
        R->box = nb;
        R->box[R->nbox++] = b;
        for (int64_t yi = b.y0; yi <= b.y1; yi++)
            for (int64_t xi = b.x0; xi <= b.x1; xi++)
                R->unres[yi * p->w_in + xi] = 1;
    }
    return 0;
}

/* Points p0 .. p1 − 1's taps: counted into cnt (pass 0: *unres set where one is unresolved) or
 * their entries stored at each element's next slot (pass 1). */
static void reach_pass(const ref_grid_params *p, const bc_point *pts, int64_t p0, int64_t p1,
                       int pass, int64_t *cnt, int64_t *slot, bc_entry *ent, bool *unres)
{
    for (int64_t pix = p0; pix < p1; pix++) {
        const bc_point *pt = &pts[pix];
        /* 4 points ahead (a point's work here is short); pass 0 reads the taps' indices,
         * pass 1 the weights too */
        if (pix + 4 < p1)
            bc_point_prefetch(pt + 4, pass ? pt[4].Wd : NULL, sizeof pt->Wd);
        if (pt->out)
            continue;
        const bc_axis *ax = &pt->ax[0], *ay = &pt->ax[1];
        *unres |= ax->unres || ay->unres;
        for (int ky = 0; ky < 5; ky++)
            for (int kx = 0; kx < 5; kx++) {
                int64_t yi = ay->idx[ky], xi = ax->idx[kx];
                if (yi < 0 || xi < 0)
                    continue;
                int64_t e = yi * p->w_in + xi;
                if (pass == 0)
                    cnt[e]++;
                else
                    ent[slot[e]++] = entry_of(pt, pix, kx, ky);
            }
    }
}

/* The team's part of bc_reach_build: each thread counts and stores the entries of a share of the
 * points (the share batch_points gave it, so it reads points it wrote), each element's after the
 * earlier threads' (ascending point order, as one thread gives them); thread 0 lays out the
 * element offsets and the entries' block in between. *fail, *unres: out of memory, an
 * unresolved point. */
static void reach_team(const ref_grid_params *p, const bc_point *pts, bc_reach *R, int64_t *cnt,
                       int *fail, bool *unres)
{
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    int64_t hw_in = p->h_in * p->w_in, hw_out = p->h_out * p->w_out;
    int64_t p0 = hw_out * t / nt, p1 = hw_out * (t + 1) / nt, *mine = cnt + t * hw_in;
    bool u = false;
    memset(mine, 0, (size_t)hw_in * sizeof *mine);
    reach_pass(p, pts, p0, p1, 0, mine, NULL, NULL, &u);
#pragma omp barrier
    int64_t *slot = cnt + (nt + t) * hw_in; /* after every thread's counts */
    int64_t at = ref_team_slots(cnt, hw_in, t, nt, slot, t == 0 ? R->start : NULL, NULL);
#pragma omp master
    {
        R->start[hw_in] = at;
        if (at > R->ent_cap || !R->ent) { /* megabytes: huge pages, fresh each time */
            free(R->ent_raw);
            R->ent_cap = at;
            R->ent = (bc_entry *)bc_block((size_t)(at ? at : 1) * sizeof *R->ent, &R->ent_raw);
        }
    }
#pragma omp barrier
    if (R->ent)
        reach_pass(p, pts, p0, p1, 1, NULL, slot, R->ent, &u);
#pragma omp critical(bc_reach_team)
    {
        *fail |= !R->ent;
        *unres |= u;
    }
}

int bc_reach_build(const ref_grid_params *p, const bc_point *pts, int nth, bc_reach *R)
{
    int64_t hw_in = p->h_in * p->w_in;
    R->start = calloc((size_t)hw_in + 1, sizeof *R->start);
    R->unres = calloc((size_t)hw_in, 1);
    int64_t *cnt = malloc(2 * (size_t)nth * (size_t)(hw_in ? hw_in : 1) * sizeof *cnt);
    int fail = !R->start || !R->unres || !cnt;
    bool unres = false;
    if (!fail) {
#pragma omp parallel num_threads(nth)
        reach_team(p, pts, R, cnt, &fail, &unres);
    }
    free(cnt);
    return fail || (unres && reach_boxes(p, pts, R) != 0) ? -1 : 0;
}

void bc_reach_reset(bc_reach *R)
{
    free(R->start);
    free(R->unres);
    free(R->box);
    R->start = NULL;
    R->unres = NULL;
    R->box = NULL;
    R->nbox = 0;
}

void bc_reach_free(bc_reach *R)
{
    bc_reach_reset(R);
    free(R->ent_raw);
    R->ent = NULL;
    R->ent_raw = NULL;
}

/* The unresolved points' part of element e's legal values: each contributes g·Σ ŵx·ŵy over
 * whichever of its taps land on e, within ±2|g| (BC_SUM_W²), where the exact value has its own
 * (as large): offsets ±4|g| per point around the exact value. False when a gradient there is not
 * finite (no finite interval). */
static bool dx_interval(const bc_reach *R, const double *go, int64_t w_in, int64_t e, double *off)
{
    int64_t xi = e % w_in, yi = e / w_in;
    double u = 0;
    for (int64_t k = 0; k < R->nbox; k++) {
        const bc_box *b = &R->box[k];
        if (xi < b->x0 || xi > b->x1 || yi < b->y0 || yi > b->y1)
            continue;
        if (!isfinite(go[b->pix]))
            return false;
        u += 2 * BC_SUM_W * BC_SUM_W * fabs(go[b->pix]);
    }
    *off = u * (1 + 0x1p-20);
    return true;
}

/* Element e's finite terms |g·wx·wy| (bc_dx_element's sabs) in units of 2^REF_SUM_EXP, the same
 * roundings with g scaled first (ref_set_sum_abs). */
typedef struct { const bc_point *pts; const bc_reach *R; const double *go; int64_t e; } bc_dx_sum;
static double dx_sabs_scaled(const void *ctx)
{
    const bc_dx_sum *a = ctx;
    double s = 0, down = ldexp(1, -REF_SUM_EXP);
    for (int64_t i = a->R->start[a->e]; i < a->R->start[a->e + 1]; i++) {
        const bc_entry *en = &a->R->ent[i];
        const bc_point *pt = &a->pts[en->pix];
        double g = a->go[en->pix];
        if (isfinite(g))
            s += fabs(g) * down * pt->ax[0].wd[en->kx] * pt->ax[1].wd[en->ky];
    }
    return s;
}

/* What an element's entries give one channel before its value is decided: the bound data and
 * the fast sum. */
typedef struct {
    double sabs, cerr, under;
    bool unsure;
    bc_fast F;
} dx_sums;

/* under_mag's term of a finite g (wy·wx may underflow, then × g; |g| ≤ 1: unit_value(16)) */
static inline double dx_under(double ag)
{
    double y;
    return ag <= 1 ? REF_UNDER_SCALE
           : unit_under(ag, &y) ? unit_value(y)
                                : ref_fmax(1, ag) * REF_UNDER_SCALE;
}

/* Element e's exact terms g·wx·wy into T (MPFR's sum): 0, −1 out of memory. */
static int dx_terms(const bc_point *pts, const bc_reach *R, const double *go, int64_t e,
                    bc_terms *T)
{
    mpfr_ptr tx = bc_tmp(T, 0), ty = bc_tmp(T, 1);
    int rc = 0;
    /* the points are scattered: their coefficients' lines asked for at once, not a cache miss
     * after another */
    for (int64_t i = R->start[e]; i < R->start[e + 1]; i++)
        for (int a = 0; a < 2; a++) {
            const bc_axis *ax = &pts[R->ent[i].pix].ax[a];
            __builtin_prefetch(&ax->ints);
            __builtin_prefetch(&ax->wi[3]);
        }
    for (int64_t i = R->start[e]; rc == 0 && i < R->start[e + 1]; i++) {
        const bc_entry *en = &R->ent[i];
        if (en->kx == 4 || en->ky == 4)
            continue;
        const bc_point *pt = &pts[en->pix];
        rc = bc_exact_term(T, bc_coef(&pt->ax[0], en->kx, false, tx),
                           bc_coef(&pt->ax[1], en->ky, false, ty), &go[en->pix], 1);
    }
    return rc;
}

/* ---- an element's exact sum in integers, before MPFR's sum of its terms ----
 * Each term g·wx·wy is an integer times a power of 2: g = m·2^eg (m < 2^53), w = wi·2^-(3q+2)
 * (|wi| < 2^127), |m·wix·wiy| < 2^307 (5 limbs). Up to 2^20 terms whose exponents lie within
 * BC_XSPAN bits of the least one sum exactly in BC_XL limbs (two's complement, < 2^660), and
 * MPFR gets that sum as one term: the same exact value, so the same roundings of it. |w| ≤ 1
 * and |g| < 2^1000 keep the sum below 2^1020, finite as a double: ref_finish_mpfr_sum's
 * overflow excess, which reads Σ|terms| (not the same for one term), is never reached. */
enum { BC_XL = 11, BC_XSPAN = 320, BC_XTERMS = 1 << 20 };
typedef unsigned __int128 u128;

/* r[0..na+nb) = a·b (64-bit limbs, least significant first) */
static void limbs_mul(const uint64_t *a, int na, const uint64_t *b, int nb, uint64_t *r)
{
    memset(r, 0, (size_t)(na + nb) * sizeof *r);
    for (int i = 0; i < na; i++) {
        uint64_t c = 0;
        for (int j = 0; j < nb; j++) {
            u128 t = (u128)a[i] * b[j] + r[i + j] + c; /* < 2^128 */
            r[i + j] = (uint64_t)t;
            c = (uint64_t)(t >> 64);
        }
        r[i + nb] = c;
    }
}

/* acc ±= x·2^sh modulo 2^(64·BC_XL) */
static void limbs_add_shifted(uint64_t *acc, const uint64_t *x, int nx, int sh, bool neg)
{
    int w = sh / 64, b = sh % 64;
    uint64_t c = 0, prev = 0;
    for (int i = 0; w + i < BC_XL; i++) {
        uint64_t cur = i < nx ? x[i] : 0, s = b ? cur << b | prev >> (64 - b) : cur;
        prev = cur;
        u128 t = neg ? (u128)acc[w + i] - s - c : (u128)acc[w + i] + s + c;
        acc[w + i] = (uint64_t)t;
        c = (uint64_t)(t >> 64) & 1; /* a carry, or a borrow (the wrapped high word's bit) */
    }
}

static void limbs_of(u128 v, uint64_t *l)
{
    l[0] = (uint64_t)v;
    l[1] = (uint64_t)(v >> 64);
}

/* An entry's term's exponent (g·wx·wy = integer·2^*ex, the integer m·|wix|·|wiy| of g's
 * 53-bit m): false when the term is 0 */
static bool xexp(const bc_point *pt, const bc_entry *en, double g, int *ex)
{
    if (g == 0 || pt->ax[0].wi[en->kx] == 0 || pt->ax[1].wi[en->ky] == 0)
        return false;
    int eg;
    frexp(g, &eg);
    *ex = eg - 53 - (3 * pt->ax[0].q + 2) - (3 * pt->ax[1].q + 2);
    return true;
}

/* That integer m·|wix|·|wiy| (5 limbs) and its sign *neg */
static void xterm(const bc_point *pt, const bc_entry *en, double g, uint64_t *r, bool *neg)
{
    i128 wx = pt->ax[0].wi[en->kx], wy = pt->ax[1].wi[en->ky];
    int eg;
    uint64_t m = (uint64_t)ldexp(fabs(frexp(g, &eg)), 53), lx[2], ly[2], p[4];
    limbs_of(wx < 0 ? -(u128)wx : (u128)wx, lx);
    limbs_of(wy < 0 ? -(u128)wy : (u128)wy, ly);
    limbs_mul(lx, 2, ly, 2, p);
    limbs_mul(p, 4, &m, 1, r);
    *neg = ((g < 0) != (wx < 0)) != (wy < 0);
}

/* The least exponent of element e's nonzero exact terms into *lo: false where the integer sum
 * does not apply (a coefficient only in MPFR, not in integers; a non-finite g or |g| ≥ 2^1000;
 * a wider span). A ghost tap (k = 4) has no term, as in dx_terms. */
static bool xspan(const bc_point *pts, const bc_reach *R, const double *go, int64_t e, int *lo)
{
    int hi = INT_MIN;
    *lo = INT_MAX;
    if (R->start[e + 1] - R->start[e] > BC_XTERMS)
        return false;
    for (int64_t i = R->start[e]; i < R->start[e + 1]; i++) {
        const bc_entry *en = &R->ent[i];
        const bc_point *pt = &pts[en->pix];
        double g = go[en->pix];
        if (en->kx == 4 || en->ky == 4)
            continue;
        if (!pt->ax[0].ints || !pt->ax[1].ints || !(fabs(g) < 0x1p1000))
            return false;
        int ex;
        if (xexp(pt, en, g, &ex)) {
            *lo = ex < *lo ? ex : *lo;
            hi = ex > hi ? ex : hi;
        }
    }
    return hi == INT_MIN || hi - *lo <= BC_XSPAN;
}

/* Element e's exact sum as T's one term (none: 0): 1 done, 0 not applicable (MPFR's sum of the
 * terms then), −1 out of memory */
static int dx_exact_sum(const bc_point *pts, const bc_reach *R, const double *go, int64_t e,
                        bc_terms *T)
{
    int lo;
    if (!xspan(pts, R, go, e, &lo))
        return 0;
    uint64_t acc[BC_XL] = {0};
    for (int64_t i = R->start[e]; i < R->start[e + 1]; i++) {
        const bc_entry *en = &R->ent[i];
        const bc_point *pt = &pts[en->pix];
        double g = go[en->pix];
        uint64_t r[5];
        int ex;
        bool neg;
        if (en->kx != 4 && en->ky != 4 && xexp(pt, en, g, &ex)) {
            xterm(pt, en, g, r, &neg);
            limbs_add_shifted(acc, r, 5, ex - lo, neg);
        }
    }
    bool neg = acc[BC_XL - 1] >> 63;
    for (int i = 0, c = 1; neg && i < BC_XL; i++) { /* the magnitude: −acc = ~acc + 1 */
        acc[i] = ~acc[i] + (uint64_t)c;
        c = c && acc[i] == 0;
    }
    int n = BC_XL;
    while (n > 0 && acc[n - 1] == 0)
        n--;
    if (n == 0) /* an exact 0: no term (ref_finish_mpfr_sum's (+0, +0)) */
        return 1;
    mpfr_ptr t = bc_term(T, 64 * BC_XL);
    if (!t)
        return -1;
    mpz_t z;
    mpz_roinit_n(z, (const mp_limb_t *)acc, neg ? -n : n);
    mpfr_set_z_2exp(t, z, lo, MPFR_RNDN); /* exact: at most 64·BC_XL bits */
    return 1;
}

/* The element's value, bound and flags from its sums S (v zeroed but nops and nterms): 1 when
 * the fast sum decided it, 0 MPFR (T's terms), −1 out of memory. */
static int dx_finish(const bc_ctx *X, const bc_point *pts, const bc_reach *R, const double *go,
                     int64_t e, bc_terms *T, dx_sums *S, ref_value *v, uint8_t *fl, double *ival)
{
    const ref_grid_params *p = X->p;
    T->n = 0;
    bool decided = bc_fast_done(&S->F, v);
    int x = decided ? 1 : X->force ? 0 : dx_exact_sum(pts, R, go, e, T); /* force: MPFR's */
    if (x < 0 || (x == 0 && dx_terms(pts, R, go, e, T) != 0))
        return -1;
    double sabs = S->sabs, cerr = S->cerr;
    if (isnan(sabs + cerr)) /* ∞·0 of an overflowing |g|·w and a zero weight */
        sabs = cerr = INFINITY;
    bc_dx_sum sum_of = {pts, R, go, e};
    double k = 1 + (double)(v->nterms + 8) * 0x1p-52;
    ref_set_sum_abs(v, sabs, k, dx_sabs_scaled, &sum_of);
    v->coord_err = cerr * k;
    v->under_mag = bc_under_grow(S->under, v->nterms + 8); /* S->under·k */
    bc_finish(T, v, fl, S->unsure, X->ovf, 0, decided);
    double off;
    if (R->unres[e] && !(*fl & REF_FLAG_UNCHECKABLE)) {
        /* an unresolved point's taps may reach it: a finite value is judged within an
         * interval; a non-finite class stays when those points' gradients are finite */
        bool ok = dx_interval(R, go, p->w_in, e, &off) && isfinite(off);
        if (!ok || (!(*fl & REF_FLAG_NONFINITE) && !ival)) {
            *fl |= REF_FLAG_UNCHECKABLE;
        } else if (!(*fl & REF_FLAG_NONFINITE) && !isfinite(v->hi)) {
            /* finite past the double range: no interval of doubles around it; ±inf stays the
             * answer where every branch overflows too (its excess lo, beyond twice a device's
             * error, more than twice the other branches' reach), else any double may be legal */
            if (!(fabs(v->lo) > 2 * off))
                *fl |= REF_FLAG_UNCHECKABLE;
        } else if (!(*fl & REF_FLAG_NONFINITE)) {
            *fl |= REF_FLAG_INTERVAL | (ref_sum_abs_real(v) + off > X->ovf / 4 ? REF_FLAG_RANGE : 0);
            ival[0] = -off;
            ival[1] = off;
        }
    }
    return decided;
}

static const double *dx_go(const bc_ctx *X, int64_t n, int64_t c)
{
    return X->go + (n * X->p->c + c) * X->p->h_out * X->p->w_out;
}

static void dx_start(ref_value *v, uint8_t *fl, int64_t nterms)
{
    memset(v, 0, sizeof *v);
    *fl = 0;
    v->nops = 2;
    v->nterms = nterms;
}

/* 1 when the fast path decided it, 0 MPFR, −1 out of memory (GRID_CLONES: dgrid_point). */
GRID_CLONES
int bc_dx_element(const bc_ctx *X, const bc_point *pts, const bc_reach *R, int64_t n,
                  int64_t c, int64_t e, bc_terms *T, ref_value *v, uint8_t *fl, double *ival)
{
    const double *go = dx_go(X, n, c);
    dx_start(v, fl, R->start[e + 1] - R->start[e]);
    dx_sums S = {.F = {.ok = !X->force}};
    for (int64_t i = R->start[e]; i < R->start[e + 1]; i++) {
        const bc_entry *en = &R->ent[i];
        double g = go[en->pix], ag = fabs(g);
        bool gx = en->kx == 4, gy = en->ky == 4;
        if (!isfinite(g)) {
            const bc_axis *ax = &pts[en->pix].ax[0], *ay = &pts[en->pix].ax[1];
            S.unsure = S.unsure || ax->unres || ay->unres ||
                       bc_class_unsure(isnan(g), 1, en->wx, ax->ew, gx, en->wy, ay->ew, gy,
                                       X->tiny);
            S.F.ok = false;
        } else {
            S.sabs += ag * en->wx * en->wy;
            S.cerr += ag * en->q;
            S.under += dx_under(ag);
        }
        if (!gx && !gy) /* a ghost adds to the bound only */
            S.F.ok = S.F.ok && en->dd, fast_add(&S.F, en->w, g);
    }
    return dx_finish(X, pts, R, go, e, T, &S, v, fl, ival);
}

/* ---- BC_LANES channels at once (grid_bicubic_dx_lanes.h: 8 lanes a vector, or 4) ---- */

/* Each lane's dx_sums: its bound data, its fast sum F.a as sh + sl within err, F.ok as ok (−1
 * true, 0 false) and F.nonzero as nz; bad: a non-finite g */
typedef struct { bcv sabs, cerr, under, sh, sl, err; bcvi ok, nz, bad; } dx_lanes_sums;

#define BCW 8
#include "grid_bicubic_dx_lanes.h"
#undef BCW
#define BCW 4
#include "grid_bicubic_dx_lanes.h"
#undef BCW

int bc_lanes_width;
bool bc_lanes_wide(void) { return grid_lanes_wide(bc_lanes_width); }

/* bc_dx_lanes' answers where every one of its BC_LANES lanes is the common case: every g
 * finite, the fast sum usable (a term, none out of its range) and decided by dxw_decide, Σ|terms|
 * within the double range, and no unresolved point reaching element e. Then each lane's value
 * is what dx_start and dx_finish store (hi and lo as ref_decide gives them, the bound data by the
 * same operations, flags 0 or bc_finish's REF_FLAG_RANGE), made as vectors and stored as one
 * 64-byte row a lane (dx_finish was a third of bicubic's dx). Else false, nothing written. */
_Static_assert(BC_LANES == DXW, "a lane group is one dxw");
__attribute__((noinline)) GRID_V4 static bool dx_lanes_plain(const bc_reach *R,
                                                             const dx_lanes_sums *L, double ovf,
                                                             int64_t e, ref_value *v,
                                                             uint8_t *fl, int64_t stride)
{
    if (R->unres[e])
        return false;
    int64_t nt = R->start[e + 1] - R->start[e];
    double k = 1 + (double)(nt + 8) * 0x1p-52, j = (double)(nt + 8);
    dxw hi, lo, s = L->sabs * k, sc = L->sabs + L->cerr;
    dxwi dec, known;
    dxw_decide(&L->sh, &L->sl, &L->err, &hi, &lo, &dec, &known);
    dxwi odd = ~(~L->bad & L->ok & (L->nz > 0) & known & dec & (s <= DBL_MAX) & (sc == sc));
    if (dxw_any(&odd))
        return false;
    dxw ce = L->cerr * k, u = L->under;
    /* bc_under_grow: u itself where subnormal and its bits times j stay under 2^51 */
    dxwi keep = (u < 0x1p-1022) & (__builtin_convertvector((dxwi)u, dxw) * j < 0x1p51);
    dxw um = (dxw)(((dxwi)u & keep) | ((dxwi)(u * (1 + j * 0x1p-52)) & ~keep));
    dxwi range = (s + ce) * (1 + 0x1p-20) > ovf;
    /* nops 2 and sum_exp 0 as one 64-bit lane (little-endian: dx_finish4's layout asserts) */
    const dxw f[8] = {hi, lo, s, (dxw)((dxwi){0} + nt), (dxw)((dxwi){0} + 2), ce, (dxw){0}, um};
    dxw_store_values(f, v, stride);
    for (int l = 0; l < BC_LANES; l++)
        fl[l * stride] = range[l] ? REF_FLAG_RANGE : 0;
    return true;
}

int bc_dx_lanes(const bc_ctx *X, const bc_point *pts, const bc_reach *R, const double *gt,
                int64_t cs, int64_t n, int64_t c, int nl, int64_t e, bc_terms *T, ref_value *v,
                uint8_t *fl, double *ival, int64_t stride)
{
    /* each lane's answer is a cache line of its own plane (the chunk's megabytes are past L2):
     * its ownership asked for now, during the sums, not waited for by the stores after them */
    for (int l = 0; l < nl; l++)
        __builtin_prefetch(&v[l * stride], 1);
    dx_lanes_sums L;
    if (bc_lanes_wide())
        dx_lanes_sum_w8(X, R, gt + c, cs, e, &L);
    else
        dx_lanes_sum_w4(X, R, gt + c, cs, e, &L);
    /* dx_lanes_plain is AVX-512 code where GRID_HAS_V4, else the build's own target's */
    if (nl == BC_LANES && (!GRID_HAS_V4 || grid_v4_cpu()) &&
        dx_lanes_plain(R, &L, X->ovf, e, v, fl, stride))
        return BC_LANES;
    int hits = 0;
    for (int l = 0; l < nl; l++) {
        int64_t o = l * stride;
        double *iv = ival ? ival + 2 * o : NULL;
        int r;
        if (L.bad[l]) {
            r = bc_dx_element(X, pts, R, n, c + l, e, T, &v[o], &fl[o], iv);
        } else {
            dx_sums S = {L.sabs[l], L.cerr[l], L.under[l], false,
                         {{{L.sh[l], L.sl[l]}, L.err[l]}, L.ok[l] != 0, L.nz[l]}};
            dx_start(&v[o], &fl[o], R->start[e + 1] - R->start[e]);
            r = dx_finish(X, pts, R, dx_go(X, n, c + l), e, T, &S, &v[o], &fl[o], iv);
        }
        if (r < 0)
            return -1;
        hits += r;
    }
    return hits;
}
