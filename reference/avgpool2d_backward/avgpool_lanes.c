/* Four grad_input elements of a row at once: the fast path of avgpool2d_backward.c's
 * element_small for its common case (every value of the plane regular, one divisor per element,
 * Σg exact, the quotient decided directly), written over 4-lane vectors (GCC vector extensions:
 * four columns whose windows shift by one per lane load their terms as four consecutive values,
 * others gather them;
 * two SSE2 operations each, or one AVX2 operation in the AVX2 and x86-64-v4 clones). IEEE
 * addition, subtraction, multiplication and division round alike at any vector width, and
 * nothing here contracts into an FMA (ISO C mode contracts nothing; there are no fma() calls), so
 * each lane computes what the scalar code does, operation for operation: the answers are bitwise
 * element_small's.
 * Lanes the shortcut cannot decide are left to the caller. */
#include <stddef.h>
#include <string.h>

#include "avgpool_internal.h"

/* The helpers below pass vectors by value; they are inlined, so no call crosses the ABI the
 * warning is about. AVX2 and x86-64-v4 clones where GCC builds them (Clang refuses inlined
 * helpers of another target's vector ABI: its builds, the fuzzers', keep the one default
 * version; -DREF_NO_CLONES keeps it too, as grid_values.h says). The x86-64-v4 clone (AVX-512VL on the same 4-lane vectors) has 32 vector registers,
 * so a group's constants stay in registers, and 64-bit min/max and mask registers for
 * avgpool_plane_kind's compare-and-select; the same operations otherwise. */
#pragma GCC diagnostic ignored "-Wpsabi"
#if defined(__GNUC__) && !defined(__clang__) && !defined(REF_NO_CLONES)
#define LANES_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define LANES_CLONES
#endif

#define AI static inline __attribute__((always_inline))

typedef double v4d __attribute__((vector_size(32)));
typedef int64_t v4i __attribute__((vector_size(32)));
typedef uint64_t v4u __attribute__((vector_size(32)));

AI v4i bits4(v4d x)
{
    v4i u;
    memcpy(&u, &x, sizeof u);
    return u;
}
AI v4d dbl4(v4i u)
{
    v4d x;
    memcpy(&x, &u, sizeof x);
    return x;
}
/* ref_fast_exp per lane: -1 where true. On the bits of |x|: the biased exponent from
 * 1023 + REF_FAST_EMIN up to 0x7fe, no shift (AVX2 has no 64-bit arithmetic one). */
AI v4i fast_exp4(v4d x)
{
    const int64_t lo = (int64_t)(1023 + REF_FAST_EMIN) << 52, top = (int64_t)0x7ff << 52;
    v4i a = bits4(x) & INT64_MAX;
    return (a >= lo) & (a < top);
}

static int ceil_log2(uint64_t x) { return x > 1 ? 64 - __builtin_clzll(x - 1) : 0; }

AI v4d load4(const double *x)
{
    v4d v;
    memcpy(&v, x, sizeof v);
    return v;
}

/* What avgpool_plane_kind gathers over a plane, on the bits of |g| (ordered as |g| is; NaN
 * and ∞ above 2^15), per lane: values out of range, the OR of all (bits below a float32's 24
 * significant ones: its low 29), the least non-zero and the greatest. */
typedef struct { v4i bad, bits, lo, hi; } plane_acc;

AI void plane_add(plane_acc *P, v4d x)
{
    const int64_t big = 0x40e0000000000000, tiny = 0x0b00000000000000; /* 2^15, 2^-847 */
    v4i a = bits4(x) & INT64_MAX;
    P->bad |= (a >= big) | ((a != 0) & (a < tiny));
    P->bits |= a;
    v4i nz = a | ((a == 0) & INT64_MAX), below = nz < P->lo, above = a > P->hi;
    P->lo = (nz & below) | (P->lo & ~below);
    P->hi = (a & above) | (P->hi & ~above);
}

