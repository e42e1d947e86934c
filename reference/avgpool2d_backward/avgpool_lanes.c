/* Four grad_input elements of a row at once: the fast path of avgpool2d_backward.c's
 * element_small for its common case (every value of the plane regular, one divisor per element,
 * Σg exact, the quotient decided directly), written over 4-lane vectors (GCC vector extensions:
 * two SSE2 operations each, or one AVX2 operation in the AVX2 clone). IEEE addition,
 * subtraction, multiplication and division round alike at any vector width, and nothing here
 * contracts into an FMA (neither target has FMA), so each lane computes what
 * the scalar code does, operation for operation: the answers are bitwise element_small's.
 * Lanes the shortcut cannot decide are left to the caller. */
#include <stddef.h>
#include <string.h>

#include "avgpool_internal.h"

/* The helpers below pass vectors by value; they are inlined, so no call crosses the ABI the
 * warning is about. An AVX2 clone where GCC builds it (Clang refuses inlined helpers of another
 * target's vector ABI: its builds, the fuzzers', keep the one default version). */
#pragma GCC diagnostic ignored "-Wpsabi"
#if defined(__GNUC__) && !defined(__clang__)
#define LANES_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define LANES_CLONES
#endif

typedef double v4d __attribute__((vector_size(32)));
typedef int64_t v4i __attribute__((vector_size(32)));
typedef uint64_t v4u __attribute__((vector_size(32)));

static inline __attribute__((always_inline)) v4i bits4(v4d x)
{
    v4i u;
    memcpy(&u, &x, sizeof u);
    return u;
}
static inline __attribute__((always_inline)) v4d dbl4(v4i u)
{
    v4d x;
    memcpy(&x, &u, sizeof x);
    return x;
}
/* ref_fast_exp per lane: -1 where true (a logical shift: AVX2 has no 64-bit arithmetic one) */
static inline __attribute__((always_inline)) v4i fast_exp4(v4d x)
{
    v4i be = (v4i)((v4u)bits4(x) >> 52) & 0x7ff;
    return (be != 0x7ff) & (be - 1023 >= REF_FAST_EMIN);
}

bool avgpool_plane_regular(const pool_ctx *C, int64_t plane)
{
    const ref_avgpool_params *p = C->p;
    int64_t n = p->oh * p->ow;
    const double *g = C->go + plane * n;
    bool ok = n > 0;
    for (int64_t i = 0; i < n; i++) {
        double a = fabs(g[i]); /* NaN fails both tests */
        ok &= a < 0x1p15 && (a == 0 || a >= 0x1p-847);
    }
    return ok;
}

/* Σ over the windows of lanes iw + k·sw (k < 4) in element_small's order (h window, then w
 * window): an affine group (pool_tabs.aff), so term j of lane k is row[o_j + k], four
 * consecutive values. *s the sum, *a Σ|g|; lanes with a non-zero two-sum error come back set. */
static inline __attribute__((always_inline)) v4i window_sums(const ref_avgpool_params *p, const axis_tab *tw, const double *gp,
                              const axis_win *wh, int nh, int64_t iw, v4d *s_out, v4d *a_out)
{
    const axis_win *w0 = tw->w + iw * tw->cap;
    int nw = tw->cnt[iw];
    const v4i absm = ~bits4((v4d){-0.0, -0.0, -0.0, -0.0});
    v4d s = {0, 0, 0, 0}, a = s;
    v4i bad = {0, 0, 0, 0};
    for (int i = 0; i < nh; i++) {
        const double *row = gp + wh[i].o * p->ow;
        for (int j = 0; j < nw; j++) {
            v4d x;
            memcpy(&x, row + w0[j].o, sizeof x);
            v4d t = s + x, bb = t - s;
            bad |= ((s - (t - bb)) + (x - bb)) != 0; /* ref_two_sum's error */
            s = t;
            a += dbl4(bits4(x) & absm);
        }
    }
    *s_out = s;
    *a_out = a;
    return bad;
}

/* v[0], v[sw], v[2·sw], v[3·sw] from the lanes' fields (nops 2, coord_err and under_mag 0):
 * a 4×4 transposition, then two 32-byte stores per element. */
static inline __attribute__((always_inline)) void store4(ref_value *v, int64_t sw, v4d hi, v4d lo, v4d sum_abs, int64_t n,
                          v4d min_weight)
{
    _Static_assert(sizeof(ref_value) == 64 && offsetof(ref_value, nterms) == 24 &&
                   offsetof(ref_value, min_weight) == 48, "ref_value: eight 8-byte fields");
    v4d nt = dbl4((v4i){n, n, n, n}), c = dbl4((v4i){2, 0, 0, 0});
    v4d t0 = __builtin_shufflevector(hi, lo, 0, 4, 2, 6), t1 = __builtin_shufflevector(hi, lo, 1, 5, 3, 7);
    v4d t2 = __builtin_shufflevector(sum_abs, nt, 0, 4, 2, 6);
    v4d t3 = __builtin_shufflevector(sum_abs, nt, 1, 5, 3, 7);
    v4d f0 = __builtin_shufflevector(t0, t2, 0, 1, 4, 5), f1 = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
    v4d f2 = __builtin_shufflevector(t0, t2, 2, 3, 6, 7), f3 = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
    v4d s0 = __builtin_shufflevector(c, min_weight, 0, 1, 4, 1);
    v4d s1 = __builtin_shufflevector(c, min_weight, 0, 1, 5, 1);
    v4d s2 = __builtin_shufflevector(c, min_weight, 0, 1, 6, 1);
    v4d s3 = __builtin_shufflevector(c, min_weight, 0, 1, 7, 1);
    char *b = (char *)v;
    size_t step = (size_t)sw * sizeof *v;
    memcpy(b, &f0, 32);
    memcpy(b + 32, &s0, 32);
    memcpy(b + step, &f1, 32);
    memcpy(b + step + 32, &s1, 32);
    memcpy(b + 2 * step, &f2, 32);
    memcpy(b + 2 * step + 32, &s2, 32);
    memcpy(b + 3 * step, &f3, 32);
    memcpy(b + 3 * step + 32, &s3, 32);
}

