/* results.jsonl records: escaping of strings a person or a crashing device may produce (quotes,
 * backslashes, newlines, control bytes, non-UTF-8 bytes), non-finite numbers, the 64-bit output
 * hash, round trips through the reader, and a file cut by kill -9. Expected texts are written
 * by hand from RFC 8259 (JSON) escaping rules. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "results/results.h"

static cts_result sample(void)
{
    cts_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.v.case_id, sizeof r.v.case_id, "s.c.kernel_size=[2,2].ascend910b");
    snprintf(r.suite, sizeof r.suite, "s");
    snprintf(r.op, sizeof r.op, "avgpool2d_backward");
    snprintf(r.dtype, sizeof r.dtype, "float16");
    snprintf(r.numerics, sizeof r.numerics, "cube_math_type=1");
    snprintf(r.product, sizeof r.product, "ascend910b");
    r.seed = 18446744073709551615u; /* 2^64-1: beyond a double, must survive as text */
    r.v.status = CTS_FAIL;
    snprintf(r.v.check, sizeof r.v.check, "tolerance");
    snprintf(r.v.message, sizeof r.v.message, "say \"hi\"\\ at\nline\t2 \x01 caf\xc3\xa9 \xff!");
    r.v.expected_status = 161002;
    r.v.got_status = 0;
    r.v.worst_ulp = INFINITY;
    r.v.worst_got = NAN;
    r.v.worst_exact = -INFINITY;
    r.v.worst_bound_units = 0.1;
    r.v.nelems = 5000000000;
    r.v.worst_index = -1;
    r.v.output_hash = 0xfedcba9876543210u;
    return r;
}

static void test_escaping(void **state)
{
    (void)state;
    cts_result r = sample();
    char buf[8192];
    size_t n = cts_jsonl_format(buf, sizeof buf, &r);
    assert_int_equal(n, strlen(buf));
    assert_null(strchr(buf, '\n')); /* one record, one line */
    assert_non_null(strstr(buf, "\"message\":\"say \\\"hi\\\"\\\\ at\\nline\\t2 \\u0001 "
                                "caf\xc3\xa9 \xef\xbf\xbd!\""));
    /* numbers are numbers or null: +-inf as +-1e999 (JSON number syntax), NaN as null */
    assert_non_null(strstr(buf, "\"worst_ulp\":1e999,"));
    assert_non_null(strstr(buf, "\"worst_got\":null,"));
    assert_non_null(strstr(buf, "\"worst_exact\":-1e999,"));
    assert_non_null(strstr(buf, "\"output_hash\":\"fedcba9876543210\""));
    assert_non_null(strstr(buf, "\"seed\":18446744073709551615"));
    assert_non_null(strstr(buf, "\"status\":\"FAIL\""));
    /* the op's numerics key is a string; an op without one has "" (no per-op column) */
    assert_non_null(strstr(buf, "\"numerics\":\"cube_math_type=1\""));
    assert_null(strstr(buf, "\"cube_math_type\":"));
    r.numerics[0] = 0;
    cts_jsonl_format(buf, sizeof buf, &r);
    assert_non_null(strstr(buf, "\"numerics\":\"\""));
    /* a short buffer is never overrun and the needed length is still reported */
    char small[16];
    assert_int_equal(cts_jsonl_format(small, sizeof small, &r), strlen(buf));
    assert_int_equal(strlen(small), sizeof small - 1);
}

/* The text of field key in record r, up to the next field (the value as written). */
static void field_text(const cts_result *r, const char *key, char *out, size_t len)
{
    static char buf[1 << 16];
    cts_jsonl_format(buf, sizeof buf, r);
    char pat[64];
    snprintf(pat, sizeof pat, ",\"%s\":", key);
    const char *p = strstr(buf, pat);
    assert_non_null(p);
    p += strlen(pat);
    const char *end = strstr(p, ",\""); /* no test string below holds a quote then a comma */
    assert_non_null(end);
    snprintf(out, len, "%.*s", (int)(end - p), p);
}