LANES_CLONES
int avgpool_plane_kind(const pool_ctx *C, int64_t plane)
{
    const ref_avgpool_params *p = C->p;
    int64_t n = p->oh * p->ow;
    const double *g = C->go + plane * n;
    const v4i zero = {0, 0, 0, 0};
    plane_acc P = {zero, zero, zero + INT64_MAX, zero};
    /* four at a time, the last four overlapping the others (values seen twice count once) */
    for (int64_t i = 0; n >= 4 && i < n; i += 4)
        plane_add(&P, load4(g + (i + 4 <= n ? i : n - 4)));
    for (int64_t i = 0; n < 4 && i < n; i++) /* a short plane: one value in every lane */
        plane_add(&P, (v4d){0, 0, 0, 0} + g[i]);
    int64_t bad = 0, bits = 0, lo = INT64_MAX, hi = 0;
    for (int k = 0; k < 4; k++) {
        bad |= P.bad[k];
        bits |= P.bits[k];
        lo = P.lo[k] < lo ? P.lo[k] : lo;
        hi = P.hi[k] > hi ? P.hi[k] : hi;
    }
    if (n <= 0 || bad)
        return PLANE_IRREGULAR;
    if (hi == 0)
        return PLANE_EXACT;
    /* at least ceil(log2) of the most terms an element has */
    int log2_terms = ceil_log2((uint64_t)C->T->h.cap) + ceil_log2((uint64_t)C->T->w.cap);
    bool exact = (bits & 0x1fffffff) == 0 && (hi >> 52) - (lo >> 52) + 1 + log2_terms <= 30 &&
                 (lo >> 52) - 1023 >= PLANE_EXACT_EMIN;
    return exact ? PLANE_EXACT : PLANE_REGULAR;
}

/* Term x into the sum *s (its two-sum error, when not 0, sets *bad; none when exact) and Σ|g|
 * *a. */
AI void add_term(v4d x, v4i absm, bool exact, v4d *s, v4d *a, v4i *bad)
{
    v4d t = *s + x, bb = t - *s;
    if (!exact)
        *bad |= ((*s - (t - bb)) + (x - bb)) != 0; /* ref_two_sum's error */
    *s = t;
    *a += dbl4(bits4(x) & absm);
}

/* The gradOutput rows of a row piece's windows along h: rows[i] = gp + wh[i].o·ow for the first
 * two (held here, where the answers' stores cannot alias them), the rest computed when used. */
typedef struct {
    const double *gp, *rows[2];
    const axis_win *wh;
    int nh;
    int64_t ow;
} h_rows;

AI const double *h_row(const h_rows *H, int i)
{
    return i < 2 ? H->rows[i] : H->gp + H->wh[i].o * H->ow;
}

/* The four terms row[o + k] (k < 4) of a group's last window o: of lanes 0..2 only, lane 3 −0
 * (short, AFF_SHORT), from the four values ending at row[o + 2], so nothing past lane 2's last
 * term is read (the row may end there); x + −0 = x, so the −0 changes no sum and no error. */
AI v4d last_terms(const double *row, int64_t o, bool short_last)
{
    if (!short_last)
        return load4(row + o);
    return __builtin_shufflevector(load4(row + o - 1), (v4d){-0.0, -0.0, -0.0, -0.0}, 1, 2, 3, 4);
}

/* Σ over the windows of columns c + k·sw (k < 4, c the piece's column G->k) in element_small's
 * order (h window, then w window) for an affine group G: term j of lane k is row[o_j + k], four
 * consecutive values (short: G->short_last). *s the sum, *a Σ|g|; lanes with a non-zero two-sum
 * error come back set. */
