/* Private helpers of the reference (not part of the public API): double-double arithmetic with
 * error bounds, Ziv's decision, and output assembly. */
#ifndef ACLCTS_REF_INTERNAL_H_
#define ACLCTS_REF_INTERNAL_H_

#include <float.h>
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <string.h>
#include <omp.h>

#include "ref_rules.h"
#include "reference.h"

/* fmax and fmin as C defines them (a NaN operand gives the other one), inline: libm's are calls
 * unless -ffinite-math-only. */
static inline double ref_fmax(double a, double b) { return a > b || b != b ? a : b; }
static inline double ref_fmin(double a, double b) { return a < b || b != b ? a : b; }

/* u = 2^-53. Relative error bounds (Joldes, Muller, Popescu, "Tight and rigorous error bounds
 * for basic building blocks of double-word arithmetic", TOMS 2017), rounded up:
 * dd_add (AccurateDWPlusDW) 3u^2+13u^3 -> 4u^2; dd_mul_d (DWTimesFP3) 2u^2 -> 3u^2;
 * dd_mul (DWTimesDW3) 4u^2 -> 6u^2. REF_DD_TINY covers underflow of the low words (values
 * handled here are far above 2^-900; a term below that only adds this absolute slack). */
#define REF_U2 0x1p-106
#define REF_DD_TINY 0x1p-1000

typedef struct { double hi, lo; } ref_dd;

static inline ref_dd ref_two_sum(double a, double b)
{
    double s = a + b, bb = s - a;
    return (ref_dd){s, (a - (s - bb)) + (b - bb)};
}
static inline ref_dd ref_fast_two_sum(double a, double b)
{
    double s = a + b;
    return (ref_dd){s, b - (s - a)};
}
static inline ref_dd ref_dd_add(ref_dd x, ref_dd y)
{
    ref_dd s = ref_two_sum(x.hi, y.hi), t = ref_two_sum(x.lo, y.lo);
    ref_dd v = ref_fast_two_sum(s.hi, s.lo + t.hi);
    return ref_fast_two_sum(v.hi, t.lo + v.lo);
}
static inline ref_dd ref_dd_mul_d(ref_dd x, double y)
{
    double p = x.hi * y, e = fma(x.hi, y, -p);
    return ref_fast_two_sum(p, fma(x.lo, y, e));
}
static inline ref_dd ref_dd_mul(ref_dd x, ref_dd y)
{
    double p = x.hi * y.hi, e = fma(x.hi, y.hi, -p);
    double t = fma(x.hi, y.lo, x.lo * y.lo);
    return ref_fast_two_sum(p, e + fma(x.lo, y.hi, t));
}

/* Whether p = RN(a·b) leaves a·b − p representable (fma gives it exactly): a·b is not in or
 * near the subnormal range, where the error-free transformation loses bits. */
static inline bool ref_prod_clear(double a, double b, double p)
{
    return a == 0 || b == 0 || fabs(p) >= 0x1p-968;
}

/* A running double-double sum with a rigorous bound on its distance to the exact sum. */
typedef struct {
    ref_dd s;
    double err;     /* |exact - (s.hi + s.lo)| <= err (err itself rounded up by slack) */
} ref_acc;

/* Adds a term t whose own error is at most terr. */
static inline void ref_acc_add(ref_acc *a, ref_dd t, double terr)
{
    if (terr == 0 && t.lo == 0) { /* an exact double term: error-free sums, drop only b.lo */
        ref_dd x = ref_two_sum(a->s.hi, t.hi), b = ref_two_sum(a->s.lo, x.lo);
        a->s = ref_two_sum(x.hi, b.hi);
        a->err += fabs(b.lo);
        return;
    }
    a->s = ref_dd_add(a->s, t);
    a->err += terr + 4 * REF_U2 * fabs(a->s.hi) * 1.001 + REF_DD_TINY;
}

/* The class of a sum of non-finite terms in the extended reals (IEEE's conventions per term:
 * NaN from a NaN factor or ∞·0; opposite infinities give NaN), independent of the order and of
 * any overflow of finite partial results: a finite term never changes an infinite sum. */
typedef struct { bool nan, pos, neg; } ref_nfclass;

