/* grid_grad of four grid points at once, a point a vector lane (see below). */
#include "grid_values.h"

/* ---- dgrid, four points at once ----
 * grid_dgrid_point's common case: a point with one outcome per axis, lean data (grid_dgrid_lean) and
 * weights of one double each. Lanes are points: each lane makes dgrid_fill's lean sums
 * operation for operation, in its order (channel, then corner), so the bound fields are bitwise
 * the scalar ones; where the scalar code skips a term a lane adds +0, which leaves a sum of
 * magnitudes (from +0) as it is. The value Σ_k S_k·(w_k·sgn_k·scale) is summed from exact
 * double terms (Dekker's products: no FMA on either target) and decided by ref_decide, which
 * answers the exact value's (hi, lo) however it was approximated. A lane outside the range where
 * those products are exact, or undecided, takes grid_dgrid_point. */

/* -1 where x is 0 or of magnitude within [2^-400, 2^400] */
#define DXV_MID(x) (((x) == 0) | ((DXV_ABS(x) >= 0x1p-400) & (DXV_ABS(x) <= 0x1p400)))

#define DXV_KEEP(x, m) ((dxv)((dxvi)(x) & ~(m))) /* x, or +0 where m is set */

/* What a lane group reads: per lane its point, gather data (corners, components) and where its
 * gradOutput and corner values lie. */
typedef struct {
    int n;                    /* live lanes; the others repeat lane 0 */
    int64_t pix[DXL];
    dgrid_gather D[DXL];
    const double *gb[DXL], *vb[4][DXL];
} dlanes;

/* Whether point pt takes the lanes: then D holds its corners and components. */
static bool dgrid_lane_ok(const gctx *G, const batch_view *bv, const gpoint *pt,
                          dgrid_gather *D)
{
    if (pt->out || pt->unres || G->p->interpolation != REF_INTERP_BILINEAR || pt->ax[0].n != 1 ||
        pt->ax[1].n != 1)
        return false;
    const grid_outcome *ox = &pt->ax[0].o[0], *oy = &pt->ax[1].o[0];
    if (ox->dd_inexact || oy->dd_inexact || ox->d0.lo != 0 || ox->d1.lo != 0 || oy->d0.lo != 0 ||
        oy->d1.lo != 0)
        return false;
    D->nc = corners(G->p, ox, oy, D->cs);
    grid_dgrid_comp_init(G, pt, ox, oy, D, 0, &D->comp[0]);
    grid_dgrid_comp_init(G, pt, ox, oy, D, 1, &D->comp[1]);
    return grid_dgrid_lean(G, bv, D);
}

/* The lanes' per-component constants: weight and masks per corner (skipped: no mag or sabs
 * term; cskip: no coordinate term), scale, max(1, |scale|), δ·sens, |scale|·δ·sens. */
typedef struct {
    dxv w[4], sc[4], scale, mscale, dl, sdl;
    dxvi skip[4], cskip[4];
    int64_t nt[DXL];          /* terms counted (not skipped) */
} dlane_comp;

/* Lane j's value E(j) of four lanes: q's vectors built in registers and stored whole (the loops
 * load them as vectors, which a lane-by-lane store cannot forward: it stalled each load) */
#define DLANES4(E) {E(0), E(1), E(2), E(3)}
#define DL_SCALE(j) d[j]->scale
#define DL_MSCALE(j) d[j]->mscale
#define DL_DL(j) d[j]->dl
#define DL_SDL(j) (fabs(d[j]->scale) * d[j]->dl)
#define DL_IN(j) (k < L->D[j].nc)
#define DL_W(j) (DL_IN(j) ? d[j]->wk[k]->hi : 0)
#define DL_SC(j) (DL_IN(j) ? d[j]->sgn[k] * d[j]->scale : 0)
#define DL_SKIP(j) (!DL_IN(j) || d[j]->skip[k] ? -1 : 0)
#define DL_CSKIP(j) (DL_SKIP(j) || !(d[j]->dl > 0) ? -1 : 0)