/* Strings and reals are written as jansson writes them (jansson is the oracle: json_dumps of
 * json_string / json_real): every ASCII byte, UTF-8 of 2 to 4 bytes, and doubles of random bit
 * patterns (subnormals and whole numbers among them) and of hand-picked forms. */
static void test_text_as_jansson_writes_it(void **state)
{
    (void)state;
    cts_result r = sample();
    char got[4096];
    for (int c = 1; c < 128; c++) {
        if (c == '"' || c == ',') continue; /* field_text's end marker ("\"" is in test_escaping) */
        snprintf(r.v.message, sizeof r.v.message, "a%cb\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80%c", c, c);
        json_t *j = json_string(r.v.message);
        char *want = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);
        field_text(&r, "message", got, sizeof got);
        assert_string_equal(got, want);
        free(want);
        json_decref(j);
    }
    uint64_t x = 0x243F6A8885A308D3ull;
    double hand[] = {0, -0.0, 1, 5, 100, 1e20, 1e21, 1e-5, 0.1, 123456789012345678.0, 4.9e-324,
                     2.2250738585072014e-308, 1.7976931348623157e308, 0.5, 1e15, 1e16, 1e17,
                     -1, -5, -123456, 999999999999999.0, -999999999999999.0, 1e15 - 0.5,
                     -1e14, 4503599627370496.0};
    for (int i = 0; i < 20000; i++) {
        double d;
        if (i < (int)(sizeof hand / sizeof hand[0])) d = hand[i];
        else {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            memcpy(&d, &x, sizeof d);
            if (i % 3 == 0) d = (double)(int64_t)(x >> 20); /* whole numbers */
        }
        if (!isfinite(d)) continue;
        r.v.worst_bound_units = d;
        json_t *j = json_real(d);
        char *want = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);
        field_text(&r, "worst_bound_units", got, sizeof got);
        if (strcmp(got, want)) fail_msg("%a: wrote %s, jansson %s", d, got, want);
        free(want);
        json_decref(j);
    }
}

static void test_round_trip(void **state)
{
    (void)state;
    cts_result r = sample(), back;
    char buf[8192], err[128];
    cts_jsonl_format(buf, sizeof buf, &r);
    assert_int_equal(cts_jsonl_parse(buf, &back, err, sizeof err), 0);
    assert_string_equal(back.v.case_id, r.v.case_id);
    /* the non-UTF-8 byte came back as U+FFFD (EF BF BD); everything else verbatim */
    assert_string_equal(back.v.message, "say \"hi\"\\ at\nline\t2 \x01 caf\xc3\xa9 \xef\xbf\xbd!");
    assert_int_equal(back.v.status, CTS_FAIL);
    assert_int_equal(back.v.expected_status, 161002);
    assert_true(back.seed == r.seed);
    assert_true(back.v.output_hash == r.v.output_hash);
    assert_true(back.v.nelems == 5000000000);
    assert_true(isinf(back.v.worst_ulp) && back.v.worst_ulp > 0);
    assert_true(isnan(back.v.worst_got));
    assert_true(back.v.worst_bound_units == 0.1); /* %.17g round-trips a double exactly */
    assert_string_equal(back.numerics, "cube_math_type=1");
    assert_string_equal(back.dtype, "float16");
}

/* The audit's element statistics: written only for cases that have them, histograms sparse as
 * "bin:count", the error grid as "OUTPUT H W PLANE ROWS COLS WORST HEX"; a round trip gives the
 * same bytes (what merge and --resume rely on). The numbers are arbitrary test data. */
