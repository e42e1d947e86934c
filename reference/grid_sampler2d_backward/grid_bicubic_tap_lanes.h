/* grid_grad's tap lanes (grid_bicubic_dgrid.c includes this twice): BCW taps' channel sums as
 * one GCC vector, 8 (one AVX-512 register) or 4 (one AVX2 register; bc_lanes_wide says which).
 * Each lane is one tap's sum, the same operations in the same order at either width. */
#define BCW_CAT_(a, b) a##_w##b
#define BCW_CAT(a, b) BCW_CAT_(a, b)
#define BCW_(name) BCW_CAT(name, BCW)

typedef double BCW_(tv) __attribute__((vector_size(BCW * sizeof(double))));
typedef int64_t BCW_(ti) __attribute__((vector_size(BCW * sizeof(double))));
typedef struct { BCW_(tv) s, c, e, err; BCW_(ti) nz, bad; } BCW_(tsum);

/* Adds g·val[k] (finite) on every lane k, val 0 where the tap is absent (nothing added): its
 * rounded part summed error-free into s + c, its error (fma, exact) into e, what those sums
 * drop bounded in err. */
static inline __attribute__((always_inline)) void BCW_(tap_add)(BCW_(tsum) *t, double g,
                                                                const double *val)
{
    typedef BCW_(tv) V;
    typedef BCW_(ti) VI;
    if (g == 0)
        return;
    double ga[BCW];
    for (int l = 0; l < BCW; l++)
        ga[l] = g;
    V v, gv, f = {0}; /* f zeroed first: -O2 sees it set */
    memcpy(&gv, ga, sizeof gv);
    memcpy(&v, val, sizeof v);
    V p = gv * v, np = -p, m = (V)((VI)p & INT64_MAX);
    /* v ≠ 0 and 2^-900 ≤ m ≤ 2^900 on the bits as integers (−1 or 0 from the sign bit): GCC 12
     * makes these comparisons of doubles a lane at a time here */
    VI vb = (VI)v & INT64_MAX, mb = (VI)m;
    VI act = (vb | -vb) >> 63;
    VI in = BC_FAST_RANGE(mb);
    VI add = act & in;
    t->bad |= act & ~in;
    V s = t->s + p, bb = s - t->s, al = (t->s - (s - bb)) + (p - bb); /* ref_two_sum */
    V c = t->c + al, cc = c - t->c, bl = (t->c - (c - cc)) + (al - cc);
    for (int l = 0; l < BCW; l++)
        f[l] = fma(gv[l], v[l], np[l]);
    V e = t->e + f, err = t->err + ((V)((VI)bl & INT64_MAX) + (V)((VI)e & INT64_MAX) * 0x1p-52);
    t->s = (V)(((VI)s & add) | ((VI)t->s & ~add));
    t->c = (V)(((VI)c & add) | ((VI)t->c & ~add));
    t->e = (V)(((VI)e & add) | ((VI)t->e & ~add));
    t->err = (V)(((VI)err & add) | ((VI)t->err & ~add));
    t->nz -= add;
}

/* Lanes at .. at + BCW − 1 of the 16 (SL: two of BC_LANES) moved between SL and *t */
static inline __attribute__((always_inline)) void BCW_(tap_move)(bc_tapsum_lanes *SL, int at,
                                                                 BCW_(tsum) *t, bool load)
{
    bc_tapsum_lanes *L = &SL[at / BC_LANES];
    size_t o = (size_t)(at % BC_LANES) * sizeof(double);
    void *f[6] = {(char *)&L->s + o, (char *)&L->c + o, (char *)&L->e + o, (char *)&L->err + o,
                  (char *)&L->nz + o, (char *)&L->bad + o};
    void *g[6] = {&t->s, &t->c, &t->e, &t->err, &t->nz, &t->bad};
    for (int i = 0; i < 6; i++)
        memcpy(load ? g[i] : f[i], load ? f[i] : g[i], sizeof t->s);
}

/* tap_add of nc channels' g (gb) and taps' values (vk, 16 a channel), in order, two groups of
 * BCW taps at a time (two chains side by side). A function of its own: inlined into
 * bc_dgrid_point, GCC 12 makes its comparisons a lane at a time. */
GRID_CLONES
static void BCW_(tapsums_block)(bc_tapsum_lanes *SL, const double *gb, const double *vk,
                                int64_t nc)
{
    for (int q = 0; q < 16; q += 2 * BCW) {
        BCW_(tsum) A, B; /* in registers */
        BCW_(tap_move)(SL, q, &A, true);
        BCW_(tap_move)(SL, q + BCW, &B, true);
        for (int64_t j = 0; j < nc; j++) {
            BCW_(tap_add)(&A, gb[j], &vk[j * 16 + q]);
            BCW_(tap_add)(&B, gb[j], &vk[j * 16 + q + BCW]);
        }
        BCW_(tap_move)(SL, q, &A, false);
        BCW_(tap_move)(SL, q + BCW, &B, false);
    }
}

#undef BCW_CAT_
#undef BCW_CAT
#undef BCW_
