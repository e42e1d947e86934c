/* cts_judge_chunk_got's one pass (exact elements counted, the others judged one by one) against
 * cts_judge_chunk_each, which puts every element through cts_judge_element: the same verdict,
 * statistics and error map, bit for bit, for hand-picked elements in each narrow dtype under
 * each kind of policy. Each picked element sits in an output of three 2 x 200 planes, at the
 * first element (no worst element yet), inside plane 1 and last, among exact elements with and
 * without inexact ones. The picks: exact values, ±0, a subnormal of the dtype, the
 * largest finite value, values the dtype does not hold (so not exact though got == hi), a
 * nonzero low part, infinities and NaN, and elements the reference flags (unjudged, ambiguous
 * with alternatives, interval). Then seeded outputs of runs of plain inexact elements, what the
 * batched pass judges (judge_batch.h), with its corners among them (make_plain), in every dtype
 * (DOUBLE keeps the per-element path), under each kind of policy and on paths with operand
 * rounding and an FP16 result. Half the one-pass judgements go through cts_judge_chunk_hashed,
 * which must judge the same and carry FNV-1a over the stored bytes across the chunks. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check/check_internal.h"
#include "check/judge_batch.h"
#include "check/tolerance.h"

/* The picks below leave flags out where there are none. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

enum { W = 200, N = 3 * 2 * W }; /* planes of 2 x 200: blocks of 1 x 3 elements */
static const int64_t dims[3] = {3, 2, W};
static const ref_path vector_fp32 = {.kind = REF_PATH_VECTOR, .operand = REF_DT_FLOAT,
                                     .name = "vector-fp32"};

typedef struct {
    double hi, lo, got;
    uint8_t flags;
} pick;

typedef struct {
    ref_value v[N], alts[2];
    uint8_t flags[N];
    int64_t alt_first[N];
    int32_t alt_count[N];
    double ival[2 * N], got[N];
    float ph[N];
    ref_output out;
} output;

/* plain_hi as reference.h defines it (v.hi where the element has no flag, lo 0 and a hi that is
 * a finite float; NaN otherwise), or none: with it the one pass finds the exact elements from
 * it (checks.c's tolerance_blocks for the narrow dtypes), without it from v. */
static void set_plain_hi(output *o, bool on)
{
    for (int k = 0; k < N; k++) {
        float f = (float)o->v[k].hi;
        bool plain = !o->flags[k] && o->v[k].lo == 0 && (double)f == o->v[k].hi && isfinite(f);
        o->ph[k] = plain ? f : NAN;
    }
    o->out.plain_hi = on ? o->ph : NULL;
}

/* Exact element k: k % 128 + 1 (held by every dtype here), except inexact ones at 1, 4 and
 * every 37th, 101st and 211th when `inexact` (gaps shorter and longer than the map steps over,
 * across blocks, rows and planes). */
static void make_output(output *o, const pick *p, int at, bool inexact)
{
    memset(o, 0, sizeof *o);
    for (int k = 0; k < N; k++) {
        double x = k % 128 + 1;
        o->v[k] = (ref_value){.hi = x, .sum_abs = x, .nterms = 2, .nops = 1};
        o->alt_first[k] = -1;
        o->got[k] = x;
    }
    for (int k = 0; inexact && k < N; k++)
        if (k == 1 || k % 37 == 36 || k % 101 == 100 || k % 211 == 210) o->got[k] += 1.0 / 64;
    if (inexact) o->v[4].lo = 0x1p-12;
    o->v[at].hi = p->hi;
    o->v[at].lo = p->lo;
    o->v[at].sum_abs = fabs(p->hi);
    o->got[at] = p->got;
    o->flags[at] = p->flags;
    if (p->flags & REF_FLAG_AMBIGUOUS) {
        o->alts[0] = o->v[at];
        o->alts[1] = o->v[at];
        o->alts[1].hi = p->hi * 2;
        o->alt_first[at] = 0;
        o->alt_count[at] = 2;
    }
    if (p->flags & REF_FLAG_INTERVAL) {
        o->ival[2 * at] = -0.25;
        o->ival[2 * at + 1] = 0.25;
    }
    o->out = (ref_output){N, o->v, o->flags, o->alt_first, o->alt_count, o->alts, 2, o->ival};
}