static void test_element_statistics(void **state)
{
    (void)state;
    cts_result r = sample(), back;
    char buf[8192], err[128];
    cts_jsonl_format(buf, sizeof buf, &r);
    assert_null(strstr(buf, "\"el_n\"")); /* no statistics, no keys */
    assert_null(strstr(buf, "\"grid\""));
    assert_non_null(strstr(buf, "\"deterministic\":false"));
    r.deterministic = true;
    r.v.el.n = 4;
    r.v.el.skipped = 1;
    r.v.el.sum[0] = 5;
    r.v.el.max[0] = 5;
    r.v.el.sum[2] = 0.1;
    r.v.el.max[1] = INFINITY;
    r.v.el.meets[0] = 3;
    r.v.el.hist[0][0] = 3;
    r.v.el.hist[0][86] = 1;
    r.v.el.hist[2][163] = 4000000000u;
    snprintf(r.v.grid.output, sizeof r.v.grid.output, "grad_input");
    r.v.grid.h = 2;
    r.v.grid.w = 3;
    r.v.grid.plane = 7;
    r.v.grid.rows = 2;
    r.v.grid.cols = 3;
    r.v.grid.worst = 5.25;
    const uint8_t codes[6] = {0, 1, 0xab, 0xfe, 0xff, 0x10};
    memcpy(r.v.grid.code, codes, sizeof codes);
    cts_jsonl_format(buf, sizeof buf, &r);
    assert_non_null(strstr(buf, "\"deterministic\":true"));
    assert_non_null(strstr(buf, "\"el_n\":4,\"el_skipped\":1,\"ulp_sum\":5.0,"));
    assert_non_null(strstr(buf, "\"bound_max\":1e999,"));
    assert_non_null(strstr(buf, "\"hist_ulp\":\"0:3,86:1\",\"hist_bound\":\"\","
                                "\"hist_rel\":\"163:4000000000\""));
    assert_non_null(strstr(buf, "\"grid\":\"grad_input 2 3 7 2 3 5.25 0001abfeff10\""));
    assert_int_equal(cts_jsonl_parse(buf, &back, err, sizeof err), 0);
    assert_true(back.deterministic);
    assert_memory_equal(&back.v.el, &r.v.el, sizeof r.v.el);
    assert_memory_equal(&back.v.grid, &r.v.grid, sizeof r.v.grid);
    /* malformed statistics are errors, not silently zero */
    assert_int_equal(cts_jsonl_parse("{\"id\":\"a\",\"hist_ulp\":\"164:1\"}", &back, err,
                                     sizeof err), -1);
    assert_int_equal(cts_jsonl_parse("{\"id\":\"a\",\"hist_ulp\":\"3:x\"}", &back, err,
                                     sizeof err), -1);
    assert_int_equal(cts_jsonl_parse("{\"id\":\"a\",\"grid\":\"g 2 3 0 2 3 1 00\"}", &back,
                                     err, sizeof err), -1);
}

static void test_parse_errors(void **state)
{
    (void)state;
    cts_result r;
    char err[128];
    assert_int_equal(cts_jsonl_parse("{\"id\":\"a\",\"status\":\"PASS\"}", &r, err, sizeof err),
                     0);
    /* unknown keys are ignored (newer writers), escapes decode, surrogate pairs join */
    assert_int_equal(cts_jsonl_parse("{\"id\":\"\\u00e9\\ud83d\\ude00\",\"new\":[1]}", &r, err,
                                     sizeof err), -1); /* arrays are not part of the format */
    assert_int_equal(cts_jsonl_parse("{\"id\":\"\\u00e9\\ud83d\\ude00\",\"new\":true}", &r, err,
                                     sizeof err), 0);
    assert_string_equal(r.v.case_id, "\xc3\xa9\xf0\x9f\x98\x80");
    assert_int_equal(cts_jsonl_parse("{\"status\":\"PASS\"}", &r, err, sizeof err), -1);
    assert_int_equal(cts_jsonl_parse("{\"id\":\"a\",\"status\":\"GOOD\"}", &r, err, sizeof err),
                     -1);
    assert_int_equal(cts_jsonl_parse("{\"id\":\"a\",\"got_status\":12x}", &r, err, sizeof err),
                     -1);
    assert_int_equal(cts_jsonl_parse("{\"id\":\"a\"", &r, err, sizeof err), -1);
    assert_int_equal(cts_jsonl_parse("{\"id\":\"a\"} x", &r, err, sizeof err), -1);
    assert_int_equal(cts_jsonl_parse("{\"id\":\"a\nb\"}", &r, err, sizeof err), -1);
}