static void dlane_comp_of(const dlanes *L, int comp, int64_t C, dlane_comp *q)
{
    _Static_assert(DXL == 4, "DLANES4");
    const dgrid_comp *d[DXL];
    for (int j = 0; j < DXL; j++) {
        d[j] = &L->D[j].comp[comp];
        q->nt[j] = 0;
    }
    q->scale = (dxv)DLANES4(DL_SCALE);
    q->mscale = (dxv)DLANES4(DL_MSCALE);
    q->dl = (dxv)DLANES4(DL_DL);
    q->sdl = (dxv)DLANES4(DL_SDL);
    for (int k = 0; k < 4; k++) {
        q->w[k] = (dxv)DLANES4(DL_W);
        q->sc[k] = (dxv)DLANES4(DL_SC);
        q->skip[k] = (dxvi)DLANES4(DL_SKIP);
        q->cskip[k] = (dxvi)DLANES4(DL_CSKIP);
        for (int j = 0; j < DXL; j++)
            q->nt[j] += DL_SKIP(j) ? 0 : C;
    }
}

/* Whether a lane of q skips a term of some corner (a magnitude or coordinate term). */
static bool dlane_masked(const dlane_comp q[2])
{
    dxvi any = {0, 0, 0, 0};
    for (int comp = 0; comp < 2; comp++)
        for (int k = 0; k < 4; k++)
            any |= q[comp].skip[k] | q[comp].cskip[k];
    return dxv_any(&any);
}

/* Whether both components of every lane skip the same corners' magnitude and |term| (the
 * corners outside the input, as a point near the edge under zeros padding has): the pow2 loop
 * then sums one set of magnitudes for both, masked. */
static bool dlane_same_skips(const dlane_comp q[2])
{
    dxvi diff = {0, 0, 0, 0};
    for (int k = 0; k < 4; k++)
        diff |= q[0].skip[k] ^ q[1].skip[k];
    return !dxv_any(&diff);
}

/* Whether every lane's |scale| of both components is a power of two 2^k, k ≥ 0 (the bench's
 * size/2 = 32 is), with |scale|·δ·sens finite: then a product by |scale| is exact, and so is
 * each partial sum of such products: a sum of scaled terms is the scaled sum (its roundings
 * scale too, the data being lean: no overflow; a sum of nonnegative doubles in the subnormal
 * range is exact), and RN(|vg·scale|·dl) = RN(|vg|·(|scale|·dl)). */
static bool dlane_pow2(const dlane_comp q[2])
{
    typedef uint64_t dxvu __attribute__((vector_size(DXL * sizeof(double))));
    const dxv inf = {INFINITY, INFINITY, INFINITY, INFINITY};
    dxvi bad = {0, 0, 0, 0};
    for (int comp = 0; comp < 2; comp++) {
        dxvu b = (dxvu)DXV_ABS(q[comp].scale), e = b >> 52;
        bad |= (dxvi)((b & 0xfffffffffffff) != 0) | (dxvi)(e < 1023) | (dxvi)(e > 2046) |
               ~(q[comp].sdl < inf);
    }
    return !dxv_any(&bad);
}

/* The lanes' sums over the channels: per corner S_k = Σ val·g (s + c, dropped error e), per
 * component Σ of the magnitude, |term| and coordinate term as dgrid_fill's lean pass. Without
 * `masked` no lane skips a term (dlane_comp's masks all 0): a loop without them. With pow2
 * (dlane_pow2, and where masked dlane_same_skips) the magnitudes max(1, |val|)·max(1, |g|) are
 * summed once for both components and the |terms| before the scale, both scaled at the end (the
 * same doubles; a skipped term adds +0).
 * With unscaled the magnitudes are summed unscaled (grid_under_round), odd set where a lane's
 * may differ (grid_under_mul); under is their final value, as dlane_write stores it. With unit
 * (pow2 and unscaled, every |val| and |g| at most 1: grid_batch_unit) each magnitude is 1·1, which
 * rounds to itself, so their sum, exact, is the count of terms not skipped (dlane_comp's nt, 4·C
 * unmasked): set, not summed. */
typedef struct { dxv s[4], c[4], e[4], mag[2], sabs[2], cerr[2], under[2]; dxvi odd; } dlane_sums;

/* dlanes_fill's end, after the loop over the channels: the magnitudes' sum set where it is the
 * count (!mags), the pow2 loop's sums scaled, the magnitudes' final values. */