AI v4i sums_affine(const axis_tab *tw, const h_rows *H, bool exact, bool short_last,
                   const aff_group *G, int64_t c, v4d *s_out, v4d *a_out)
{
    const v4i absm = ~bits4((v4d){-0.0, -0.0, -0.0, -0.0});
    v4d s = {0, 0, 0, 0}, a = s;
    v4i bad = {0, 0, 0, 0};
    int nw = G->nw, nh = H->nh;
    if (nw <= 2) { /* the common windows: no inner loop, the first row apart */
        int64_t o0 = G->o0, o1 = G->o1;
        add_term(load4(H->rows[0] + o0), absm, exact, &s, &a, &bad); /* short: nw is 2 */
        if (nw == 2)
            add_term(last_terms(H->rows[0], o1, short_last), absm, exact, &s, &a, &bad);
        for (int i = 1; i < nh; i++) {
            const double *row = h_row(H, i);
            add_term(load4(row + o0), absm, exact, &s, &a, &bad);
            if (nw == 2)
                add_term(last_terms(row, o1, short_last), absm, exact, &s, &a, &bad);
        }
    } else {
        const axis_win *w0 = tw->w + c * tw->cap;
        for (int i = 0; i < nh; i++) {
            const double *row = h_row(H, i);
            for (int j = 0; j < nw - 1; j++)
                add_term(load4(row + w0[j].o), absm, exact, &s, &a, &bad);
            add_term(last_terms(row, w0[nw - 1].o, short_last), absm, exact, &s, &a, &bad);
        }
    }
    *s_out = s;
    *a_out = a;
    return bad;
}

/* The same for any four columns col[k] (each covered by a window): their terms gathered, each
 * lane's list padded to the table's cap with −0 (x + −0 = x in round-to-nearest, so a padded
 * term changes neither sum nor error; padded slots hold window 0, a valid load). */
AI v4i sums_gather(const ref_avgpool_params *p, const axis_tab *tw, const double *gp,
                   const axis_win *wh, int nh, const int64_t col[4], v4d *s_out, v4d *a_out)
{
    int64_t cap = tw->cap;
    const axis_win *w[4] = {tw->w + col[0] * cap, tw->w + col[1] * cap, tw->w + col[2] * cap,
                            tw->w + col[3] * cap};
    const v4i cnt = {tw->cnt[col[0]], tw->cnt[col[1]], tw->cnt[col[2]], tw->cnt[col[3]]};
    const v4i neg0 = bits4((v4d){-0.0, -0.0, -0.0, -0.0}), absm = ~neg0;
    v4d s = {0, 0, 0, 0}, a = s;
    v4i bad = {0, 0, 0, 0};
    for (int i = 0; i < nh; i++) {
        const double *row = gp + wh[i].o * p->ow;
        for (int64_t j = 0; j < cap; j++) {
            v4d x = {row[w[0][j].o], row[w[1][j].o], row[w[2][j].o], row[w[3][j].o]};
            v4i live = (v4i){j, j, j, j} < cnt;
            add_term(dbl4((bits4(x) & live) | (neg0 & ~live)), absm, false, &s, &a, &bad);
        }
    }
    *s_out = s;
    *a_out = a;
    return bad;
}

/* The second halves of four lanes' answers (nops 2, sum_exp, coord_err and under_mag 0, their
 * min_weight): what store4 writes at byte 32 of each, the same for every group of a divisor. */
AI void tails_of(v4d min_weight, v4d tail[4])
{
    _Static_assert(sizeof(ref_value) == 64 && offsetof(ref_value, nterms) == 24 &&
                   offsetof(ref_value, min_weight) == 48 && offsetof(ref_value, sum_exp) == 36 &&
                   __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
                   "ref_value: eight 8-byte fields; nops and sum_exp 0 written as one int64 2");
    v4d c = dbl4((v4i){2, 0, 0, 0});
    tail[0] = __builtin_shufflevector(c, min_weight, 0, 1, 4, 1);
    tail[1] = __builtin_shufflevector(c, min_weight, 0, 1, 5, 1);
    tail[2] = __builtin_shufflevector(c, min_weight, 0, 1, 6, 1);
    tail[3] = __builtin_shufflevector(c, min_weight, 0, 1, 7, 1);
}