/* Records written before the numerics key had avg-pool's cubeMathType as a column of its own
 * (null for the grid sampler): merge, resume and audit read it as the same numerics key a new
 * record has, so old and new records group together; "numerics" wins when both are there. */
static void test_numerics_of_older_records(void **state)
{
    (void)state;
    cts_result r;
    char err[128];
    assert_int_equal(cts_jsonl_parse("{\"id\":\"a\",\"cube_math_type\":3}", &r, err, sizeof err),
                     0);
    assert_string_equal(r.numerics, "cube_math_type=3");
    assert_int_equal(cts_jsonl_parse("{\"id\":\"a\",\"cube_math_type\":null}", &r, err,
                                     sizeof err), 0);
    assert_string_equal(r.numerics, "");
    assert_int_equal(cts_jsonl_parse("{\"id\":\"a\",\"numerics\":\"x=1\",\"cube_math_type\":2}",
                                     &r, err, sizeof err), 0);
    assert_string_equal(r.numerics, "x=1");
    assert_int_equal(cts_jsonl_parse("{\"id\":\"a\",\"cube_math_type\":\"1\"}", &r, err,
                                     sizeof err), -1);
    assert_string_equal(err, "\"cube_math_type\": expected null or an integer >= 0");
}

/* Every numeric field through format and parse keeps its bits: subnormals (the smallest, the
 * largest, one in the middle: strtod flags them ERANGE), +-0, +-inf, extremes of every integer
 * width. NaN is null and comes back as a NaN. Values are IEEE 754 binary64 constants. */
static void test_special_values_round_trip(void **state)
{
    (void)state;
    static const double specials[] = {0.0, -0.0, 4.9406564584124654e-324, -4.9406564584124654e-324,
                                      2.2250738585072009e-308, 1.5e-310, -1.5e-310,
                                      2.2250738585072014e-308, 1.7976931348623157e308,
                                      -1.7976931348623157e308, INFINITY, -INFINITY, 0.1,
                                      1.0 / 3.0, 9007199254740993.0, NAN};
    const size_t ns = sizeof specials / sizeof specials[0];
    for (size_t k = 0; k < ns; k++) {
        cts_result r = sample(), back;
        double x = specials[k], y = specials[(k + 5) % ns];
        double *d[] = {&r.v.worst_ulp, &r.v.worst_bound_units, &r.v.worst_rel, &r.v.worst_got,
                       &r.v.worst_exact, &r.v.spread_ulp, &r.v.t_total, &r.v.t_gen,
                       &r.v.t_device, &r.v.t_ref, &r.v.t_check, &r.v.c_total, &r.v.c_gen,
                       &r.v.c_device, &r.v.c_ref, &r.v.c_check, &r.v.el.sum[0], &r.v.el.sum[1],
                       &r.v.el.sum[2], &r.v.el.max[0], &r.v.el.max[1], &r.v.el.max[2],
                       &r.v.grid.worst};
        for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) *d[i] = i % 2 ? y : x;
        r.v.el.n = 1;
        r.v.grid.rows = r.v.grid.cols = r.v.grid.h = r.v.grid.w = 1;
        snprintf(r.v.grid.output, sizeof r.v.grid.output, "g");
        r.seed = k % 2 ? UINT64_MAX : 0;
        r.v.nelems = k % 2 ? INT64_MIN : INT64_MAX;
        r.v.el.skipped = k % 2 ? INT64_MAX : INT64_MIN;
        r.v.worst_index = k % 2 ? INT64_MIN : -1;
        r.v.expected_status = k % 2 ? INT32_MIN : INT32_MAX;
        r.v.output_hash = k % 2 ? UINT64_MAX : 0;
        char buf[16384], err[160];
        cts_jsonl_format(buf, sizeof buf, &r);
        assert_int_equal(cts_jsonl_parse(buf, &back, err, sizeof err), 0);
        for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
            double want = *d[i];
            double got = *(double *)((char *)&back + ((char *)d[i] - (char *)&r));
            if (isnan(want))
                assert_true(isnan(got));
            else
                assert_memory_equal(&got, &want, sizeof got); /* bits, so -0 != +0 */
        }
        assert_true(back.seed == r.seed);
        assert_true(back.v.nelems == r.v.nelems);
        assert_true(back.v.el.skipped == r.v.el.skipped);
        assert_true(back.v.worst_index == r.v.worst_index);
        assert_int_equal(back.v.expected_status, r.v.expected_status);
        assert_true(back.v.output_hash == r.v.output_hash);
        /* what the file holds is JSON with numbers or null: no quoted non-finite names */
        assert_null(strstr(buf, "Infinity"));
        assert_null(strstr(buf, "NaN"));
    }
}

