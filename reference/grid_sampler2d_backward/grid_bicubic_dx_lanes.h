/* input_grad's channel lanes (grid_bicubic_dx.c includes this twice): BCW lanes as one GCC
 * vector, 8 (one AVX-512 register) or 4 (one AVX2 register: for AVX2 GCC splits 8-lane vectors
 * into register pairs it moves through the stack, 2.3 times the instructions). Each lane's
 * bound data are bc_dx_element's, the same operations in the same order, bitwise a lone
 * channel's whatever the width; its fast sum (fast_add below) is the same at either width, a
 * shorter chain than bc_dx_element's double-double one, with its own rigorous bound. */
#define BCW_CAT_(a, b) a##_w##b
#define BCW_CAT(a, b) BCW_CAT_(a, b)
#define BCW_(name) BCW_CAT(name, BCW)

typedef double BCW_(dv) __attribute__((vector_size(BCW * sizeof(double))));
typedef int64_t BCW_(di) __attribute__((vector_size(BCW * sizeof(double))));

/* r = x in every lane (a macro: no vector in the ABI) */
#define BCW_SPLAT(r, x)                                                                            \
    do {                                                                                           \
        double t_[BCW];                                                                            \
        for (int l_ = 0; l_ < BCW; l_++)                                                           \
            t_[l_] = (x);                                                                          \
        memcpy(&(r), t_, sizeof t_);                                                               \
    } while (0)

/* Whether every lane of m is set: halves and-ed together (a lane at a time costs an extraction
 * each) */
static inline __attribute__((always_inline)) bool BCW_(all)(const BCW_(di) *mp)
{
    BCW_(di) m = *mp;
#if BCW == 8
    m &= __builtin_shufflevector(m, m, 4, 5, 6, 7, 0, 1, 2, 3);
    m &= __builtin_shufflevector(m, m, 2, 3, 0, 1, 2, 3, 0, 1);
#else
    m &= __builtin_shufflevector(m, m, 2, 3, 0, 1);
#endif
    return (m[0] & m[1]) != 0;
}

/* Each lane's dx_sums: its bound data, its fast sum F.a as sh + sl within err, F.ok as ok (−1
 * true, 0 false) and F.nonzero as nz; bad: a non-finite g */
typedef struct { BCW_(dv) sabs, cerr, under, sh, sl, err; BCW_(di) ok, nz, bad; } BCW_(lsum);

/* Adds w·g in each lane where ok, as the exact pair p + lo (p = RN(whi·g): fma's error and
 * wlo·g rounded into lo), into s + c: p by an error-free addition into s, its error and lo
 * into c, rounded. Each word's chain is one addition a term (a double-double sum's is eight);
 * err bounds what c's two roundings drop (RN: at most 2^-53 of the rounded result, doubled for
 * err's own roundings) and the product's error (fast_add's bound, on |p|). The sum differs
 * from bc_dx_element's, its bound is as rigorous: ref_decide answers the exact value's either
 * way. */
static inline __attribute__((always_inline)) void BCW_(fast_add)(BCW_(lsum) *L, ref_dd w,
                                                                 const BCW_(dv) *gp)
{
    typedef BCW_(dv) V;
    typedef BCW_(di) VI;
    if (w.hi == 0)
        return;
    V g = *gp, whi, wlo;
    BCW_SPLAT(whi, w.hi);
    BCW_SPLAT(wlo, w.lo);
    V p = whi * g, np = -p, lo = {0};
    for (int l = 0; l < BCW; l++) /* ref_dd_mul_d's words before its normalisation */
        lo[l] = fma(wlo[l], g[l], fma(whi[l], g[l], np[l]));
    /* in: 2^-900 ≤ |p| ≤ 2^900, act: g ≠ 0, on the bits as integers (GCC 12 makes these
     * comparisons of doubles a lane at a time: half the loop's instructions were their moves) */
    V m = (V)((VI)p & INT64_MAX);
    VI gb = (VI)g & INT64_MAX, in = BC_FAST_RANGE((VI)m);
    VI act = L->ok & ((gb | -gb) >> 63), add = act & in;
    L->ok &= ~act | in;
    p = (V)((VI)p & add);
    lo = (V)((VI)lo & add);
    V s = L->sh + p, bb = s - L->sh, es = (L->sh - (s - bb)) + (p - bb); /* ref_two_sum */
    V x = es + lo, c = L->sl + x;
    V terr = m * 0x1p-101 + REF_DD_TINY;
    V inc = terr + ((V)((VI)x & INT64_MAX) + (V)((VI)c & INT64_MAX)) * 0x1p-52;
    L->sh = s;
    L->sl = c;
    L->err += (V)((VI)inc & add);
    L->nz -= add;
}