static inline __attribute__((always_inline)) void
dlanes_tail(const dlane_comp q[2], bool pow2, bool unscaled, bool mags, dlane_sums *r)
{
    for (int j = 0; j < DXL && !mags; j++) /* the terms not skipped: 4·C unmasked */
        r->mag[0][j] = (double)q[0].nt[j];
    for (int comp = 1; comp >= 0 && pow2; comp--) { /* mag[0] last: mag[1] scales its sum */
        if (unscaled)
            grid_under_mul(&r->mag[0], &q[comp].mscale, &r->mag[comp], &r->odd);
        else
            r->mag[comp] = r->mag[0] * q[comp].mscale;
        r->sabs[comp] *= DXV_ABS(q[comp].scale);
    }
    for (int comp = 0; comp < 2; comp++)
        if (unscaled)
            grid_under_final(&r->mag[comp], &r->under[comp]);
        else
            r->under[comp] = r->mag[comp] * (1 + 0x1p-40);
}

static inline __attribute__((always_inline)) void
dlanes_fill(const dlanes *L, const dlane_comp q[2], int64_t C, int64_t go_cs, int64_t in_cs,
            bool masked, bool pow2, bool unscaled, bool unit, dlane_sums *r)
{
    const dxv one = {1, 1, 1, 1};
    bool mags = !(pow2 && unscaled && unit); /* the magnitudes summed term by term */
    memset(r, 0, sizeof *r);
    for (int64_t c = 0; c < C; c++) {
        int64_t ag_ = c * go_cs, at = c * in_cs;
        dxv g = {L->gb[0][ag_], L->gb[1][ag_], L->gb[2][ag_], L->gb[3][ag_]};
        dxv mg = one;
        if (mags) {
            dxv ag = DXV_ABS(g);
            dxvi gsmall = ag < one; /* ref_fmax(1, |g|) */
            mg = (dxv)(((dxvi)one & gsmall) | ((dxvi)ag & ~gsmall));
            if (unscaled)
                grid_under_round(&mg);
            else
                mg *= REF_UNDER_SCALE;
        }
#pragma GCC unroll 4
        for (int k = 0; k < 4; k++) {
            dxv val = {L->vb[k][0][at], L->vb[k][1][at], L->vb[k][2][at], L->vb[k][3][at]};
            dxv vg = val * g, gm = one;
            dxv_exact_add(&r->s[k], &r->c[k], &r->e[k], &vg);
            if (mags) {
                dxv aval = DXV_ABS(val);
                dxvi big = aval >= one;
                gm = (dxv)(((dxvi)aval & big) | ((dxvi)one & ~big)) * mg;
                if (unscaled) /* plain data: two factors of at most 26 bits, an exact product */
                    grid_under_round(&gm);
            }
            if (pow2) { /* masked: both components skip the same terms (dlane_same_skips) */
                if (mags)
                    r->mag[0] += masked ? DXV_KEEP(gm, q[0].skip[k]) : gm;
#pragma GCC unroll 2
                for (int comp = 0; comp < 2; comp++) {
                    dxv ats = DXV_ABS(val * (g * q[comp].w[k])), vgs = DXV_ABS(vg) * q[comp].sdl;
                    if (masked) {
                        ats = DXV_KEEP(ats, q[comp].skip[k]);
                        vgs = DXV_KEEP(vgs, q[comp].cskip[k]);
                    }
                    r->sabs[comp] += ats;
                    r->cerr[comp] += vgs;
                }
                continue;
            }
#pragma GCC unroll 2
            for (int comp = 0; comp < 2; comp++) {
                dxv t = val * (g * q[comp].w[k]);
                dxv ats = DXV_ABS(t * q[comp].scale), gms;
                if (unscaled)
                    grid_under_mul(&gm, &q[comp].mscale, &gms, &r->odd);
                else
                    gms = gm * q[comp].mscale;
                dxv vgs = DXV_ABS(vg * q[comp].scale) * q[comp].dl;
                if (masked) {
                    gms = DXV_KEEP(gms, q[comp].skip[k]);
                    ats = DXV_KEEP(ats, q[comp].skip[k]);
                    vgs = DXV_KEEP(vgs, q[comp].cskip[k]);
                }
                r->mag[comp] += gms;
                r->sabs[comp] += ats;
                r->cerr[comp] += vgs;
            }
        }
    }
    dlanes_tail(q, pow2, unscaled, mags, r);
}

/* dlanes_fill unscaled, the case's loop chosen; where a lane's magnitudes may differ from the
 * scaled ones (odd, or past the double range unscaled) the whole group again scaled (masked
 * with no mask set adds what the unmasked loops do, pow2 or not). */
