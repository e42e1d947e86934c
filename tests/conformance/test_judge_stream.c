/* Streaming judgement (checks.h cts_judge_*): an output judged chunk by chunk, in any chunk
 * size, gives the verdict, audit statistics and error map that judging the whole output at once
 * gives (cts_check_tolerance, cts_check_expected_values, and cts_error_grid_fill, which judges
 * the map's plane again element by element under `bound`). The output mixes plain, ambiguous,
 * interval and unjudged elements over several planes, and fails in one plane. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check/check.h"

enum { N = 2 * 3 * 5 * 7 };
static const int64_t dims[4] = {2, 3, 5, 7}; /* planes of 5 x 7 */
static const ref_path vector_fp32 = {.kind = REF_PATH_VECTOR, .operand = REF_DT_FLOAT,
                                     .name = "vector-fp32"};

typedef struct {
    ref_value v[N], alts[3 * N];
    uint8_t flags[N];
    int64_t alt_first[N];
    int32_t alt_count[N];
    double ival[2 * N], got[N];
    ref_output out;
} output;

/* Element k: exact value 1 + k/256 (Σ|terms| the same, 4 terms); every 11th ambiguous with a
 * second legal value 1/1024 away, every 13th an interval of ±2^-20, every 17th unjudged; got is
 * the FP32 rounding, off by 3·2^-20 at k = 3 of plane 4 (outside the bound) and by 2^-23 at
 * k = 40 (inside). */
static void make_output(output *o)
{
    memset(o, 0, sizeof *o);
    int64_t na = 0;
    for (int k = 0; k < N; k++) {
        double x = 1 + k / 256.0;
        o->v[k] = (ref_value){.hi = x, .sum_abs = x, .nterms = 4, .nops = 1};
        o->alt_first[k] = -1;
        o->got[k] = (double)(float)x;
        if (k % 11 == 0) {
            o->alts[na] = o->v[k];
            o->alts[na + 1] = o->v[k];
            o->alts[na + 1].hi = x + 1.0 / 1024;
            o->alt_first[k] = na;
            o->alt_count[k] = 2;
            o->flags[k] |= REF_FLAG_AMBIGUOUS;
            o->got[k] = (double)(float)(x + 1.0 / 1024);
            na += 2;
        }
        if (k % 13 == 0) {
            o->flags[k] |= REF_FLAG_INTERVAL;
            o->ival[2 * k] = -0x1p-20;
            o->ival[2 * k + 1] = 0x1p-20;
        }
        if (k % 17 == 0) o->flags[k] |= REF_FLAG_UNCHECKABLE;
    }
    o->got[4 * 35 + 3] += 3 * 0x1p-20;
    o->got[40] += 0x1p-23;
    o->out = (ref_output){N,       o->v, o->flags, o->alt_first, o->alt_count,
                          o->alts, na,   o->ival,  NULL};
}

static cts_judged_output judged(output *o)
{
    return (cts_judged_output){"input_grad", REF_DT_FLOAT, 4, dims, N, o->got, &o->out, false};
}

static void new_verdict(cts_verdict *v)
{
    memset(v, 0, sizeof *v);
    v->status = CTS_PASS;
    v->worst_index = -1;
}

/* A chunk [first, first + n) of o as a view (alternative indices stay those of o->alts). */
static ref_output view(const ref_output *o, int64_t first, int64_t n)
{
    return (ref_output){n, o->v + first, o->flags + first, o->alt_first + first,
                        o->alt_count + first, o->alts, o->nalts, o->ival + 2 * first,
                        o->plain_hi ? o->plain_hi + first : NULL};
}

static void judge_in_chunks(output *o, const cts_tolerance *tol, const cts_expected_values *e,
                            int64_t step, cts_verdict *v, cts_error_grid *map)
{
    cts_judged_output jo = judged(o);
    cts_output_judge *j = cts_judge_begin(tol, &vector_fp32, &jo, true, e, &v->el);
    assert_non_null(j);
    for (int64_t first = 0; first < N; first += step) {
        ref_output part = view(&o->out, first, N - first < step ? N - first : step);
        ref_chunk ch = {3, first, &part};
        cts_judge_chunk(j, &ch);
    }
    cts_judge_end(j, v, map);
}

static void test_chunks_judge_like_the_whole(void **state)
{
    (void)state;
    static output o;
    make_output(&o);
    cts_tolerance bound = {.kind = CTS_TOL_BOUND, .name = "bound"};
    double expect[2] = {1, 1.5};
    cts_expected_values e = {.any = true, .nvalues = 2, .values = expect};
    cts_judged_output jo = judged(&o);
    cts_verdict whole;
    new_verdict(&whole);
    assert_false(cts_check_tolerance(&bound, &vector_fp32, &jo, &whole));
    cts_check_expected_values(&bound, &vector_fp32, &jo, &e, &whole);
    assert_int_equal(whole.worst_index, 4 * 35 + 3);
    cts_error_grid grid;
    cts_error_grid_fill(&jo, &vector_fp32, whole.worst_index, &grid);
    assert_int_equal(grid.plane, 4);
    assert_true(grid.worst > 1);
    const int64_t steps[] = {1, 2, 7, 34, 35, 36, 100, N};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        cts_verdict v;
        cts_error_grid map;
        new_verdict(&v);
        memset(&map, 0, sizeof map);
        judge_in_chunks(&o, &bound, &e, steps[i], &v, &map);
        assert_int_equal(v.status, whole.status);
        assert_string_equal(v.check, whole.check);
        assert_string_equal(v.message, whole.message);
        assert_int_equal(v.worst_index, whole.worst_index);
        assert_int_equal(v.nelems, whole.nelems);
        assert_memory_equal(&v.el, &whole.el, sizeof v.el);
        assert_memory_equal(&map, &grid, sizeof map);
    }
}