/* Adds the term f[0]·…·f[n−1] when it is not finite (finite terms add nothing to the class). */
static inline void ref_nf_term(ref_nfclass *c, const double *f, int n)
{
    bool nan = false, inf = false, zero = false, neg = false;
    for (int i = 0; i < n; i++) {
        nan = nan || isnan(f[i]);
        inf = inf || isinf(f[i]);
        zero = zero || f[i] == 0;
        neg = neg != (bool)signbit(f[i]);
    }
    if (nan || (inf && zero))
        c->nan = true;
    else if (inf && neg)
        c->neg = true;
    else if (inf)
        c->pos = true;
}
static inline bool ref_nf_any(const ref_nfclass *c) { return c->nan || c->pos || c->neg; }
static inline double ref_nf_value(const ref_nfclass *c)
{
    if (c->nan || (c->pos && c->neg))
        return NAN;
    return c->pos ? INFINITY : c->neg ? -INFINITY : 0;
}

/* Σ|terms| of v in real units (+inf past the double range). */
static inline double ref_sum_abs_real(const ref_value *v)
{
    return v->sum_exp ? ldexp(v->sum_abs, v->sum_exp) : v->sum_abs;
}
/* v's Σ|terms| from raw, the sum as formed in double (+inf where it overflowed), and grow, the
 * factor covering its roundings: raw·grow where that stays finite, else scaled(ctx), the same sum
 * of each |term|·2^-REF_SUM_EXP, grown alike and kept in that unit. Only sums past the double
 * range call scaled (terms near DBL_MAX: rare), so the loops forming raw stay as they are. A
 * scaled term below the normal range loses at most 2^-1075 of the unit, nothing beside the
 * sum's 2^960 there. */
static inline void ref_set_sum_abs(ref_value *v, double raw, double grow,
                                   double (*scaled)(const void *ctx), const void *ctx)
{
    double s = raw * grow;
    v->sum_exp = 0;
    v->sum_abs = s;
    if (s <= DBL_MAX || isnan(s))
        return;
    double x = scaled(ctx) * grow;
    if (isnan(x)) /* a term without a value (a NaN coordinate's factor): inf stays */
        return;
    v->sum_abs = x;
    v->sum_exp = REF_SUM_EXP;
}
/* Adds x (≥ 0, finite, real units) to v's Σ|terms|, moving it to 2^REF_SUM_EXP's unit where the
 * sum passes the double range. */
static inline void ref_sum_abs_add(ref_value *v, double x)
{
    if (v->sum_exp == 0 && v->sum_abs + x <= DBL_MAX) {
        v->sum_abs += x;
        return;
    }
    if (v->sum_exp == 0) {
        v->sum_abs = ldexp(v->sum_abs, -REF_SUM_EXP);
        v->sum_exp = REF_SUM_EXP;
    }
    v->sum_abs += ldexp(x, -v->sum_exp) * (1 + 0x1p-52);
}
/* w's Σ|terms| made the larger of w's and v's (merging the bounds of two answers). */
static inline void ref_sum_abs_max(ref_value *w, const ref_value *v)
{
    if (w->sum_exp == v->sum_exp) {
        w->sum_abs = ref_fmax(w->sum_abs, v->sum_abs);
    } else if (v->sum_exp > w->sum_exp) { /* v's sum is past the range, w's not */
        w->sum_abs = ref_fmax(v->sum_abs, ldexp(w->sum_abs, -v->sum_exp) * (1 + 0x1p-52));
        w->sum_exp = v->sum_exp;
    } else {
        w->sum_abs = ref_fmax(w->sum_abs, ldexp(v->sum_abs, -w->sum_exp) * (1 + 0x1p-52));
    }
}

/* Makes x, just rounded towards zero with ternary value `ternary`, the round-to-odd value at
 * its precision. With 64 bits that is ≥ 2 bits more than any double (normal or subnormal) has,
 * so mpfr_get_d(x, MPFR_RNDN) then rounds the exact value once, subnormals included (a 53-bit
 * rounding first would round subnormals twice). */
void ref_mpfr_round_odd(mpfr_ptr x, int ternary);
/* RN(exact) as a double from a computation f done towards zero at 64 bits: see above. */
#define REF_ODD_PREC 64

/* Where the path's working format overflows: FP32's largest finite value plus half an ULP, or
 * double's largest finite value for the DOUBLE vector path ("vector-double"). An intermediate
 * whose magnitude may exceed it (computed·(1 + 2^-40) > it) makes REF_FLAG_RANGE. */
double ref_path_overflow_at(const ref_path *path);

/* Ziv's decision: from a double-double approximation s with |exact - s| <= err, the exact
 * value's (hi, lo) of reference.h when decidable (returns 1), else 0. */
int ref_decide(ref_dd s, double err, double *hi, double *lo);