/* o0..o3 for the lanes' fields (tail: tails_of): a 4×4 transposition of the first halves, then
 * two 32-byte stores per element. */
AI void store4(ref_value *o0, ref_value *o1, ref_value *o2, ref_value *o3, v4d hi, v4d lo,
               v4d sum_abs, v4i nterms, const v4d tail[4])
{
    v4d nt = dbl4(nterms);
    v4d t0 = __builtin_shufflevector(hi, lo, 0, 4, 2, 6), t1 = __builtin_shufflevector(hi, lo, 1, 5, 3, 7);
    v4d t2 = __builtin_shufflevector(sum_abs, nt, 0, 4, 2, 6);
    v4d t3 = __builtin_shufflevector(sum_abs, nt, 1, 5, 3, 7);
    v4d f0 = __builtin_shufflevector(t0, t2, 0, 1, 4, 5), f1 = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
    v4d f2 = __builtin_shufflevector(t0, t2, 2, 3, 6, 7), f3 = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
    memcpy(o0, &f0, 32);
    memcpy((char *)o0 + 32, &tail[0], 32);
    memcpy(o1, &f1, 32);
    memcpy((char *)o1 + 32, &tail[1], 32);
    memcpy(o2, &f2, 32);
    memcpy((char *)o2 + 32, &tail[2], 32);
    memcpy(o3, &f3, 32);
    memcpy((char *)o3 + 32, &tail[3], 32);
}

/* What the answers of four lanes take from their divisors D alone (groups of a row with the same
 * divisors share it): RN(1/D), |D|, min_weight (element_fields: min(1, |1/d|) is |1/d| for
 * |d| ≥ 1) and the answers' second halves (tails_of), and whether the quotient can be decided
 * directly: a short divisor (≤ 26 significant bits: the split product is exact), not NaN
 * (windows with different divisors). */
typedef struct { v4d D, inv, absD, min_weight, tail[4]; v4i ok; } divs4;

AI divs4 divs_of(v4d D)
{
    const v4i absm = ~bits4((v4d){-0.0, -0.0, -0.0, -0.0});
    v4d inv = 1.0 / D;
    divs4 dv = {.D = D, .inv = inv, .absD = dbl4(bits4(D) & absm),
                .min_weight = dbl4(bits4(inv) & absm) * (1 - 0x1p-52),
                .ok = (D == D) & ((bits4(D) & 0x7ffffff) == 0)};
    tails_of(dv.min_weight, dv.tail);
    return dv;
}

/* The term counts nt of four lanes and their growth factors grow = 1 + (n + 2)·2^-52 (one
 * vector conversion where the target has it: each lane rounds as a scalar conversion does). */
typedef struct { v4i nt; v4d grow; } counts4;

AI counts4 counts_of(v4i nt)
{
    return (counts4){nt, 1 + __builtin_convertvector(nt + 2, v4d) * 0x1p-52};
}

/* The answers of four lanes from their sums s, Σ|g| a, two-sum errors bad, divisors dv and term
 * counts cn, as ref_decide_quotient and element_fields give them; bit k set when lane k is
 * answered (written to o_k). exact: the lanes' plane is PLANE_EXACT, where neither exponent
 * test (fast_exp4) can fail, so it is not made. There a non-zero s is a multiple of 2^(e − 23)
 * (e ≥ PLANE_EXACT_EMIN the least exponent of the plane's values, each of 24 bits, s exact), so
 * |q1| ≥ 2^(e − 76) (1 ≤ |D| ≤ 2^53) and ulp(q1) ≥ 2^(e − 128); qh·D, ql·D (exact) and s are
 * multiples of 2^(e − 128), so are the differences (exact or rounded to a coarser ulp), and a
 * non-zero r has |q| ≥ 2^(e − 128) · 2^-53 ≥ 2^-881 above 2^REF_FAST_EMIN; both are finite
 * (|s| < 2^15 times the terms). */