/* A passing output: the unjudged note and the statistics match too; the map of a passing
 * output's worst element is that of its plane. */
static void test_chunks_pass_like_the_whole(void **state)
{
    (void)state;
    static output o;
    make_output(&o);
    o.got[4 * 35 + 3] = (double)(float)o.v[4 * 35 + 3].hi;
    cts_tolerance ulp = {.kind = CTS_TOL_ULP, .name = "ulp", .ulps = 2};
    cts_judged_output jo = judged(&o);
    cts_verdict whole;
    new_verdict(&whole);
    assert_true(cts_check_tolerance(&ulp, &vector_fp32, &jo, &whole));
    assert_non_null(strstr(whole.message, "not judged"));
    cts_error_grid grid;
    cts_error_grid_fill(&jo, &vector_fp32, whole.worst_index, &grid);
    for (int64_t step = 1; step <= N; step += 19) {
        cts_verdict v;
        cts_error_grid map;
        new_verdict(&v);
        judge_in_chunks(&o, &ulp, NULL, step, &v, &map);
        assert_string_equal(v.message, whole.message);
        assert_int_equal(v.worst_index, whole.worst_index);
        assert_memory_equal(&v.el, &whole.el, sizeof v.el);
        assert_memory_equal(&map, &grid, sizeof map);
    }
}

/* reference.h's plain_hi of element k, from its definition: hi where there is no flag, lo is
 * 0 and hi is a finite float; NaN otherwise */
static float plain_hi_of(const output *o, int k)
{
    const ref_value *v = &o->v[k];
    bool is_float = isfinite(v->hi) && (double)(float)v->hi == v->hi;
    return o->flags[k] == 0 && v->lo == 0 && is_float ? (float)v->hi : NAN;
}

/* make_output with elements the exact test must turn down: lo ≠ 0 (every 5th from 1), and an
 * exact value off FP32's grid that got equals (k = 53: no FP32 device gives it, and the judge
 * must not count it exact: 2^-7 ULP from the correctly rounded 1). Element 0 is plain and
 * exact (no flag): the first element judged, before any worst element exists. kind 0: fails
 * in one plane; 1: passes; 2: every element plain and exact (the worst element is then the
 * first, of error 0). ph: their plain_hi by definition. */
static void make_mixed(output *o, float *ph, int kind)
{
    make_output(o);
    o->flags[0] = 0;
    o->alt_first[0] = -1;
    o->alt_count[0] = 0;
    o->got[0] = o->v[0].hi;
    if (kind > 0) o->got[4 * 35 + 3] = (double)(float)o->v[4 * 35 + 3].hi;
    for (int k = 1; k < N && (kind < 2 || kind == 4); k += 5) o->v[k].lo = 0x1p-40;
    if (kind < 2) o->v[53].hi = o->got[53] = 1 + 0x1p-30;
    if (kind == 4) o->v[53].hi = o->got[53] = 1 + 0x1p-20; /* a float, no FLOAT16 */
    for (int k = 0; k < N && kind == 2; k++) {
        o->flags[k] = 0;
        o->alt_first[k] = -1;
        o->alt_count[k] = 0;
        o->got[k] = o->v[k].hi;
    }
    for (int k = 0; k < N; k++) ph[k] = plain_hi_of(o, k);
}

/* The output, of dtype dt (FLOAT, FLOAT16 or DOUBLE), judged in chunks of `step`, through
 * cts_judge_chunk_hashed when hash is not NULL (got's FLOAT or DOUBLE bytes; for FLOAT16 the
 * FLOAT bytes' low halves: the same bytes both ways is all the test asks of them). */
static void judge_hashed(output *o, ref_dtype dt, const cts_tolerance *tol, int64_t step,
                         uint64_t *hash, cts_verdict *v, cts_error_grid *map)
{
    cts_judged_output jo = judged(o);
    jo.dtype = dt;
    cts_output_judge *j = cts_judge_begin(tol, &vector_fp32, &jo, true, NULL, &v->el);
    assert_non_null(j);
    for (int64_t first = 0; first < N; first += step) {
        int64_t n = N - first < step ? N - first : step;
        ref_output part = view(&o->out, first, n);
        ref_chunk ch = {3, first, &part};
        float raw[N];
        for (int64_t k = 0; k < n; k++) raw[k] = (float)o->got[first + k];
        const void *bytes = dt == REF_DT_DOUBLE ? (const void *)(o->got + first) : raw;
        int esize = dt == REF_DT_DOUBLE ? 8 : dt == REF_DT_FLOAT16 ? 2 : 4;
        if (hash)
            cts_judge_chunk_hashed(j, &ch, o->got + first, bytes, esize, hash);
        else
            cts_judge_chunk(j, &ch);
    }
    cts_judge_end(j, v, map);
}