/* bc_dx_element's loop for BC_LANES channels of element e (gt: gradOutput channel-innermost,
 * lane l of point pix at gt[pix·cs + l]) as BC_LANES / BCW vectors, their chains side by side;
 * bad marks the lanes with a non-finite g, which bc_dx_element redoes. */
GRID_CLONES
static void BCW_(dx_lanes_sum)(const bc_ctx *X, const bc_reach *R, const double *gt, int64_t cs,
                               int64_t e, dx_lanes_sums *out)
{
    typedef BCW_(dv) V;
    typedef BCW_(di) VI;
    enum { H = BC_LANES / BCW };
    V one, under1;
    BCW_SPLAT(one, 1.0);
    BCW_SPLAT(under1, REF_UNDER_SCALE);
    BCW_(lsum) A[H]; /* in registers, not *out */
    for (int h = 0; h < H; h++)
        A[h] = (BCW_(lsum)){.ok = (VI){0} - !X->force};
    int64_t ahead = R->start[X->p->h_in * X->p->w_in]; /* every entry */
    for (int64_t i = R->start[e]; i < R->start[e + 1]; i++) {
        const bc_entry *en = &R->ent[i];
        if (i + 16 < ahead) /* the points are scattered: a cache miss each, 16 entries ahead */
            __builtin_prefetch(gt + R->ent[i + 16].pix * cs);
        if (i + 64 < ahead) /* and the entries (megabytes) ahead of that read */
            __builtin_prefetch(&R->ent[i + 64]);
        bool ghost = en->kx == 4 || en->ky == 4; /* adds to the bound only */
        for (int h = 0; h < H; h++) {
            BCW_(lsum) *L = &A[h];
            V g, ag;
            memcpy(&g, gt + en->pix * cs + h * BCW, sizeof g);
            ag = (V)((VI)g & INT64_MAX);
            L->bad |= ~(ag <= DBL_MAX);
            L->sabs += ag * en->wx * en->wy;
            L->cerr += ag * en->q;
            VI small = ag <= one;
            if (BCW_(all)(&small)) {
                L->under += under1;
            } else {
                V u = {0};
                for (int l = 0; l < BCW; l++)
                    u[l] = dx_under(ag[l]);
                L->under += u;
            }
            if (ghost)
                continue;
            if (!en->dd)
                L->ok = (VI){0};
            BCW_(fast_add)(L, en->w, &g);
        }
    }
    /* s + c as a normalised pair (exact); err grown for its own roundings, one a term */
    V grow;
    BCW_SPLAT(grow, 1 + (double)(R->start[e + 1] - R->start[e] + 2) * 0x1p-52);
    for (int h = 0; h < H; h++) {
        V s = A[h].sh, c = A[h].sl, hi = s + c, bb = hi - s;
        A[h].sh = hi;
        A[h].sl = (s - (hi - bb)) + (c - bb);
        A[h].err *= grow;
    }
    for (int h = 0; h < H; h++) {
        size_t o = (size_t)h * BCW * sizeof(double);
        memcpy((char *)&out->sabs + o, &A[h].sabs, sizeof A[h].sabs);
        memcpy((char *)&out->cerr + o, &A[h].cerr, sizeof A[h].cerr);
        memcpy((char *)&out->under + o, &A[h].under, sizeof A[h].under);
        memcpy((char *)&out->sh + o, &A[h].sh, sizeof A[h].sh);
        memcpy((char *)&out->sl + o, &A[h].sl, sizeof A[h].sl);
        memcpy((char *)&out->err + o, &A[h].err, sizeof A[h].err);
        memcpy((char *)&out->ok + o, &A[h].ok, sizeof A[h].ok);
        memcpy((char *)&out->nz + o, &A[h].nz, sizeof A[h].nz);
        memcpy((char *)&out->bad + o, &A[h].bad, sizeof A[h].bad);
    }
}

#undef BCW_SPLAT
#undef BCW_CAT_
#undef BCW_CAT
#undef BCW_