AI unsigned answer4(v4d s, v4d a, v4i bad, bool exact, const divs4 *dv, const counts4 *cn,
                    ref_value *o0, ref_value *o1, ref_value *o2, ref_value *o3,
                    float *const h[4])
{
    _Static_assert(PLANE_EXACT_EMIN - 128 - 53 >= REF_FAST_EMIN, "answer4: exact planes' bound");
    v4d D = dv->D;
    v4i ok = ~bad & dv->ok;
    v4d q1 = s / D;
    if (!exact)
        ok &= (s == 0) | fast_exp4(q1);
    v4d qh = dbl4(bits4(q1) & ~(int64_t)0x7ffffff), ql = q1 - qh;
    v4d r = (s - qh * D) - ql * D, q = r * dv->inv;
    /* the low 21 bits of q's significand minus 2^20 outside [-3, 3], as one compare: shifted by
     * 3 − 2^20 modulo 2^21 they land in [0, 6] exactly when inside */
    v4i rz = r == 0, low = (v4i)((v4u)bits4(q) + (uint64_t)(3 - 0x100000)) & 0x1fffff;
    ok &= rz | ((exact ? ~(v4i){0, 0, 0, 0} : fast_exp4(q)) & (low > 6)); /* s = 0: r = +0 */
    v4d c = dbl4(bits4(q) & 0x7ff0000000000000) * (0x1.8p0 * 0x1p21); /* ref_round_lo_bits */
    v4d lo = (q + c) - c;
    /* element_fields: Σ|g|/|d| grown by n + 2 roundings */
    v4d sum_abs = a / dv->absD * cn->grow;
    /* +0 answers for s = 0 (q1 = −0 when D < 0); r = 0 has lo = +0 already (q = ±0, c = +0) */
    v4d hi4 = q1 + 0.0, lo4 = lo;
    v4i bit = ok & (v4i){1, 2, 4, 8}; /* lane bits ORed by two swaps */
    bit |= __builtin_shufflevector(bit, bit, 2, 3, 0, 1);
    bit |= __builtin_shufflevector(bit, bit, 1, 0, 3, 2);
    unsigned done = (unsigned)bit[0];
    if (h) { /* plain_hi: hi where lo is 0 and hi a float (an answered lane is finite, its
              * flags 0), else NaN */
        typedef float v4f __attribute__((vector_size(4 * sizeof(float))));
        v4f f = __builtin_convertvector(hi4, v4f);
        v4i plain = (lo4 == 0) & (__builtin_convertvector(f, v4d) == hi4);
        for (int k = 0; k < 4; k++)
            if (done >> k & 1)
                *h[k] = plain[k] ? f[k] : NAN;
    }
    if (done == 0xf) {
        store4(o0, o1, o2, o3, hi4, lo4, sum_abs, cn->nt, dv->tail);
        return done;
    }
    ref_value *out[4] = {o0, o1, o2, o3};
    for (int k = 0; k < 4; k++)
        if (done >> k & 1)
            *out[k] = (ref_value){.hi = hi4[k], .lo = lo4[k], .sum_abs = sum_abs[k],
                                  .nterms = cn->nt[k], .nops = 2,
                                  .min_weight = dv->min_weight[k]};
    return done;
}

/* What the lanes of one row share. */
typedef struct {
    const pool_ctx *C;
    const double *gp;
    const axis_win *wh;
    int nh;
    double dh;
    int64_t iw;     /* the row piece's first column */
    ref_value *v;   /* its answers */
    float *ph;      /* their plain_hi, or NULL */
} row_lanes;

/* The lanes' divisors: a divisorOverride, else dh times their w factors dw. */
AI v4d divisors(const row_lanes *R, v4d dw)
{
    int64_t ov = R->C->p->divisor_override;
    return ov ? (v4d){0, 0, 0, 0} + (double)ov : R->dh * dw;
}