/* plain_hi (reference.h) is only a shortcut: judged with it, in any chunk size, hashed or not,
 * an output gives the verdict, worst element and errors, statistics, map and hash it gives
 * without. The outputs (make_mixed) fail in one plane (bound), pass (ULP), and are exact
 * throughout (ULP); kind 3 is kind 1 as a DOUBLE output, where element 53 (1 + 2^-30, no
 * float: plain_hi NaN) is exact all the same (judged, not counted, with plain_hi); kind
 * 4 is kind 1 as a FLOAT16 output whose element 53 is 1 + 2^-20, a float (its plain_hi) but no
 * FLOAT16, which got equals: not exact (exact_plain's dtype test). */
static void test_plain_hi_judges_alike(void **state)
{
    (void)state;
    static output o;
    static float ph[N];
    cts_tolerance bound = {.kind = CTS_TOL_BOUND, .name = "bound"};
    cts_tolerance ulp = {.kind = CTS_TOL_ULP, .name = "ulp", .ulps = 2};
    const cts_tolerance *tols[5] = {&bound, &ulp, &ulp, &ulp, &ulp};
    for (int kind = 0; kind < 5; kind++) {
        ref_dtype dt = kind == 3 ? REF_DT_DOUBLE : kind == 4 ? REF_DT_FLOAT16 : REF_DT_FLOAT;
        make_mixed(&o, ph, kind == 3 ? 1 : kind);
        const int64_t steps[] = {1, 7, 35, 36, N};
        for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
            for (int hashed = 0; hashed < 2; hashed++) {
                cts_verdict a, b;
                cts_error_grid ma, mb;
                uint64_t ha = 0xcbf29ce484222325ull, hb = ha;
                new_verdict(&a);
                new_verdict(&b);
                memset(&ma, 0, sizeof ma);
                memset(&mb, 0, sizeof mb);
                o.out.plain_hi = NULL;
                judge_hashed(&o, dt, tols[kind], steps[i], hashed ? &ha : NULL, &a, &ma);
                o.out.plain_hi = ph;
                judge_hashed(&o, dt, tols[kind], steps[i], hashed ? &hb : NULL, &b, &mb);
                if (kind < 3) { /* as DOUBLE or FLOAT16 the data's statuses differ */
                    assert_int_equal(a.status, kind ? CTS_PASS : CTS_FAIL);
                    assert_int_equal(a.worst_index, kind == 0 ? 4 * 35 + 3 : kind == 2 ? 0 : 40);
                }
                assert_int_equal(b.status, a.status);
                assert_string_equal(b.message, a.message);
                assert_int_equal(b.worst_index, a.worst_index);
                assert_true(b.worst_ulp == a.worst_ulp);
                assert_true(b.worst_bound_units == a.worst_bound_units);
                assert_true(b.worst_rel == a.worst_rel);
                assert_memory_equal(&b.el, &a.el, sizeof a.el);
                assert_memory_equal(&mb, &ma, sizeof ma);
                assert_true(ha == hb);
            }
    }
}

/* The judge takes plain_hi at its word: an element whose plain_hi equals got is exact, what v
 * says aside (so a chunk's plain_hi must be its v's: the drivers' tests check that). Here v
 * says 1.5 where got and plain_hi say 1: without plain_hi the output fails there, with it the
 * element is exact and the output passes: the pass reads plain_hi. */
static void test_plain_hi_is_what_the_judge_reads(void **state)
{
    (void)state;
    static output o;
    static float ph[N];
    make_mixed(&o, ph, 1);
    o.v[100].hi = 1.5;
    o.v[100].sum_abs = 1.5;
    o.got[100] = ph[100] = 1;
    cts_tolerance ulp = {.kind = CTS_TOL_ULP, .name = "ulp", .ulps = 2};
    for (int hashed = 0; hashed < 2; hashed++) { /* both passes: with the hash and without */
        cts_verdict a, b;
        uint64_t h = 0;
        new_verdict(&a);
        new_verdict(&b);
        o.out.plain_hi = NULL;
        judge_hashed(&o, REF_DT_FLOAT, &ulp, 35, hashed ? &h : NULL, &a, NULL);
        o.out.plain_hi = ph;
        judge_hashed(&o, REF_DT_FLOAT, &ulp, 35, hashed ? &h : NULL, &b, NULL);
        assert_int_equal(a.status, CTS_FAIL);
        assert_int_equal(a.worst_index, 100);
        assert_int_equal(b.status, CTS_PASS);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chunks_judge_like_the_whole),
        cmocka_unit_test(test_chunks_pass_like_the_whole),
        cmocka_unit_test(test_plain_hi_judges_alike),
        cmocka_unit_test(test_plain_hi_is_what_the_judge_reads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