/* Lanes iw + k·sw (k < 4) of an affine group into v[k·sw]; bit k set when lane k is answered. */
static inline __attribute__((always_inline)) unsigned lanes4(const pool_ctx *C, const double *gp, const axis_win *wh, int nh,
                              double dh, int64_t iw, ref_value *v)
{
    const ref_avgpool_params *p = C->p;
    const axis_tab *tw = &C->T->w;
    int64_t sw = p->sw;
    v4d s, a;
    v4i bad = window_sums(p, tw, gp, wh, nh, iw, &s, &a);
    const double *dwp = C->T->dw + iw;
    v4d D = p->divisor_override ? (v4d){0, 0, 0, 0} + (double)p->divisor_override
                                : dh * (v4d){dwp[0], dwp[sw], dwp[2 * sw], dwp[3 * sw]};
    /* ref_decide_quotient with a short divisor (≤ 26 significant bits: the split product is
     * exact); NaN D (windows with different divisors) fails `D == D` */
    v4i zero = s == 0, ok = ~bad & (D == D) & ((bits4(D) & 0x7ffffff) == 0);
    v4d inv = 1.0 / D, q1 = s / D;
    ok &= zero | fast_exp4(q1);
    v4d qh = dbl4(bits4(q1) & ~(int64_t)0x7ffffff), ql = q1 - qh;
    v4d r = (s - qh * D) - ql * D, q = r * inv;
    v4i rz = r == 0, low = (bits4(q) & 0x1fffff) - 0x100000;
    ok &= zero | rz | (fast_exp4(q) & ((low < -3) | (low > 3)));
    v4d c = dbl4(bits4(q) & 0x7ff0000000000000) * (0x1.8p0 * 0x1p21); /* ref_round_lo_bits */
    v4d lo = (q + c) - c;
    const v4i absm = ~bits4((v4d){-0.0, -0.0, -0.0, -0.0});
    int64_t n = (int64_t)nh * tw->cnt[iw]; /* every lane's: the group is affine */
    /* element_fields: Σ|g|/|d| grown by n + 2 roundings; min(1, |1/d|) is |1/d| for |d| ≥ 1 */
    v4d sum_abs = a / dbl4(bits4(D) & absm) * (1 + (double)(n + 2) * 0x1p-52);
    v4d min_weight = dbl4(bits4(inv) & absm) * (1 - 0x1p-52);
    v4d hi4 = dbl4(bits4(q1) & ~zero), lo4 = dbl4(bits4(lo) & ~(zero | rz)); /* +0 answers */
    unsigned done = (unsigned)(ok[0] & 1) | (unsigned)(ok[1] & 2) | (unsigned)(ok[2] & 4) |
                    (unsigned)(ok[3] & 8);
    if (done == 0xf) {
        store4(v, sw, hi4, lo4, sum_abs, n, min_weight);
        return done;
    }
    for (int k = 0; k < 4; k++)
        if (done >> k & 1)
            v[k * sw] = (ref_value){.hi = hi4[k], .lo = lo4[k], .sum_abs = sum_abs[k],
                                    .nterms = n, .nops = 2, .min_weight = min_weight[k]};
    return done;
}

/* The start of an affine group (within lanes 0 .. n − 1 of the row piece at column iw) holding
 * lane k of residue r: k itself, or at the end of a residue's run one up to three lanes back
 * (lanes answered twice get the same answer); -1 when none. */
static inline __attribute__((always_inline)) int64_t group_at(const uint8_t *aff, int64_t k, int64_t r, int64_t sw, int64_t n)
{
    for (int back = 0; back < 4 && k - back * sw >= r; back++) {
        int64_t g = k - back * sw;
        if (g + 3 * sw < n && aff[g])
            return g;
    }
    return -1;
}

static inline __attribute__((always_inline)) void mark(uint64_t *todo, int64_t k) { todo[k / 64] |= 1ull << (k % 64); }

LANES_CLONES
void avgpool_lanes_row(const pool_ctx *C, const double *gp, const axis_win *wh, int nh, double dh,
                       int64_t iw, int64_t n, ref_value *v, uint64_t *todo)
{
    int64_t sw = C->p->sw;
    const uint8_t *aff = C->T->aff + iw;
    for (int64_t r = 0; r < sw && r < n; r++)
        for (int64_t k = r; k < n;) {
            int64_t g = group_at(aff, k, r, sw, n);
            if (g < 0) {
                mark(todo, k);
                k += sw;
                continue;
            }
            unsigned got = lanes4(C, gp, wh, nh, dh, iw + g, v + g);
            for (int l = 0; got != 0xf && l < 4; l++)
                if (!(got >> l & 1))
                    mark(todo, g + l * sw);
            k = g + 4 * sw;
        }
}