/* How judge_on judges: one element at a time, the one pass, the one pass hashing raw. */
enum { EACH, ONE_PASS, HASHED };

/* Bytes standing for the stored elements (any will do: the pass hashes them, the judge reads
 * got), and their FNV-1a from the published offset basis, computed here on its own. */
static unsigned char raw[8 * N];
static uint64_t raw_hash;

static size_t dtype_bytes(ref_dtype dt)
{
    return dt == REF_DT_DOUBLE ? 8 : dt == REF_DT_FLOAT ? 4 : 2;
}

static void make_raw(ref_dtype dt, uint64_t seed)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1, h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < N * dtype_bytes(dt); i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        raw[i] = (unsigned char)(x >> 24);
        h = (h ^ raw[i]) * 0x100000001b3ull;
    }
    raw_hash = h;
}

/* Chunks of judge_on: 500 elements (three chunks), or all N in one (two whole blocks of
 * tolerance_blocks and part of a third) */
static int chunk_elems = 500;

static void judge_on(output *o, ref_dtype dt, const ref_path *path, const cts_tolerance *tol,
                     int how, cts_verdict *v, cts_error_grid *map)
{
    uint64_t hash = 0xcbf29ce484222325ull;
    size_t esize = dtype_bytes(dt);
    memset(v, 0, sizeof *v);
    memset(map, 0, sizeof *map);
    v->status = CTS_PASS;
    v->worst_index = -1;
    cts_judged_output jo = {"grad_input", dt, 3, dims, N, o->got, &o->out, false};
    cts_output_judge *j = cts_judge_begin(tol, path, &jo, true, NULL, &v->el);
    assert_non_null(j);
    for (int first = 0; first < N; first += chunk_elems) {
        ref_output part = o->out;
        part.numel = N - first < chunk_elems ? N - first : chunk_elems;
        part.v += first;
        if (part.plain_hi) part.plain_hi += first;
        part.flags += first;
        part.alt_first += first;
        part.alt_count += first;
        part.ival += 2 * first;
        ref_chunk ch = {0, first, &part};
        if (how == EACH) cts_judge_chunk_each(j, &ch, o->got + first);
        else if (how == ONE_PASS) cts_judge_chunk_got(j, &ch, o->got + first);
        else cts_judge_chunk_hashed(j, &ch, o->got + first, raw + first * esize, (int)esize,
                                    &hash);
    }
    cts_judge_end(j, v, map);
    if (how == HASHED) assert_true(hash == raw_hash);
}

static void judge(output *o, ref_dtype dt, const cts_tolerance *tol, int how, cts_verdict *v,
                  cts_error_grid *map)
{
    judge_on(o, dt, &vector_fp32, tol, how, v, map);
}

static void agree(ref_dtype dt, const pick *picks, size_t npicks)
{
    static const cts_tolerance tols[] = {
        {.kind = CTS_TOL_BOUND, .name = "bound"},
        {.kind = CTS_TOL_ULP, .name = "ulp", .ulps = 1},
        {.kind = CTS_TOL_ALLCLOSE, .name = "torch-default"},
        {.kind = CTS_TOL_SHARE, .name = "ascend-thousandth"}};
    static const int places[] = {0, 2 * W + 8, N - 1};
    for (size_t p = 0; p < npicks; p++)
        for (size_t t = 0; t < sizeof tols / sizeof tols[0]; t++)
            for (size_t a = 0; a < 2 * sizeof places / sizeof places[0]; a++) {
                static output o;
                cts_verdict fast, each;
                cts_error_grid fast_map, each_map;
                int at = places[a % 3];
                make_output(&o, &picks[p], at, a < 3);
                set_plain_hi(&o, (p + t + a) % 2);
                chunk_elems = (p + t) % 3 ? 500 : N;
                make_raw(dt, p * 16 + t * 4 + a);
                judge(&o, dt, &tols[t], a % 2 ? HASHED : ONE_PASS, &fast, &fast_map);
                judge(&o, dt, &tols[t], EACH, &each, &each_map);
                if (memcmp(&fast, &each, sizeof fast) == 0 &&
                    memcmp(&fast_map, &each_map, sizeof fast_map) == 0)
                    continue;
                print_message("%s pick %zu (%g + %g, got %g, flags %d), policy %s, at %d:\n"
                              "  one pass: %s\n  each:     %s\n",
                              ref_dtype_name(dt), p, picks[p].hi, picks[p].lo, picks[p].got,
                              picks[p].flags, tols[t].name, at, fast.message,
                              each.message);
                assert_memory_equal(&fast.el, &each.el, sizeof fast.el);
                assert_memory_equal(&fast_map, &each_map, sizeof fast_map);
                fail();
            }
}

