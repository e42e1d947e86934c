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
    o->out = (ref_output){N, o->v, o->flags, o->alt_first, o->alt_count, o->alts, na, o->ival};
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
                        o->alt_count + first, o->alts, o->nalts, o->ival + 2 * first};
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chunks_judge_like_the_whole),
        cmocka_unit_test(test_chunks_pass_like_the_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