static inline __attribute__((always_inline)) void
dlanes_redo(const dlanes *L, const dlane_comp q[2], int64_t C, int64_t go_cs, int64_t in_cs,
            dlane_sums *r)
{
    const dxv inf = {INFINITY, INFINITY, INFINITY, INFINITY};
    dxvi redo = r->odd | ~(r->mag[0] < inf) | ~(r->mag[1] < inf);
    if (dxv_any(&redo))
        dlanes_fill(L, q, C, go_cs, in_cs, true, false, false, false, r);
}

static inline __attribute__((always_inline)) void
dlanes_sums(const dlanes *L, const dlane_comp q[2], int64_t C, int64_t go_cs, int64_t in_cs,
            bool unit, dlane_sums *r)
{
    bool masked = dlane_masked(q), pow2 = dlane_pow2(q);
    if (masked && pow2 && dlane_same_skips(q) && unit)
        dlanes_fill(L, q, C, go_cs, in_cs, true, true, true, true, r);
    else if (masked && pow2 && dlane_same_skips(q))
        dlanes_fill(L, q, C, go_cs, in_cs, true, true, true, false, r);
    else if (masked)
        dlanes_fill(L, q, C, go_cs, in_cs, true, false, true, false, r);
    else if (pow2 && unit)
        dlanes_fill(L, q, C, go_cs, in_cs, false, true, true, true, r);
    else if (pow2)
        dlanes_fill(L, q, C, go_cs, in_cs, false, true, true, false, r);
    else
        dlanes_fill(L, q, C, go_cs, in_cs, false, false, true, false, r);
    dlanes_redo(L, q, C, go_cs, in_cs, r);
}

/* ---- two lane groups at once ----
 * dlanes_fill's pow2 loop (unscaled) on eight lanes, group h's lane l in lane 4h + l: one
 * AVX-512 register where the four-lane loop filled half of one (the channel loop's instructions
 * two fifths fewer for eight points). Each lane makes the same operations on the same values in
 * the same order, so r[h] is bitwise what dlanes_fill gives group h. masked: a lane of either
 * group skips a term; the other group's masks are 0, which keep every term, as the unmasked
 * loop adds them. Only the magnitudes take masks: the |terms| and coordinate terms skip by a
 * weight or δ·sens of +0 (dlanes_fill8_consts), so with unit the loop is the unmasked one. */
#define DXW_KEEP(x, m) ((dxw)((dxwi)(x) & ~(m)))
#define DXW_CAT(a, b) __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7)
#define DXW_HALF(x, h)                                                                             \
    ((h) ? __builtin_shufflevector(x, x, 4, 5, 6, 7) : __builtin_shufflevector(x, x, 0, 1, 2, 3))

/* dlanes_fill8's constants, both groups side by side: the weights and δ·sens per corner, each +0
 * where a lane skips that term (its |term| or coordinate term), and the magnitudes' masks
 * (skip[k]: both components skip the same, dlane_same_skips). The lean data's terms are finite,
 * so a skipped term is +0 |val·(g·0)| or |vg|·0, as a masked one is: the loop needs no masks. */
static inline __attribute__((always_inline)) void
dlanes_fill8_consts(const dlane_comp *q[2], dxw w[2][4], dxw sdl[2][4], dxwi skip[4])
{
    for (int comp = 0; comp < 2; comp++)
        for (int k = 0; k < 4; k++) {
            dxwi m = DXW_CAT(q[0][comp].skip[k], q[1][comp].skip[k]);
            dxwi cm = DXW_CAT(q[0][comp].cskip[k], q[1][comp].cskip[k]);
            w[comp][k] = DXW_KEEP(DXW_CAT(q[0][comp].w[k], q[1][comp].w[k]), m);
            sdl[comp][k] = DXW_KEEP(DXW_CAT(q[0][comp].sdl, q[1][comp].sdl), cm);
            if (comp == 0)
                skip[k] = m;
        }
}

/* dlanes_fill8's sums, eight lanes each */
typedef struct { dxw s[4], c[4], e[4], mag, sabs[2], cerr[2]; } dlanes8_acc;