#define PICKS(...)                                                                                \
    do {                                                                                          \
        const pick picks_[] = {__VA_ARGS__};                                                      \
        agree(dt, picks_, sizeof picks_ / sizeof picks_[0]);                                      \
    } while (0)

/* Picks every dtype shares. */
static void common_picks(ref_dtype dt)
{
    PICKS({1.5, 0, 1.5},                   /* exact */
          {0, 0, 0}, {-0.0, 0, 0}, {0, 0, -0.0}, /* zeros of either sign */
          {1.5, 0x1p-60, 1.5},             /* got == hi, a low part: not exact */
          {1.5, 0, 1.75},                  /* an error */
          {1 + 0x1p-40, 0, 1 + 0x1p-40},   /* got == hi, a value no narrow dtype holds */
          {INFINITY, 0, INFINITY}, {-INFINITY, 0, -INFINITY}, {1.5, 0, INFINITY},
          {NAN, 0, NAN}, {1.5, 0, NAN}, {INFINITY, 0, 1.5},
          {1.5, 0, 1.5, REF_FLAG_UNCHECKABLE}, {1.5, 0, 1.5, REF_FLAG_AMBIGUOUS},
          {1.5, 0, 3.0, REF_FLAG_AMBIGUOUS}, {1.5, 0, 1.5, REF_FLAG_INTERVAL},
          {1.5, 0, 2.25, REF_FLAG_AMBIGUOUS}, {1.5, 0, 2.5, REF_FLAG_AMBIGUOUS},
          {1.5, 0x1p-40, 1.75, REF_FLAG_AMBIGUOUS}, {1.5, 0, NAN, REF_FLAG_AMBIGUOUS},
          {1.5, 0, INFINITY, REF_FLAG_AMBIGUOUS | REF_FLAG_RANGE},
          {INFINITY, 0, INFINITY, REF_FLAG_AMBIGUOUS},
          {1.5, 0, 1.5, REF_FLAG_RANGE});
}

static void test_float16(void **state)
{
    (void)state;
    ref_dtype dt = REF_DT_FLOAT16;
    common_picks(dt);
    PICKS({0x1p-24, 0, 0x1p-24}, {3 * 0x1p-24, 0, 3 * 0x1p-24}, /* subnormals */
          {-0x1.ff8p-15, 0, -0x1.ff8p-15},                      /* the largest subnormal */
          {0x1p-25, 0, 0x1p-25}, {3 * 0x1p-26, 0, 3 * 0x1p-26}, /* below 2^-24's multiples */
          {0x1p-14, 0, 0x1p-14}, {65504, 0, 65504},             /* smallest normal, max */
          {65536, 0, 65536}, {2049, 0, 2049},                    /* past max, 12 bits */
          {1 + 0x1p-10, 0, 1 + 0x1p-10}, {1 + 0x1p-11, 0, 1 + 0x1p-11});
}

static void test_bf16(void **state)
{
    (void)state;
    ref_dtype dt = REF_DT_BF16;
    common_picks(dt);
    PICKS({0x1p-133, 0, 0x1p-133}, {0x1p-134, 0, 0x1p-134}, /* smallest subnormal, below */
          {0x1.fep127, 0, 0x1.fep127}, {0x1.ffp127, 0, 0x1.ffp127},
          {257, 0, 257}, {1 + 0x1p-7, 0, 1 + 0x1p-7}, {1e300, 0, 1e300});
}

static void test_float32(void **state)
{
    (void)state;
    ref_dtype dt = REF_DT_FLOAT;
    common_picks(dt);
    PICKS({0x1p-149, 0, 0x1p-149}, {0x1p-150, 0, 0x1p-150}, {0x1.fffffep127, 0, 0x1.fffffep127},
          {0x1p128, 0, 0x1p128}, {1 + 0x1p-23, 0, 1 + 0x1p-23}, {1 + 0x1p-24, 0, 1 + 0x1p-24});
}