/* Lanes k[0..3] of the piece (any, each covered by a window), their terms gathered. */
AI unsigned group_gather(const row_lanes *R, const int64_t k[4])
{
    const ref_avgpool_params *p = R->C->p;
    const axis_tab *tw = &R->C->T->w;
    const double *dw = R->C->T->dw;
    int64_t c[4] = {R->iw + k[0], R->iw + k[1], R->iw + k[2], R->iw + k[3]};
    counts4 cn = counts_of((v4i){tw->cnt[c[0]], tw->cnt[c[1]], tw->cnt[c[2]], tw->cnt[c[3]]} *
                           R->nh);
    v4d s, a;
    v4i bad = sums_gather(p, tw, R->gp, R->wh, R->nh, c, &s, &a);
    divs4 dv = divs_of(divisors(R, (v4d){dw[c[0]], dw[c[1]], dw[c[2]], dw[c[3]]}));
    float *h[4] = {NULL, NULL, NULL, NULL}; /* no pointer arithmetic on a NULL ph */
    for (int l = 0; R->ph && l < 4; l++)
        h[l] = R->ph + k[l];
    return answer4(s, a, bad, false, &dv, &cn, R->v + k[0], R->v + k[1], R->v + k[2],
                   R->v + k[3], R->ph ? h : NULL);
}

/* The start of an affine group (within lanes 0 .. n − 1) holding lane k of residue r: k
 * itself, or at the end of a residue's run one up to three lanes back (lanes answered twice get
 * the same answer); -1 when none. */
static int64_t group_at(const uint8_t *aff, int64_t k, int64_t r, int64_t sw, int64_t n)
{
    for (int back = 0; back < 4 && k - back * sw >= r; back++) {
        int64_t g = k - back * sw;
        if (g + 3 * sw < n && aff[g])
            return g;
    }
    return -1;
}

static void mark(uint64_t *bits, int64_t k) { bits[k / 64] |= 1ull << (k % 64); }

/* Affine group g (lanes g + l·sw of the piece from column iw) appended to L. */
static void plan_affine(const pool_tabs *T, int64_t sw, int64_t iw, int64_t g, lanes_plan *L)
{
    int64_t c = iw + g;
    const axis_win *w0 = T->w.w + c * T->w.cap;
    aff_group G = {(int32_t)g, T->w.cnt[c], w0[0].o, w0[T->w.cnt[c] - 1].o,
                   {T->dw[c], T->dw[c + sw], T->dw[c + 2 * sw], T->dw[c + 3 * sw]},
                   T->aff[c] == AFF_SHORT, true, true};
    if (L->naff > 0) {
        const aff_group *P = &L->aff[L->naff - 1];
        G.new_dw = memcmp(G.dw, P->dw, sizeof G.dw) != 0;
        G.new_nw = G.nw != P->nw || G.short_last != P->short_last;
    }
    L->aff[L->naff++] = G;
}

void avgpool_lanes_plan(const pool_tabs *T, int64_t sw, int64_t iw, int64_t n, lanes_plan *L)
{
    const uint8_t *aff = T->aff + iw;
    const int32_t *cnt = T->w.cnt + iw;
    size_t words = (size_t)(n + 63) / 64;
    uint64_t seen[POOL_BLOCK / 64];
    memset(seen, 0, words * sizeof *seen);
    memset(L->empty, 0, words * sizeof *L->empty);
    L->naff = L->ngat = 0;
    /* affine groups, residue by residue (none fits when 3·sw ≥ n; sw may be near INT64_MAX) */
    for (int64_t r = 0; sw <= (n - 1) / 3 && r < sw; r++)
        for (int64_t k = r; k < n;) {
            int64_t g = group_at(aff, k, r, sw, n);
            if (g < 0) {
                k += sw;
                continue;
            }
            plan_affine(T, sw, iw, g, L);
            for (int l = 0; l < 4; l++)
                mark(seen, g + l * sw);
            k = g + 4 * sw;
        }
    /* the other lanes some window covers, four at a time */
    int np = 0;
    for (int64_t k = 0; k < n; k++) {
        if (seen[k / 64] >> (k % 64) & 1)
            continue;
        if (cnt[k] == 0) {
            mark(L->empty, k);
            continue;
        }
        L->gat[L->ngat][np++] = (int32_t)k;
        if (np == 4) {
            L->ngat++;
            np = 0;
        }
    }
    if (np > 0) {
        for (int l = np; l < 4; l++)
            L->gat[L->ngat][l] = L->gat[L->ngat][0];
        L->ngat++;
    }
}