/* One channel of dlanes_fill8: g its gradOutput and val[k] corner k's values, lane by lane */
static inline __attribute__((always_inline)) void
dlanes8_chan(const dxw *gp, const dxw val[4], const dxw w[2][4], const dxw sdl[2][4],
             const dxwi skip[4], bool masked, bool unit, dlanes8_acc *a)
{
    const dxw one = (dxw){0} + 1, g = *gp;
    dxw mg = one;
    if (!unit) {
        dxw ag = DXW_ABS(g);
        dxwi gsmall = ag < one; /* ref_fmax(1, |g|) */
        mg = (dxw)(((dxwi)one & gsmall) | ((dxwi)ag & ~gsmall));
        grid_under_round_w(&mg);
    }
#pragma GCC unroll 4
    for (int k = 0; k < 4; k++) {
        dxw vg = val[k] * g;
        dxw_exact_add(&a->s[k], &a->c[k], &a->e[k], &vg);
        if (!unit) {
            dxw aval = DXW_ABS(val[k]);
            dxwi big = aval >= one;
            dxw gm = (dxw)(((dxwi)aval & big) | ((dxwi)one & ~big)) * mg;
            grid_under_round_w(&gm);
            a->mag += masked ? DXW_KEEP(gm, skip[k]) : gm;
        }
#pragma GCC unroll 2
        for (int comp = 0; comp < 2; comp++) { /* a skipped term +0: w or sdl +0 */
            a->sabs[comp] += DXW_ABS(val[k] * (g * w[comp][k]));
            a->cerr[comp] += DXW_ABS(vg) * sdl[comp][k];
        }
    }
}

/* Channels c0 .. c0 + 7 of eight lanes whose channels lie side by side (lane j's at p[j] + c0 ..
 * c0 + 7): out[i] channel c0 + i, lane by lane. Eight 64-byte loads and an 8×8 transpose in
 * registers (24 shuffles), where building each channel's vector from eight scalar loads took 7
 * shuffles and the eight pointers' reloads from the stack. */