/* ---- the batched pass over long runs of plain inexact elements ---- */

static uint64_t rng_state;

static uint64_t rng(void)
{
    uint64_t x = (rng_state += 0x9e3779b97f4a7c15ull);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static double uniform(void) { return (double)(rng() >> 11) * 0x1p-53; }

/* The smallest subnormal and the significant bits of dt. */
static void dtype_format(ref_dtype dt, double *tiny, int *p)
{
    switch (dt) {
    case REF_DT_FLOAT16: *tiny = 0x1p-24, *p = 11; return;
    case REF_DT_BF16: *tiny = 0x1p-133, *p = 8; return;
    case REF_DT_FLOAT: *tiny = 0x1p-149, *p = 24; return;
    default: *tiny = 0x1p-1074, *p = 53; return;
    }
}

/* A result got of dt and an exact value hi whose error |got - hi| is exactly the limit of a
 * named standard (0: torch-default, atol + rtol |hi|; 1: ascend-thousandth, rel max(|hi|,
 * threshold)): its units are exactly 1, which the standard accepts (<= 1). Below the
 * threshold the share's limit is a constant C, and got in [C, 2C] with hi = got - C is exact;
 * otherwise exact equality needs the limit to fall on hi's grid, about one got in a thousand:
 * got steps through [1, 16) in the dtype, hi starts from the solution of the equation in
 * reals. Found once per dtype and standard. */
typedef struct {
    double got, hi;
} limit_pair;

static double standard_limit(const cts_tolerance *t, double hi)
{
    return t->kind == CTS_TOL_ALLCLOSE ? t->atol + t->rtol * fabs(hi)
                                       : t->rel * fmax(fabs(hi), t->small_threshold);
}

static limit_pair on_the_limit(ref_dtype dt, int standard)
{
    static const cts_tolerance named[2] = {{.kind = CTS_TOL_ALLCLOSE, .name = "torch-default"},
                                           {.kind = CTS_TOL_SHARE, .name = "ascend-thousandth"}};
    static limit_pair found[32][2]; /* by ref_dtype (BF16 is 27) */
    limit_pair *f = &found[dt][standard];
    if (f->got != 0) return *f;
    cts_tolerance t = cts_tolerance_resolved(&named[standard], dt);
    double tiny;
    int p;
    dtype_format(dt, &tiny, &p);
    if (standard == 1) { /* below the threshold the limit is a constant C: got in [C, 2C] */
        double c = standard_limit(&t, 0), got = ref_round_to(1.5 * c, dt), hi = got - c;
        if (fabs(hi) < t.small_threshold && got - hi == standard_limit(&t, hi))
            return *f = (limit_pair){got, hi};
    }
    for (double got = 1; got < 16; got += ldexp(1.0, ilogb(got) - (p - 1))) {
        double hi = standard == 0 ? (got - t.atol) / (1 + t.rtol) : got / (1 + t.rel);
        for (int i = 0; i < 16; i++) hi = nextafter(hi, -INFINITY);
        for (int i = 0; i < 32; i++, hi = nextafter(hi, INFINITY))
            if (got - hi == standard_limit(&t, hi)) return *f = (limit_pair){got, hi};
    }
    fail_msg("no element exactly on the limit of %s in %s", named[standard].name,
             ref_dtype_name(dt));
    return *f;
}

/* Element k of a run of mostly plain inexact elements, what the batched pass takes, with the
 * corners it leaves to the scalar functions or to the per-element path among them: subnormals
 * of the dtype, midpoints with a low part, zeros, copies of one element (ties for the worst),
 * Σ|terms| past the double range, underflow terms by bits and by magnitude, reference flags
 * and non-finite values (which break the runs), exact elements. */
static void make_plain(output *o, int k, ref_dtype dt, const ref_value *tie, double tie_got,
                       bool nonfinite)
{
    double tiny;
    int p;
    dtype_format(dt, &tiny, &p);
    ref_value *v = &o->v[k];
    double x = (1 + uniform()) * ldexp(1.0, (int)(rng() % 21) - 10) * (rng() & 1 ? -1 : 1);
    *v = (ref_value){.hi = x, .sum_abs = fabs(x) * (1 + 4 * uniform()),
                     .nterms = 1 + (int64_t)(rng() % 40), .nops = (int32_t)(rng() % 4)};
    if (rng() % 3 == 0) v->lo = x * 0x1p-60 * (uniform() - 0.5);
    if (rng() % 4 == 0) v->min_weight = uniform() * 0x1p-20;
    if (rng() % 5 == 0) v->coord_err = fabs(x) * 0x1p-12 * uniform();
    int kind = (int)(rng() % 24);
    if (kind == 0) v->under_mag = 0x1p-1070 * (double)(1 + rng() % 1000); /* by bits */
    if (kind == 1) v->under_mag = 0x1p-900 * (1 + uniform());             /* by magnitude */
    if (kind == 2) v->under_mag = 0x1p-1074 * (double)(1 + rng() % 7);    /* smallest subnormals */
    double got = ref_round_to(x * (1 + (uniform() - 0.5) * 0x1p-6), dt);
    if (kind == 3) { /* a subnormal of the dtype */
        uint64_t q = 1 + rng() % (rng() & 1 ? 50 : 1ull << (p - 1)); /* any binade */
        v->hi = v->sum_abs = tiny * (double)q * (1 + 0x1p-20 * uniform());
        got = ref_round_to(v->hi * (1 + (uniform() - 0.5) * 0.5), dt);
    }
    if (kind == 4) { /* a midpoint of the dtype with a low part of either sign */
        v->hi = ldexp((double)(2 * (rng() % 1024) + 1) + ldexp(1.0, p), -p - 2);
        v->lo = (rng() & 1 ? 1 : -1) * 0x1p-80;
        got = ref_round_to(v->hi + v->lo * 0x1p60, dt);
    }
    if (kind == 14) { /* normal, got below the normal range */
        v->hi = v->sum_abs = tiny * ldexp(1.0, p - 1) * (1 + 0.25 * uniform());
        got = ref_round_to(v->hi * (0.6 + 0.4 * uniform()), dt);
    }
    if (kind == 5) got = 0, v->hi = 0x1p-3 * (1 + uniform());      /* got zero */
    if (kind == 6) v->hi = v->lo = 0, v->sum_abs = 0x1p-4, got = ref_round_to(0x1p-9, dt);
    if (kind == 7 || kind == 8) *v = *tie, got = tie_got;         /* ties */
    if (kind == 9) v->sum_exp = 64, v->sum_abs = 1.5;               /* past the double range */
    if (kind == 15 || kind == 16) { /* exactly on a standard's limit */
        limit_pair l = on_the_limit(dt, kind - 15);
        got = l.got, v->hi = v->sum_abs = l.hi, v->lo = 0;
    }
    if (kind == 10) got = v->hi = ref_round_to(v->hi, dt), v->lo = 0; /* exact */
    if (kind == 13) /* errors (relative, in bound units) below the normal range */
        got = v->hi = ref_round_to(v->hi, dt), v->lo = (rng() & 1 ? 1 : -1) * 0x1p-1070;
    if (kind == 11 && rng() % 4 == 0) { /* breaks the run */
        static const uint8_t flags[] = {REF_FLAG_UNCHECKABLE, REF_FLAG_AMBIGUOUS,
                                        REF_FLAG_INTERVAL, REF_FLAG_RANGE};
        o->flags[k] = flags[rng() % 4];
        if (o->flags[k] & REF_FLAG_AMBIGUOUS) o->alt_first[k] = 0, o->alt_count[k] = 2;
        o->ival[2 * k] = -0x1p-8, o->ival[2 * k + 1] = 0x1p-8;
    }
    if (kind == 12 && nonfinite && rng() % 4 == 0) { /* non-finite (infinite sums after) */
        static const double odd[] = {NAN, INFINITY, -INFINITY};
        if (rng() & 1) got = odd[rng() % 3];
        else v->hi = odd[rng() % 3];
    }
    o->got[k] = got;
}

/* An output of runs of plain elements (make_plain), seeded. */
static void make_runs(output *o, ref_dtype dt, uint64_t seed)
{
    memset(o, 0, sizeof *o);
    rng_state = seed;
    ref_value tie = {.hi = 1.375 + 0x1p-30, .sum_abs = 3, .nterms = 3, .nops = 1};
    double tie_got = ref_round_to(1.375 * (1 + 0x1p-7), dt);
    for (int k = 0; k < N; k++) o->alt_first[k] = -1;
    for (int k = 0; k < N; k++) make_plain(o, k, dt, &tie, tie_got, seed % 3 == 0);
    o->alts[0] = o->alts[1] = tie;
    o->alts[1].hi *= 2;
    o->out = (ref_output){N, o->v, o->flags, o->alt_first, o->alt_count, o->alts, 2, o->ival};
}

static const ref_path cube_paths[] = {
    {.kind = REF_PATH_CUBE, .operand = REF_DT_FLOAT16, .name = "cube-fp16"},
    {.kind = REF_PATH_CUBE, .operand = REF_DT_FLOAT16, .premul = true, .result_fp16 = true,
     .name = "cube-premul-fp16"},
    {.kind = REF_PATH_VECTOR, .operand = REF_DT_FLOAT16, .name = "divide-fp16"}};

static void runs_agree(ref_dtype dt)
{
    static const cts_tolerance tols[] = {
        {.kind = CTS_TOL_BOUND, .name = "bound"},
        {.kind = CTS_TOL_ULP, .name = "ulp", .ulps = 2},
        {.kind = CTS_TOL_ULP, .name = "ulp:0"},
        {.kind = CTS_TOL_ALLCLOSE, .name = "torch-default"},
        {.kind = CTS_TOL_SHARE, .name = "ascend-thousandth"},
        {.kind = CTS_TOL_DOCUMENTED, .name = "documented-path"}};
    for (uint64_t seed = 1; seed <= 12; seed++)
        for (size_t t = 0; t < sizeof tols / sizeof tols[0]; t++) {
            static output o;
            cts_verdict fast, each;
            cts_error_grid fast_map, each_map;
            const ref_path *path = seed % 4 ? &cube_paths[seed % 4 - 1] : &vector_fp32;
            make_runs(&o, dt, seed);
            set_plain_hi(&o, (seed + t / 2) % 2);
            chunk_elems = seed % 3 ? 500 : N;
            make_raw(dt, seed * 8 + t);
            judge_on(&o, dt, path, &tols[t], (seed + t) % 2 ? HASHED : ONE_PASS, &fast,
                     &fast_map);
            judge_on(&o, dt, path, &tols[t], EACH, &each, &each_map);
            if (memcmp(&fast, &each, sizeof fast) == 0 &&
                memcmp(&fast_map, &each_map, sizeof fast_map) == 0)
                continue;
            print_message("%s seed %llu, policy %s, path %s:\n  one pass: %s\n  each:     %s\n",
                          ref_dtype_name(dt), (unsigned long long)seed, tols[t].name, path->name,
                          fast.message, each.message);
            assert_memory_equal(&fast.el, &each.el, sizeof fast.el);
            assert_memory_equal(&fast_map, &each_map, sizeof fast_map);
            fail();
        }
}

/* Element k of cts_exact_mask by its definition (judge_batch.h), through ref_round_to */
static bool exact_by_definition(double got, float ph, ref_dtype dt)
{
    return got == (double)ph && (got == 0 || ref_round_to(got, dt) == got);
}

/* The values test_exact_mask tries: every FP16 bit pattern's value, each nudged by a part in
 * 2^40 (no narrow dtype holds it) and by a part in 2^12 (an FP32 neither FLOAT16 nor BF16
 * holds), and FP16's and BF16's edges (ph always the edge); ph the value as a float, or a
 * neighbour of it for every seventh, NaN where the float is not finite. */
static int exact_mask_values(double *got, float *ph)
{
    static const double edges[] = {0.0, -0.0, 65504, 65520, 65536, 0x1p-24, 0x1p-25, 0x3p-26,
                                   0x1p-14, 0x1.ff8p-15, 0x1.ffcp-15, 0x1p-126, 0x1p-133,
                                   0x1p-149, 1 + 0x1p-7, 1 + 0x1p-8, 1 + 0x1p-10, 1 + 0x1p-11,
                                   0x1.fep127, INFINITY, -INFINITY, NAN, 0x1p200, 0x1p16,
                                   -0x1.8p17, 0x1p-25, -0x1p-30};
    int n = 0;
    for (uint32_t h = 0; h < 0x10000; h++) {
        uint32_t mag = h & 0x7fffu, sign = h >> 15;
        double x = mag >= 0x7c00u ? (mag == 0x7c00u ? INFINITY : NAN)
                   : mag < 0x400u ? ldexp(mag, -24)
                                  : ldexp((double)(0x400u | (mag & 0x3ffu)), (int)(mag >> 10) - 25);
        got[n++] = sign ? -x : x;
        got[n++] = (sign ? -x : x) * (1 + 0x1p-40);
        got[n++] = (sign ? -x : x) * (1 + 0x1p-12);
    }
    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++) got[n++] = edges[e];
    for (int k = 0; k < n; k++) /* plain_hi is a finite float or NaN (reference.h) */
        ph[k] = !isfinite((float)got[k])        ? NAN
                : k % 7 == 3 && k < 3 * 0x10000 ? nextafterf((float)got[k], INFINITY)
                                                : (float)got[k];
    return n;
}

