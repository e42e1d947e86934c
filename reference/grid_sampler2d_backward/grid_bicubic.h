/* The bicubic mode's private declarations, shared by grid_bicubic.c (the coordinates,
 * coefficients, terms and the stream; its opening comment states the model and the bound),
 * grid_bicubic_dx.c (input_grad) and grid_bicubic_dgrid.c (grid_grad). */
#ifndef ACLCTS_REFERENCE_GRID_BICUBIC_H_
#define ACLCTS_REFERENCE_GRID_BICUBIC_H_

#include "grid_values.h" /* GRID_CLONES */

#define BC_CW 256.0   /* coefficient Horner error, units of u (above) */
#define BC_CD 192.0   /* derivative's */
#define BC_LW 1.5     /* max |K'| (Lipschitz constant of the weights in t) */
#define BC_LD 4.5     /* max |K''| (of the derivatives) */
#define BC_PIN_W 0.35 /* a pinned axis: |w_k| summed over the 4 taps ≤ 1.375 for every t */
#define BC_PIN_D 1.5  /* and |w'_k| ≤ 3/2 each */

typedef struct {
    /* what the fast paths read (the reach, grid_grad's sums), in the struct's first lines */
    bool none;          /* no tap in bounds, on any branch (zeros, far out) */
    bool pinned;        /* every tap clamped to one edge on every branch (border, far out) */
    bool unres;         /* δ ≥ 1/2: the device's taps not modelled */
    int ghost;          /* −1: tap i0 − 2 may be the device's too; +1: tap i0 + 3; 0 none */
    int64_t reach_lo, reach_hi; /* unres: the indices its taps may reach */
    int64_t idx[5];     /* taps i0−1..i0+2 and the ghost, bounded; −1 outside (zeros) */
    double wd[5], dwd[5]; /* their magnitudes for the bound (ghost: 0; pinned: BC_PIN_*) */
    double ew, edw;     /* the device's coefficient errors (0: exact, t = 0 and δ = 0) */
    double mult;        /* dc/dx */
    /* the coefficients' exact forms, read where an answer falls back to MPFR (from mp on) */
    bool mp;            /* w, dw initialised (MPFR formed them once) */
    mpfr_t w[4], dw[4]; /* exact weights and derivatives in t */
    bool dd_ok;         /* wdd, dwdd: w, dw as dd_split forms them (int_coefficients) */
    ref_dd wdd[4], dwdd[4];
    bool ints;          /* w, dw not set: wi·2^-(3q+2), dwi·2^-(2q+2) (bc_coef forms them) */
    int q;
    i128 wi[4], dwi[4];
} bc_axis;

typedef struct {
    bool out;           /* non-finite coordinate, or no tap in bounds */
    bool dd;            /* Wd, Dd hold them within 2^-102 relative, in the fast range */
    bc_axis ax[2];      /* 0: x (width), 1: y (height) */
    ref_dd Wd[16], Dd[2][16]; /* wx·wy and (dwx·wy·mult_x, wx·dwy·mult_y), [ky·4 + kx]; MPFR
                               * forms a product exactly only where an answer needs it */
} bc_point;

typedef struct {
    const ref_grid_params *p;
    const double *go, *in, *grid;
    double u;           /* the device's working unit roundoff */
    double ovf;         /* ref_path_overflow_at */
    double tiny;        /* 4× the working format's smallest normal (products below may vanish) */
    bool force;         /* no double-double fast path */
    double uc, etac;    /* ref_path coord_u, coord_eta: the coordinate rounded to the dtype */
    const double *it;   /* the batch's input channel-innermost (tap off's channel c at
                         * it[off·its + c]) for bc_dgrid_point's fast path, or NULL */
    const double *gt;   /* its gradOutput so (point pix's channel c at gt[pix·its + c]), or NULL */
    int64_t its;
} bc_ctx;

/* Any device's coefficients of one axis: Σ_k |w_k| ≤ 1.375 and Σ_k |w'_k| ≤ 6 for every t,
 * plus their rounding errors (≤ 4·256u): the bounds an unresolved point's interval uses. */
#define BC_SUM_W 1.4
#define BC_SUM_DW 6.1

/* Asks for the lines [b, b + n) */
static inline void bc_prefetch_range(const void *b, size_t n)
{
    for (uintptr_t l = (uintptr_t)b & ~(uintptr_t)63; l < (uintptr_t)b + n; l += 64)
        __builtin_prefetch((const void *)l);
}

/* Asks for what the fast paths read of a point's struct, a point ahead of its use (the
 * batch's points are megabytes, their first reads waited on memory): its flags and axes' first
 * fields, and prod (its Wd or Dd, NULL: none) of size bytes; not the axes' exact coefficients
 * (~1 kB of the 2.2, read where an answer falls back): all 35 lines a point filled the line
 * fill buffers, and the prefetches waited for them. */