/* lo of reference.h from l, exact − hi already rounded to REF_LO_BITS bits: l as a double, but
 * never 0 for a non-zero l (below half the smallest subnormal, RN would give 0 and lose the
 * sign ref_round_value needs: ±2^-1074 instead). */
double ref_mpfr_lo(mpfr_srcptr l);
/* hi and lo of reference.h from an MPFR evaluation: terms exact, summed by mpfr_sum. A finite
 * exact value past the double range has hi = ±inf and lo its excess over ±DBL_MAX where every
 * device's sum overflows too (the excess above twice its rounding error), else lo = 0. */
void ref_finish_mpfr_sum(mpfr_ptr *terms, unsigned long n, double *hi, double *lo, mpfr_ptr scratch);

/* x rounded to nearest-even with p significant bits and unbounded exponent. */
double ref_round_bits(double x, int p);
/* The same with the exponent bounded below by emin (the smallest normal's: below it the quantum
 * stays 2^(emin−p+1), subnormals) and unbounded above (no overflow). */
double ref_round_bits_emin(double x, int p, int emin);

/* Binary exponents handled by bit operations below (products by powers of two stay normal and
 * exact); rarer values take ilogb/ldexp. The fast forms give the same doubles. */
#define REF_FAST_EMIN (-900)

static inline uint64_t ref_bits_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}
static inline double ref_of_bits(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}
static inline bool ref_fast_exp(double x)
{
    int be = (int)(ref_bits_of(x) >> 52 & 0x7ff);
    return be != 0x7ff && be - 1023 >= REF_FAST_EMIN;
}
/* 2^floor(log2|x|) of a normal x */
static inline double ref_pow2_floor(double x)
{
    return ref_of_bits(ref_bits_of(x) & 0x7ff0000000000000ull);
}

/* x rounded to nearest-even with REF_LO_BITS bits: C = 1.5·2^(e+53−REF_LO_BITS) has quantum
 * 2^(e+1−REF_LO_BITS) over the whole range of x + C and an even multiple of it, so x + C rounds
 * x itself at that quantum, and subtracting C is exact. */
static inline double ref_round_lo_bits(double x)
{
    if (x == 0 || !ref_fast_exp(x))
        return ref_round_bits(x, REF_LO_BITS);
    double c = ref_pow2_floor(x) * (0x1.8p0 * 0x1p21);
    _Static_assert(REF_LO_BITS == 32, "c above is 1.5·2^(53−REF_LO_BITS)");
    double s = x + c; /* IEEE: not reassociated without -ffast-math */
    return s - c;
}

/* Whether x has at most 26 significant bits (its 27 lowest significand bits are 0): a product
 * of two such doubles is exact unless it underflows or overflows (no fma needed to see that its
 * error is 0; fma is a library call on x86-64 without -mfma). */
static inline bool ref_short(double x) { return (ref_bits_of(x) & 0x7ffffff) == 0; }

/* (hi, lo) of reference.h for the exact quotient S/d of two doubles, inv = RN(1/d), directly;
 * 0 in the rare cases left to the caller (ref_decide or MPFR): S/d or the remainder's quotient
 * near the subnormal range, or the remainder's quotient near a 32-bit midpoint.
 * Division is correctly rounded, so hi = RN(S/d) is S/d itself, and r = S − hi·d is exact (an
 * fma, or for a short d hi split in two: the remainder of a rounded quotient is a double clear of
 * underflow); exact − hi = r/d.
 * q = r·inv is within 2u(1+u)|r/d| < 2.01 ULPs of q of r/d, so where no midpoint of the 32-bit
 * grid lies within 3 ULPs of q (low 21 bits not within 3 of 2^20) both round alike:
 * lo = RN_32(q). Near a power of two the grid's midpoints are 2^-33 relative away. */
static inline int ref_decide_quotient(double S, double d, double inv, double *hi, double *lo)
{
    double q1 = S / d;
    if (q1 == 0 && S == 0) {
        *hi = 0;
        *lo = 0;
        return 1;
    }
    if (!ref_fast_exp(q1))
        return 0;
    double r;
    if (ref_short(d)) { /* q1·d = qh·d + ql·d exactly; S − qh·d exact (Sterbenz), then r exact */
        double qh = ref_of_bits(ref_bits_of(q1) & ~(uint64_t)0x7ffffff), ql = q1 - qh;
        r = (S - qh * d) - ql * d;
    } else {
        r = fma(-q1, d, S);
    }
    if (r == 0) {
        *hi = q1;
        *lo = 0;
        return 1;
    }
    double q = r * inv;
    _Static_assert(REF_LO_BITS == 32, "the midpoint below is bit 52 − 32 of the significand");
    int64_t low = (int64_t)(ref_bits_of(q) & 0x1fffff) - 0x100000;
    if (!ref_fast_exp(q) || (low >= -3 && low <= 3))
        return 0;
    *hi = q1;
    *lo = ref_round_lo_bits(q);
    return 1;
}