/* cts_exact_mask (the clone this build runs) against its definition, in every dtype it serves,
 * in blocks of CTS_EXACT_BLOCK and of 300 (a word only partly used): each bit, and no bit past
 * the block's end. */
static void test_exact_mask(void **state)
{
    (void)state;
    enum { M = 3 * 0x10000 + 64 };
    static double got[M];
    static float ph[M];
    int n = exact_mask_values(got, ph);
    static const ref_dtype dts[] = {REF_DT_FLOAT16, REF_DT_BF16, REF_DT_FLOAT};
    static const int blocks[] = {CTS_EXACT_BLOCK, 300};
    int64_t exact[3] = {0, 0, 0};
    for (int d = 0; d < 3; d++)
        for (int b = 0; b < 2; b++)
            for (int at = 0; at < n; at += blocks[b]) {
                int len = n - at < blocks[b] ? n - at : blocks[b];
                uint64_t m[CTS_EXACT_BLOCK / 64];
                memset(m, 0xa5, sizeof m);
                cts_exact_mask(got + at, ph + at, len, dts[d], m);
                for (int k = 0; k < (len + 63) / 64 * 64; k++) {
                    bool bit = m[k / 64] >> (k % 64) & 1;
                    bool want = k < len && exact_by_definition(got[at + k], ph[at + k], dts[d]);
                    if (bit != want)
                        fail_msg("%s: element %d (%a, ph %a): bit %d", ref_dtype_name(dts[d]),
                                 at + k, got[at + k], (double)ph[at + k], bit);
                    exact[d] += b == 0 && bit;
                }
            }
    /* Both kinds in every dtype, and FLOAT holds every FP16 and BF16 value and the 2^-12
     * nudges besides */
    print_message("exact: FLOAT16 %lld, BF16 %lld, FLOAT %lld of %d\n", (long long)exact[0],
                  (long long)exact[1], (long long)exact[2], n);
    assert_true(exact[0] > 50000 && exact[1] > 5000 && exact[2] > exact[0] + 40000);
    assert_true(exact[2] > exact[1] && exact[2] < n);
}