static inline void bc_point_prefetch(const bc_point *pt, const void *prod, size_t size)
{
    bc_prefetch_range(pt, offsetof(bc_point, ax[0]) + offsetof(bc_axis, mp));
    bc_prefetch_range(&pt->ax[1], offsetof(bc_axis, mp));
    if (prod)
        bc_prefetch_range(prod, size);
}

/* A growable MPFR term list per thread, with two coefficients' room for bc_coef (bc_tmp) */
typedef struct {
    mpfr_ptr *ptr;
    mpfr_t *v;
    size_t n, cap;
    bool tmp_set;
    mpfr_t tmp[2];
} bc_terms;

/* The fast path's sum (Ziv): the terms as double-doubles with a bound, decided by ref_decide;
 * MPFR where a term leaves the fast range or the bound cannot decide the rounding. */
typedef struct {
    ref_acc a;
    bool ok;            /* every term so far fast */
    int64_t nonzero;    /* terms not exactly 0 (all 0: MPFR gives the zero's sign) */
} bc_fast;

/* ---- under_mag's terms without subnormal products ----
 * A term of under_mag (units of REF_UNDER_SCALE = 2^-1070, below the normal range) is a product
 * of factors ≥ 1 that starts subnormal, and a multiplication with a subnormal operand or result
 * takes the x86 multiplier's microcode assist (~35 ns, 40 times a product's cost; additions
 * take none). The same IEEE products are formed here in units of 2^-1074, where every value is
 * a normal double: a subnormal result there is RN to an integer (the subnormal grid), a normal
 * one RN to 53 bits, as the multiplier rounds; where that cannot be shown exactly (a product
 * of more than 53 bits below 2^52 in these units) the caller forms the product itself. */

/* *y·b in units of 2^-1074 (y, b ≥ 1), rounded as the double product of y·2^-1074 and b:
 * false where a product below 2^52 units is not exact, or past 2^1000 units. */
static inline bool unit_mul(double *y, double b)
{
    double p = *y * b;
    if (p >= 0x1p52) {
        *y = p;
        return p <= 0x1p1000;
    }
    if (fma(*y, b, -p) != 0)
        return false;
    *y = (p + 0x1p52) - 0x1p52; /* to the nearest integer, ties to even (0 ≤ p < 2^52) */
    return true;
}

/* y·2^-1074 as a double (y ≥ 0 an integer below 2^52: a subnormal's significand bits) */
static inline double unit_value(double y)
{
    return ref_of_bits(y < 0x1p52 ? (uint64_t)y : ref_bits_of(y) - ((uint64_t)1074 << 52));
}

/* ref_fmax(1, a)·REF_UNDER_SCALE, in units of 2^-1074: false where unit_mul is */
static inline bool unit_under(double a, double *y)
{
    *y = 16; /* REF_UNDER_SCALE = 2^-1070 (a floating comparison is no C constant for clang) */
    return unit_mul(y, ref_fmax(1, a));
}

/* x·(1 + j·2^-52) for an under_mag sum x ≥ 0 (j ≥ 0: the term count and 8), as the double
 * product rounds it but without its assist where x is subnormal: x = m·2^-1074 gains
 * m·j·2^-52 units, under half of one where m·j < 2^51, so it rounds to x itself. */
static inline double bc_under_grow(double x, int64_t j)
{
    if (x < 0x1p-1022 && (double)ref_bits_of(x) * (double)j < 0x1p51)
        return x;
    return x * (1 + (double)j * 0x1p-52);
}

/* ---- BC_LANES lanes as one GCC vector (element-wise IEEE operations, whatever instructions
 * the target has): input_grad's channels, grid_grad's taps ---- */
#define BC_LANES 8 /* BCV_SPLAT's count */
typedef double bcv __attribute__((vector_size(BC_LANES * sizeof(double))));
typedef int64_t bcvi __attribute__((vector_size(BC_LANES * sizeof(double))));
#define BCV_SPLAT(x) ((bcv){x, x, x, x, x, x, x, x})
#define BCV_ABS(x) ((bcv)((bcvi)(x) & INT64_MAX))
#define BCV_PICK(m, a, b) ((bcv)(((bcvi)(a) & (m)) | ((bcvi)(b) & ~(m)))) /* m ? a : b */

/* −1 in a lane whose |x| lies in the fast range [2^-900, 2^900], else 0 (NaN too), from mb,
 * |x|'s bits as integers (their order is the doubles'): the sign bits of two differences */
#define BC_FAST_RANGE(mb)                                                                          \
    (~((((mb) - (int64_t)0x07b0000000000000) | ((int64_t)0x7830000000000000 - (mb))) >> 63))

/* r = fma(a, b, c) lane by lane (a macro: no vector in the ABI); one instruction where the
 * target has it */