/* calloc (zero) or malloc, with a transparent-huge-page hint on large blocks (fewer faults). */
void *ref_big_alloc(size_t n, size_t size, bool zero);

/* Output assembly. */
int ref_output_alloc(ref_output *o, int64_t numel);

/* ---- streams of answer chunks (reference.h ref_chunk) ----
 * A driver computes its outputs a chunk at a time into one reused buffer and hands each chunk to
 * the sink, so an answer's memory is the chunk's, whatever the output's size. */
typedef struct {
    ref_chunk_fn fn;
    void *ctx;
    int64_t elems;   /* chunk size budget in elements (a driver may exceed it by one plane) */
} ref_sink;

/* A chunk buffer: o holds up to cap elements; o.ival (2·cap) is allocated on first need. */
typedef struct {
    ref_output o;
    int64_t cap;
    void *block;     /* what ref_chunkbufs_free frees (the first buffer's; NULL: none) */
} ref_chunkbuf;

/* count buffers of cap elements each, their arrays (o.v, flags, alt_first, alt_count) carved
 * from one block made present at once, on huge pages where large (fewer page faults); 0 or -1.
 * ref_chunkbufs_free(b, count) frees them together, each one's alternatives and ival too. */
int ref_chunkbufs_init(ref_chunkbuf *b, int count, int64_t cap);
void ref_chunkbufs_free(ref_chunkbuf *b, int count);
/* One buffer: ref_chunkbufs_init(b, 1, cap), ref_chunkbufs_free(b, 1). */
int ref_chunkbuf_init(ref_chunkbuf *b, int64_t cap);
/* Cleared for the next chunk of numel ≤ cap elements (flags 0, no alternatives, ival 0). */
void ref_chunkbuf_start(ref_chunkbuf *b, int64_t numel);
/* b->o.ival, allocated (zero) on first need; NULL when out of memory. */
double *ref_chunkbuf_ival(ref_chunkbuf *b);
/* b->o.plain_hi allocated (cap floats, not cleared: the driver writes every element of each
 * chunk, ref_plain_hi_of); 0 or -1. Freed with the buffer. */
int ref_chunkbuf_plain_hi(ref_chunkbuf *b);
/* ph[0..n) as reference.h's plain_hi from the final v[0..n) and flags[0..n) */
void ref_plain_hi_of(const ref_value *v, const uint8_t *flags, int64_t n, float *ph);
void ref_chunkbuf_free(ref_chunkbuf *b);
/* Hands b's chunk (elements first.. of output slot) to the sink; the sink's return value. */
int ref_emit(const ref_sink *s, int slot, int64_t first, const ref_chunkbuf *b);

/* A sink gathering chunks into whole outputs (the whole-output entry points): ctx is a
 * ref_output *[REF_MAX_SLOTS] by slot, each allocated (ref_output_alloc) to its full size. */
int ref_collect_chunk(void *ctx, const ref_chunk *ch);

/* ---- the model table (models.c): one entry per operator (REF_OPERATORS), each defined in its
 * folder (<op>/<op>_model.c or the like) as ref_model_<name>. ref_case asks an operator for
 * everything through it; reference/common/ names no operator. ---- */
typedef struct {
    /* The first phase's status under the documents, and under the vendor releases (q->spec
     * says which one). */
    ref_status (*status_doc)(const ref_status_query *q);
    ref_status (*status_vendor)(const ref_status_query *q);
    /* The device's computation path for the case's dtype, under q->spec. */
    ref_path (*path)(const ref_status_query *q, ref_dtype dtype);
    /* The path answers of the documented operands are judged under (ref_case_request.documented);
     * NULL: the operator has none, its answers are judged under path. */
    ref_path (*documented_judge)(const ref_path *path);
    /* Whether a successful call writes output slot `slot`, and that output's element count (-1
     * when its shape cannot exist: negative or past int64). */
    bool (*computed)(const ref_status_query *q, int slot);
    int64_t (*numel)(const ref_status_query *q, int slot);
    /* Elements of a chunk by default (ref_case_request.chunk_elems 0). */
    int64_t chunk_elems;
    /* The reference/README.md "Memory" bound of the answers' working set besides the inputs
     * (alternatives aside), a's computed outputs and counts filled; step: elements a chunk. */
    uint64_t (*work_bytes)(const ref_status_query *q, const ref_case_answer *a, int64_t step);
    /* Streams the answers of every computed output (a->computed) to s: the outputs in slot
     * order, each one's chunks in element order, every field of every element written (a chunk
     * buffer is reused: ref_chunkbuf_start clears only flags, alternatives and intervals). in:
     * the inputs' values by slot; documented: answers of the documented operands. 0, -1 (bad
     * parameters or out of memory: errno), or the sink's non-zero value. */
    int (*stream)(const ref_status_query *q, const ref_case_answer *a, const double *const *in,
                  bool documented, ref_options *opt, const ref_sink *s);
} ref_model;