static void test_runs_float16(void **state) { (void)state; runs_agree(REF_DT_FLOAT16); }
static void test_runs_bf16(void **state) { (void)state; runs_agree(REF_DT_BF16); }
static void test_runs_float32(void **state) { (void)state; runs_agree(REF_DT_FLOAT); }
static void test_runs_double(void **state) { (void)state; runs_agree(REF_DT_DOUBLE); }

/* FNV-1a's published 64-bit values ("", "a", "foobar"), the step output_hash takes. */
static void test_fnv1a(void **state)
{
    (void)state;
    const uint64_t basis = 0xcbf29ce484222325ull;
    assert_true(cts_fnv1a(basis, (const unsigned char *)"", 0) == basis);
    assert_true(cts_fnv1a(basis, (const unsigned char *)"a", 1) == 0xaf63dc4c8601ec8cull);
    assert_true(cts_fnv1a(basis, (const unsigned char *)"foobar", 6) == 0x85944171f73967e8ull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fnv1a),
        cmocka_unit_test(test_float16),
        cmocka_unit_test(test_bf16),
        cmocka_unit_test(test_float32),
        cmocka_unit_test(test_exact_mask),
        cmocka_unit_test(test_runs_float16),
        cmocka_unit_test(test_runs_bf16),
        cmocka_unit_test(test_runs_float32),
        cmocka_unit_test(test_runs_double),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