#define BCV_FMA(r, a, b, c)                                                                        \
    for (int l_ = 0; l_ < BC_LANES; l_++)                                                          \
        (r)[l_] = fma((a)[l_], (b)[l_], (c)[l_])

/* Whether BC_LANES lanes run as one vector (AVX-512: one register; not on Zen 4, which splits
 * it), else as two of 4 (AVX2: GCC moves 8-lane vectors through the stack there); every answer
 * is bitwise the same. bc_lanes_width 8 or 4 forces one (tests: both widths on any CPU), 0 the
 * CPU's. */
extern int bc_lanes_width;
bool bc_lanes_wide(void);

/* ---- grid_bicubic.c ---- */
char *bc_block(size_t total, char **raw);
void bc_axis_range(const bc_axis *a, int64_t *lo, int64_t *hi);
/* Coefficient k of an axis (deriv: its derivative) exactly: its own w, dw, or formed into tmp
 * (128 bits) from its integers (ints) */
mpfr_srcptr bc_coef(const bc_axis *a, int k, bool deriv, mpfr_ptr tmp);

/* ---- input_grad (grid_bicubic_dx.c) ---- */

/* A point's tap reaching an element (k = 4: the ghost tap) with what input_grad reads of it in
 * every channel, in the entry itself: the entries are read in order, the points (1.6 kB each)
 * were read scattered, a cache miss a term. wx, wy: |coefficients| (bc_axis.wd), q: the
 * coordinate term per |g|, w: wx·wy (fast path, dd: in range). */
typedef struct {
    int64_t pix;
    uint8_t kx, ky;
    bool dd;
    double wx, wy, q;
    ref_dd w;
} bc_entry;

typedef struct { int64_t pix, x0, x1, y0, y1; } bc_box; /* an unresolved point's reach */

typedef struct {
    int64_t *start;     /* hw_in + 1: entries of element e at start[e] .. start[e+1] */
    bc_entry *ent;      /* in ent_raw (bc_block), room for ent_cap */
    char *ent_raw;
    int64_t ent_cap;
    uint8_t *unres;     /* hw_in: reached by an unresolved point */
    bc_box *box;        /* the unresolved points and their reach */
    int64_t nbox;
} bc_reach;

/* The reach of a batch's points into R (zeroed, or reset since: its entries' block reused
 * where large enough), by a team of nth threads: 0, or −1 out of memory (free it with
 * bc_reach_free). */
int bc_reach_build(const ref_grid_params *p, const bc_point *pts, int nth, bc_reach *R);
void bc_reach_reset(bc_reach *R); /* all but the entries' block */
void bc_reach_free(bc_reach *R);
/* input_grad element e of channel c, batch n: 1 when the fast path decided it, 0 MPFR (T's
 * terms), −1 out of memory; ival gets an interval element's offsets (NULL: none allowed). */
int bc_dx_element(const bc_ctx *X, const bc_point *pts, const bc_reach *R, int64_t n,
                  int64_t c, int64_t e, bc_terms *T, ref_value *v, uint8_t *fl, double *ival);
/* The same for nl ≤ BC_LANES channels c.. at once (output l at v[l·stride], fl[l·stride],
 * ival + 2·l·stride), from gradOutput channel-innermost (point pix's channel c at
 * gt[pix·cs + c], cs ≥ c + BC_LANES, the lanes past nl 0): the answers decided fast, or −1. */
int bc_dx_lanes(const bc_ctx *X, const bc_point *pts, const bc_reach *R, const double *gt,
                int64_t cs, int64_t n, int64_t c, int nl, int64_t e, bc_terms *T, ref_value *v,
                uint8_t *fl, double *ival, int64_t stride);
bool bc_class_unsure(bool nan, double a, double x, double ex, bool gx, double y, double ey,
                     bool gy, double tiny);
mpfr_ptr bc_term(bc_terms *T, mpfr_prec_t prec);
mpfr_ptr bc_tmp(bc_terms *T, int i); /* T's room i (0, 1) of 128 bits, kept until bc_terms_free */
void bc_terms_free(bc_terms *T);
int bc_exact_term(bc_terms *T, mpfr_srcptr a, mpfr_srcptr b, const double *f, int nf);
bool bc_fast_done(const bc_fast *f, ref_value *v);
void bc_finish(bc_terms *T, ref_value *v, uint8_t *fl, bool unsure, double ovf, double s_pre,
               bool decided);

/* ---- grid_bicubic_dgrid.c ---- */
int bc_dgrid_terms(const bc_ctx *X, const bc_point *pt, int64_t n, int64_t pix, int comp,
                   bc_terms *T);
int bc_dgrid_point(const bc_ctx *X, const bc_point *pt, int64_t n, int64_t pix, bc_terms *T,
                   ref_value *v, uint8_t *fl, double *ival);

#endif