/* A JSON document with a key twice is ambiguous (jq reads the last): refused. */
static void test_duplicate_key(void **state)
{
    (void)state;
    cts_result r;
    char err[160];
    assert_int_equal(cts_jsonl_parse("{\"id\":\"a\",\"status\":\"FAIL\",\"status\":\"PASS\"}",
                                     &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "duplicate"));
    /* the quoted names older writers used for non-finite numbers still read */
    assert_int_equal(cts_jsonl_parse("{\"id\":\"a\",\"worst_ulp\":\"-Infinity\","
                                     "\"worst_rel\":\"NaN\"}", &r, err, sizeof err), 0);
    assert_true(isinf(r.v.worst_ulp) && r.v.worst_ulp < 0);
    assert_true(isnan(r.v.worst_rel));
    /* a number where a string belongs, a fraction where an integer belongs */
    assert_int_equal(cts_jsonl_parse("{\"id\":7}", &r, err, sizeof err), -1);
    assert_int_equal(cts_jsonl_parse("{\"id\":\"a\",\"nelems\":1.5}", &r, err, sizeof err),
                     -1);
    assert_int_equal(cts_jsonl_parse("{\"id\":\"a\",\"seed\":-1}", &r, err, sizeof err), -1);
    assert_int_equal(cts_jsonl_parse("{\"id\":\"a\",\"seed\":18446744073709551616}", &r, err,
                                     sizeof err), -1);
}

static void test_read_cut_file(void **state)
{
    (void)state;
    char path[] = "/tmp/aclcts-test-jsonl-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    cts_result r = sample();
    assert_int_equal(cts_jsonl_append(f, &r), 0);
    snprintf(r.v.case_id, sizeof r.v.case_id, "second");
    assert_int_equal(cts_jsonl_append(f, &r), 0);
    long whole = ftell(f);
    fputs("{\"id\":\"third\",\"sta", f); /* what a kill during a write could leave */
    fclose(f);

    cts_result_list l = {0};
    long complete = 0;
    assert_int_equal(cts_jsonl_read(path, &l, &complete, stderr), 0);
    assert_int_equal(l.count, 2);
    assert_string_equal(l.r[1].v.case_id, "second");
    assert_int_equal(complete, whole);
    cts_result_list_free(&l);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escaping), cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_text_as_jansson_writes_it),
        cmocka_unit_test(test_parse_errors), cmocka_unit_test(test_read_cut_file),
        cmocka_unit_test(test_element_statistics), cmocka_unit_test(test_numerics_of_older_records),
        cmocka_unit_test(test_special_values_round_trip), cmocka_unit_test(test_duplicate_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