static inline __attribute__((always_inline)) void dxw_rows8(const double *const p[8], int64_t c0,
                                                           dxw out[8])
{
    dxw x[8], t[8], u[8];
    for (int j = 0; j < 8; j++)
        memcpy(&x[j], p[j] + c0, sizeof x[j]);
    for (int i = 0; i < 8; i += 2) { /* pairs of rows interleaved: even and odd channels */
        t[i] = __builtin_shufflevector(x[i], x[i + 1], 0, 8, 2, 10, 4, 12, 6, 14);
        t[i + 1] = __builtin_shufflevector(x[i], x[i + 1], 1, 9, 3, 11, 5, 13, 7, 15);
    }
    for (int i = 0; i < 8; i += 4) /* four rows: u[i + m] channels m and m + 4 */
        for (int m = 0; m < 2; m++) {
            u[i + m] = __builtin_shufflevector(t[i + m], t[i + m + 2], 0, 1, 8, 9, 4, 5, 12, 13);
            u[i + m + 2] = __builtin_shufflevector(t[i + m], t[i + m + 2], 2, 3, 10, 11, 6, 7, 14,
                                                   15);
        }
    for (int m = 0; m < 4; m++) { /* rows 0-3 and 4-7 of channel m, then of m + 4 */
        out[m] = __builtin_shufflevector(u[m], u[m + 4], 0, 1, 2, 3, 8, 9, 10, 11);
        out[m + 4] = __builtin_shufflevector(u[m], u[m + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    }
}

/* Element i of eight lanes (lane j's at p[j] + i) into *x (vectors by address: no 64-byte
 * vector in the ABI) */
static inline __attribute__((always_inline)) void dxw_at8(const double *const p[8], int64_t i,
                                                         dxw *x)
{
    *x = (dxw){p[0][i], p[1][i], p[2][i], p[3][i], p[4][i], p[5][i], p[6][i], p[7][i]};
}

static inline __attribute__((always_inline)) void
dlanes_fill8(const dlanes *L[2], const dlane_comp *q[2], int64_t C, int64_t go_cs, int64_t in_cs,
             bool masked, bool unit, dlane_sums r[2])
{
    dxw w[2][4], sdl[2][4];
    dxwi skip[4];
    dlanes8_acc a;
    const double *gb[8], *vb[4][8];
    memset(&a, 0, sizeof a);
    dlanes_fill8_consts(q, w, sdl, skip);
    for (int j = 0; j < 8; j++) {
        gb[j] = L[j / 4]->gb[j % 4];
        for (int k = 0; k < 4; k++)
            vb[k][j] = L[j / 4]->vb[k][j % 4];
    }
    for (int64_t ch = 0, n; ch < C; ch += n) {
        dxw g[8], val[4][8];
        n = go_cs == 1 && in_cs == 1 && ch + 8 <= C ? 8 : 1; /* channel-innermost copies */
        if (n == 8) {
            dxw_rows8(gb, ch, g);
            for (int k = 0; k < 4; k++)
                dxw_rows8(vb[k], ch, val[k]);
        } else {
            dxw_at8(gb, ch * go_cs, &g[0]);
            for (int k = 0; k < 4; k++)
                dxw_at8(vb[k], ch * in_cs, &val[k][0]);
        }
        for (int i = 0; i < n; i++) {
            dxw v[4] = {val[0][i], val[1][i], val[2][i], val[3][i]};
            dlanes8_chan(&g[i], v, w, sdl, skip, masked, unit, &a);
        }
    }
    for (int h = 0; h < 2; h++) {
        memset(&r[h], 0, sizeof r[h]);
        for (int k = 0; k < 4; k++) {
            r[h].s[k] = DXW_HALF(a.s[k], h);
            r[h].c[k] = DXW_HALF(a.c[k], h);
            r[h].e[k] = DXW_HALF(a.e[k], h);
        }
        r[h].mag[0] = DXW_HALF(a.mag, h);
        for (int comp = 0; comp < 2; comp++) {
            r[h].sabs[comp] = DXW_HALF(a.sabs[comp], h);
            r[h].cerr[comp] = DXW_HALF(a.cerr[comp], h);
        }
        dlanes_tail(q[h], true, true, !unit, &r[h]);
    }
}


/* Component q's value per lane from the sums: Σ_k (s_k + c_k)·(w_k·sc_k) as sixteen exact
 * doubles summed error-free into (*s, *c), with *err bounding the distance to the exact value
 * (the sums' dropped errors e_k scaled, the final sum's own); *ok -1 where a lane's products
 * are all exact. */
static inline __attribute__((always_inline)) void
dlanes_value(const dlane_sums *r, const dlane_comp *q, dxv *s, dxv *c, dxv *err, dxvi *ok)
{
    const dxv zero = {0, 0, 0, 0};
    dxv es = zero;
    *ok = ~(dxvi){0, 0, 0, 0};
    *s = *c = *err = zero;
    for (int k = 0; k < 4; k++) {
        dxv ws = q->w[k] * q->sc[k], wse, t[4];
        dxv_prod_err(&q->w[k], &q->sc[k], &ws, &wse);
        *ok &= DXV_MID(q->w[k]) & DXV_MID(q->sc[k]) & DXV_MID(ws) & (wse == 0);
        /* S_k as the pair (hi, lo) = two_sum(s_k, c_k) */
        dxv h = r->s[k] + r->c[k], hb = h - r->s[k];
        dxv l = (r->s[k] - (h - hb)) + (r->c[k] - hb);
        *ok &= DXV_MID(h) & DXV_MID(l);
        t[0] = h * ws;
        t[2] = l * ws;
        dxv_prod_err(&h, &ws, &t[0], &t[1]);
        dxv_prod_err(&l, &ws, &t[2], &t[3]);
        for (int i = 0; i < 4; i++)
            dxv_exact_add(s, c, err, &t[i]);
        es += r->e[k] * DXV_ABS(ws);
    }
    *err = (*err + es) * (1 + 0x1p-49); /* the products and sums of the bounds, rounded */
}

/* Lane j's component comp from its value (hi, lo): dgrid_value's other fields and range test
 * (pmax and pre being 0 on the lean pass). */
static void dlane_write(const gctx *G, const dlane_comp *q, const dlane_sums *r, int comp, int j,
                        double hi, double lo, ref_value *v, uint8_t *flags)
{
    int64_t nt = q->nt[j];
    double sabs = r->sabs[comp][j];
    *v = (ref_value){.hi = hi, .lo = lo, .sum_abs = sabs * (1 + (double)(nt + 6) * 0x1p-52),
                     .nterms = nt, .nops = 4, .coord_err = r->cerr[comp][j] * (1 + 0x1p-40),
                     .under_mag = r->under[comp][j]};
    if (sabs * (1 + 0x1p-40) > G->overflow_at)
        *flags |= REF_FLAG_RANGE;
}

/* L's lanes padded (a lane past L->n repeats lane 0), where their data lie, and both
 * components' constants into q. */
static void dlanes_setup(const gctx *G, const batch_view *bv, dlanes *L, dlane_comp q[2])
{
    for (int j = L->n; j < DXL; j++) {
        L->pix[j] = L->pix[0];
        L->D[j] = L->D[0];
    }
    for (int j = 0; j < DXL; j++) {
        const dgrid_gather *D = &L->D[j];
        L->gb[j] = bv->go + L->pix[j] * bv->go_is;
        for (int k = 0; k < 4; k++) /* absent corners read the batch's first value */
            L->vb[k][j] = k < D->nc ? bv->in + D->cs[k].e * bv->in_is : bv->in;
    }
    dlane_comp_of(L, 0, G->p->c, &q[0]);
    dlane_comp_of(L, 1, G->p->c, &q[1]);
}

/* dgrid of L's points into out (batch chunk) from their sums r; undecided lanes by
 * grid_dgrid_point. */
static inline __attribute__((always_inline)) int
dlanes_answer(const gctx *G, const batch_view *bv, const gpoint *pts, const dlanes *L,
              const dlane_comp q[2], const dlane_sums *r, int64_t n, mterms *mt, ref_output *out,
              ref_altlist *alts, int64_t *hits, int64_t *falls)
{
    dxv s[2], c[2], err[2], hi[2], lo[2];
    dxvi ok[2], dec[2], known[2];
    for (int comp = 0; comp < 2; comp++) {
        dlanes_value(r, &q[comp], &s[comp], &c[comp], &err[comp], &ok[comp]);
        dxv_decide(&s[comp], &c[comp], &err[comp], &hi[comp], &lo[comp], &dec[comp], &known[comp]);
    }
    for (int j = 0; j < L->n; j++) {
        double h[2], l[2];
        bool done = true;
        for (int comp = 0; comp < 2 && done; comp++) {
            h[comp] = hi[comp][j];
            l[comp] = lo[comp][j];
            done = ok[comp][j] && (known[comp][j] ? dec[comp][j] != 0
                                                  : ref_decide(ref_two_sum(s[comp][j], c[comp][j]),
                                                               err[comp][j], &h[comp], &l[comp]));
        }
        int64_t base = L->pix[j] * 2;
        if (!done) {
            if (grid_dgrid_point(G, bv, &pts[L->pix[j]], n, L->pix[j], mt, out, alts, hits, falls))
                return -1;
            continue;
        }
        for (int comp = 0; comp < 2; comp++)
            dlane_write(G, &q[comp], r, comp, j, h[comp], l[comp], &out->v[base + comp],
                        &out->flags[base + comp]);
        *hits += 2;
    }
    return 0;
}

/* dgrid of L's points into out (batch chunk); undecided lanes by grid_dgrid_point. */
GRID_CLONES static int dgrid_lanes(const gctx *G, const batch_view *bv, const gpoint *pts,
                                   dlanes *L, int64_t n, mterms *mt, ref_output *out,
                                   ref_altlist *alts, int64_t *hits, int64_t *falls)
{
    dlane_comp q[2];
    dlane_sums r;
    dlanes_setup(G, bv, L, q);
    dlanes_sums(L, q, G->p->c, bv->go_cs, bv->in_cs, grid_batch_unit(bv, true), &r);
    return dlanes_answer(G, bv, pts, L, q, &r, n, mt, out, alts, hits, falls);
}

/* dgrid_lanes of two groups (L[0] full), their sums eight lanes wide (dlanes_fill8) where each
 * group would take a pow2 loop (dlanes_sums), else group by group. */
GRID_CLONES static int dgrid_lanes2(const gctx *G, const batch_view *bv, const gpoint *pts,
                                    dlanes L[2], int64_t n, mterms *mt, ref_output *out,
                                    ref_altlist *alts, int64_t *hits, int64_t *falls)
{
    int64_t C = G->p->c, go_cs = bv->go_cs, in_cs = bv->in_cs;
    bool unit = grid_batch_unit(bv, true), wide = true, masked = false;
    dlane_comp q[2][2];
    dlane_sums r[2];
    for (int h = 0; h < 2; h++) {
        dlanes_setup(G, bv, &L[h], q[h]);
        bool m = dlane_masked(q[h]);
        wide = wide && dlane_pow2(q[h]) && (!m || dlane_same_skips(q[h]));
        masked = masked || m;
    }
    const dlanes *Lp[2] = {&L[0], &L[1]};
    const dlane_comp *qp[2] = {q[0], q[1]};
    if (wide && unit) /* no magnitudes: masked or not the same loop */
        dlanes_fill8(Lp, qp, C, go_cs, in_cs, false, true, r);
    else if (wide && masked)
        dlanes_fill8(Lp, qp, C, go_cs, in_cs, true, false, r);
    else if (wide)
        dlanes_fill8(Lp, qp, C, go_cs, in_cs, false, false, r);
    for (int h = 0; h < 2; h++) {
        if (wide)
            dlanes_redo(&L[h], q[h], C, go_cs, in_cs, &r[h]);
        else
            dlanes_sums(&L[h], q[h], C, go_cs, in_cs, unit, &r[h]);
    }
    for (int h = 0; h < 2; h++)
        if (dlanes_answer(G, bv, pts, &L[h], q[h], &r[h], n, mt, out, alts, hits, falls))
            return -1;
    return 0;
}

/* Whether dgrid's lanes take two groups at once (dgrid_lanes2): with AVX-512, where eight lanes
 * are one register and whole (grid_lanes_wide, as dx's sums). For AVX2 GCC splits them into
 * register pairs it moves through the stack (the x86-64-v3 clone of dgrid_lanes2 made 1.7 times
 * dgrid_lanes' instructions on the bench's grid case, valgrind), so there one group at a time. */
static bool dgrid_wide(void) { return grid_lanes_wide(ref_grid_dx_lanes); }

/* The lines of point pt's corner rows (D, from dgrid_lane_ok) asked for now: its lanes run when
 * their group is full, up to 2·DXL points later. Corners lie anywhere in the batch's input, so
 * those loads would otherwise wait on L2 or beyond (the lanes' loads were half their samples);
 * gradOutput's rows are read in point order, which the hardware prefetcher follows. */
static void dgrid_lane_prefetch(const batch_view *bv, const dgrid_gather *D, int64_t C)
{
    for (int k = 0; k < D->nc; k++) {
        const char *r = (const char *)(bv->in + D->cs[k].e * bv->in_is);
        for (int64_t b = 0; b < C * bv->in_cs * (int64_t)sizeof(double); b += 64)
            __builtin_prefetch(r + b);
    }
}

/* dgrid of points p0 .. p1 − 1 of batch n: the lanes where they apply (two groups at a time
 * where dgrid_wide), else grid_dgrid_point. */
int grid_dgrid_points(const gctx *G, const batch_view *bv, const gpoint *pts, int64_t n,
                      int64_t p0, int64_t p1, mterms *mt, ref_output *out, ref_altlist *alts,
                      int64_t *hits, int64_t *falls)
{
    dlanes L[2];
    int h = 0;
    bool wide = dgrid_wide();
    L[0].n = L[1].n = 0;
    for (int64_t pix = p0; pix < p1; pix++) {
        if (!dgrid_lane_ok(G, bv, &pts[pix], &L[h].D[L[h].n])) {
            if (grid_dgrid_point(G, bv, &pts[pix], n, pix, mt, out, alts, hits, falls))
                return -1;
            continue;
        }
        dgrid_lane_prefetch(bv, &L[h].D[L[h].n], G->p->c);
        L[h].pix[L[h].n++] = pix;
        if (L[h].n < DXL)
            continue;
        if (h == 0 && wide) {
            h = 1;
            continue;
        }
        if (wide ? dgrid_lanes2(G, bv, pts, L, n, mt, out, alts, hits, falls)
                 : dgrid_lanes(G, bv, pts, &L[0], n, mt, out, alts, hits, falls))
            return -1;
        L[0].n = L[1].n = 0;
        h = 0;
    }
    if (L[1].n)
        return dgrid_lanes2(G, bv, pts, L, n, mt, out, alts, hits, falls);
    return L[0].n && dgrid_lanes(G, bv, pts, &L[0], n, mt, out, alts, hits, falls) ? -1 : 0;
}