/* Lanes k + l·step (l < 4) of a group that did not answer them (got) go to todo. */
AI void unanswered(unsigned got, const int64_t k[4], uint64_t *todo)
{
    if (got != 0xf)
        for (int l = 0; l < 4; l++)
            if (!(got >> l & 1))
                todo[k[l] / 64] |= 1ull << (k[l] % 64);
}

/* The piece's affine groups (every lane's count is nh·nw); exact: PLANE_EXACT. */
AI void affine_groups(const row_lanes *R, const lanes_plan *L, bool exact, uint64_t *todo)
{
    /* what every group reads, in locals the answers' stores (memcpy) cannot alias */
    const ref_avgpool_params *p = R->C->p;
    const axis_tab *tw = &R->C->T->w;
    int64_t sw = p->sw, iw = R->iw, ow = p->ow;
    int nh = R->nh;
    const axis_win *wh = R->wh;
    h_rows H = {R->gp, {R->gp + wh[0].o * ow, R->gp + wh[nh > 1].o * ow}, wh, nh, ow};
    ref_value *v = R->v;
    float *ph = R->ph;
    int32_t naff = L->naff;
    divs4 dv;
    counts4 cn;
    for (int32_t g = 0; g < naff; g++) {
        const aff_group *G = &L->aff[g];
        int64_t k = G->k;
        if (G->new_dw)
            dv = divs_of(divisors(R, (v4d){G->dw[0], G->dw[1], G->dw[2], G->dw[3]}));
        if (G->new_nw)
            cn = counts_of((v4i){0, 0, 0, 0} + (int64_t)nh * G->nw -
                           (v4i){0, 0, 0, G->short_last ? nh : 0});
        v4d s, a;
        v4i bad = G->short_last ? sums_affine(tw, &H, exact, true, G, iw + k, &s, &a)
                                : sums_affine(tw, &H, exact, false, G, iw + k, &s, &a);
        ref_value *o = v + k;
        float *h[4] = {NULL, NULL, NULL, NULL}; /* no pointer arithmetic on a NULL ph */
        for (int l = 0; ph && l < 4; l++)
            h[l] = ph + k + l * sw;
        unanswered(answer4(s, a, bad, exact, &dv, &cn, o, o + sw, o + 2 * sw, o + 3 * sw,
                           ph ? h : NULL),
                   (const int64_t[4]){k, k + sw, k + 2 * sw, k + 3 * sw}, todo);
    }
}

LANES_CLONES
void avgpool_lanes_row(const pool_ctx *C, const lanes_plan *L, const double *gp, bool exact,
                       const axis_win *wh, int nh, double dh, int64_t iw, int64_t n, ref_value *v,
                       float *ph, uint64_t *todo)
{
    row_lanes R = {C, gp, wh, nh, dh, iw, v, ph};
    memcpy(todo, L->empty, (size_t)(n + 63) / 64 * sizeof *todo);
    if (exact) /* two copies: the error terms compiled out of one */
        affine_groups(&R, L, true, todo);
    else
        affine_groups(&R, L, false, todo);
    for (int32_t g = 0; g < L->ngat; g++) {
        const int32_t *c = L->gat[g];
        const int64_t k[4] = {c[0], c[1], c[2], c[3]};
        unanswered(group_gather(&R, k), k, todo);
    }
}