/* The entry of op, NULL for an unknown one. */
const ref_model *ref_model_of(ref_op op);

/* Bytes of one element in a chunk: its answer, flags, alternative index and count, interval
 * offsets, plain_hi and the list the alternatives are gathered in (for a model's work_bytes). */
#define REF_CHUNK_ELEM_BYTES \
    (sizeof(ref_value) + 1 + sizeof(int64_t) + sizeof(int32_t) + 2 * sizeof(double) + \
     sizeof(float) + 16)

/* d[0]·…·d[3], or -1 when negative or past int64 (shapes of error cases). */
static inline int64_t ref_numel4(const int64_t d[4])
{
    int64_t n = 1;
    for (int i = 0; i < 4; i++)
        if (d[i] < 0 || __builtin_mul_overflow(n, d[i], &n)) return -1;
    return n;
}

/* Per-element alternative lists gathered in parallel, then flattened in element order. */
typedef struct { int32_t n, cap; ref_value *v; } ref_altlist;
int ref_altlist_push(ref_altlist *l, const ref_value *v);
int ref_output_set_alts(ref_output *o, ref_altlist *lists); /* frees the lists */

/* Until *at (written by another thread with release order) reaches least: true; or until *stop
 * is set: false. A short spin, then yielding the CPU (on a loaded machine the awaited thread may
 * be waiting for it), then, when the wait is long (a slow chunk callback), sleeping 50 µs at a
 * time rather than keep a core busy (wait_until.c). */
bool ref_wait_until(const int64_t *at, int64_t least, const int *stop);

/* Items 0 .. n − 1 of a round (a chunk of a pipeline, a batch's loop) shared by a team without
 * a fixed split, in place of an OpenMP dynamic loop (ending in a barrier where the loop had
 * one): the next item thread t of nth claims in the round `key`, or -1 when none is left; *j
 * is 0 at the round's start. Each thread tries the items in its own order: its share
 * [n·t/nth, n·(t + 1)/nth) first, then the others' from their far ends (where their owners
 * come last), so a thread alone, or one whose partner is late, still takes every item. It
 * takes one only by claiming it: claim[k] (one per item) holds the key of the round that last
 * claimed item k, keys growing round after round (no reset between rounds). A thread so
 * writes the same part of a buffer round after round, which stays in its core's cache: taken
 * in one order by whichever thread was free, the parts went from core to core (avg-pool's
 * bench case, 2 threads: the reference took 1.2 times as long) (wait_until.c). */
int64_t ref_share_next(int64_t *claim, int64_t n, int64_t *j, int t, int nth, int64_t key);

/* A counting sort's slots made by a team, each thread its own after a barrier (no second one
 * for one thread to make them for all): thread t of nth counted its items of each of n keys
 * into cnt + t·n; slot[i] gets its first slot of key i, after every item of the keys before
 * and the lower threads' items of key i (so each key's items stay in thread order). With start
 * not NULL, start[i] gets key i's first slot. Returns the items in all; *most (not NULL) the
 * most one key has (wait_until.c). */
int64_t ref_team_slots(const int64_t *cnt, int64_t n, int t, int nth, int64_t *slot,
                       int64_t *start, int64_t *most);

/* fn(ctx, 0) on the calling thread, started at once, and fn(ctx, t) for t = 1 .. nth − 1 on
 * helper threads (a pool the library keeps) as they arrive; a helper arriving after fn(ctx, 0)
 * returned runs nothing. Returns once fn(ctx, 0) and every helper's fn that started have
 * returned (team.c). */
void ref_team_run(int nth, void (*fn)(void *ctx, int t), void *ctx);

#endif
