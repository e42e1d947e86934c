/* junit.xml and the summary table: XML escaping (the five entities, forbidden control bytes),
 * the mapping of statuses to <failure>/<error>/<skipped>, counts per suite, and the summary's
 * rows and worst numbers. Expected texts are written by hand from the XML 1.0 rules and the
 * JUnit schema the CI tools read (failures = FAIL, errors = CRASH/TIMEOUT/ERROR). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "results/results.h"

/* What fn writes, as a malloc'd string (through a temporary file). */
static char *capture(void (*fn)(FILE *, const void *), const void *arg)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    fn(f, arg);
    long n = ftell(f);
    char *buf = calloc((size_t)n + 1, 1);
    rewind(f);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return buf;
}

static void escape_fn(FILE *f, const void *s)
{
    cts_xml_escape(f, s);
}

static void test_escape(void **state)
{
    (void)state;
    char *out = capture(escape_fn, "a<b>&\"c\"'d'\x01\x1f\t\n\x7f" "caf\xc3\xa9");
    assert_string_equal(out, "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;??\t\n?caf\xc3\xa9");
    free(out);
}

static cts_result mk(const char *suite, const char *id, cts_status s, int cmt, const char *dt,
                     double ulp, double bound)
{
    cts_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.suite, sizeof r.suite, "%s", suite);
    snprintf(r.v.case_id, sizeof r.v.case_id, "%s", id);
    snprintf(r.op, sizeof r.op, "avgpool2d_backward");
    snprintf(r.dtype, sizeof r.dtype, "%s", dt);
    snprintf(r.product, sizeof r.product, "ascend910b");
    if (cmt >= 0) snprintf(r.numerics, sizeof r.numerics, "cube_math_type=%d", cmt);
    r.v.status = s;
    r.v.nelems = 4;
    r.v.worst_ulp = ulp;
    r.v.worst_bound_units = bound;
    r.v.t_total = 0.5;
    if (s != CTS_PASS) {
        snprintf(r.v.check, sizeof r.v.check, "tolerance");
        snprintf(r.v.message, sizeof r.v.message, "got 1 < exact 2 & more");
        snprintf(r.repro, sizeof r.repro, "aclcts run --filter 'a<b'");
    }
    return r;
}

static void junit_fn(FILE *f, const void *arg)
{
    const cts_result *r = arg;
    cts_junit_write(f, r, 5);
}

static void summary_fn(FILE *f, const void *arg)
{
    cts_summary_write(f, arg, 5, 0);
}

static void console_fn(FILE *f, const void *arg)
{
    cts_summary_console(f, arg, 5, 0);
}

static void test_junit(void **state)
{
    (void)state;
    cts_result r[5] = {
        mk("s1", "s1.a", CTS_PASS, 1, "float32", 0, 0.2),
        mk("s2", "s2.b", CTS_FAIL, 1, "float32", 3, 1.5),
        mk("s1", "s1.c", CTS_CRASH, 0, "float16", 0, 0),
        mk("s1", "s1.d", CTS_NOT_SUPPORTED, 0, "float16", 0, 0),
        mk("s2", "s2.e", CTS_TIMEOUT, 0, "float16", 0, 0),
    };
    char *x = capture(junit_fn, r);
    assert_non_null(strstr(x, "<testsuites name=\"aclcts\" tests=\"5\" failures=\"1\" "
                              "errors=\"2\" skipped=\"1\" time=\"2.500\">"));
    assert_non_null(strstr(x, "<testsuite name=\"s1\" tests=\"3\" failures=\"0\" errors=\"1\" "
                              "skipped=\"1\" time=\"1.500\">"));
    assert_non_null(strstr(x, "<testsuite name=\"s2\" tests=\"2\" failures=\"1\" errors=\"1\" "
                              "skipped=\"0\" time=\"1.000\">"));
    assert_non_null(strstr(x, "<testcase classname=\"s1\" name=\"a\" time=\"0.500000\"/>"));
    assert_non_null(strstr(x, "<failure type=\"FAIL\" message=\"tolerance: got 1 &lt; exact 2 "
                              "&amp; more\">repro: aclcts run --filter &apos;a&lt;b&apos;\n"
                              "</failure>"));
    assert_non_null(strstr(x, "<error type=\"CRASH\""));
    assert_non_null(strstr(x, "<error type=\"TIMEOUT\""));
    assert_non_null(strstr(x, "<skipped type=\"NOT_SUPPORTED\""));
    /* suite s1's cases are grouped even though s2's came between them */
    char *s1 = strstr(x, "name=\"s1\""), *s2 = strstr(x, "name=\"s2\"");
    char *c = strstr(x, "name=\"c\"");
    assert_true(s1 < c && c < s2);
    free(x);
}

static void test_summary(void **state)
{
    (void)state;
    cts_result r[5] = {
        mk("s1", "s1.a", CTS_PASS, 1, "float32", 0.5, 0.2),
        mk("s2", "s2.b", CTS_FAIL, 1, "float32", 3, 1.5),
        mk("s1", "s1.c", CTS_CRASH, 0, "float16", 0, 0),
        mk("s1", "s1.d", CTS_NOT_SUPPORTED, 0, "float16", 0, 0),
        mk("s2", "s2.e", CTS_PASS, -1, "float16", 1, 0.25),
    };
    snprintf(r[4].op, sizeof r[4].op, "grid_sampler2d_backward");
    char *x = capture(summary_fn, r);
    /* rows sorted by op, dtype, numerics key, product; counts in status order
     * PASS FAIL NOT_SUPPORTED WAIVED CRASH TIMEOUT ERROR RESOURCE_ERROR UNDEFINED; worst = max
     * over the row */
    assert_non_null(strstr(x, "| op | dtype | numerics | product |"));
    assert_non_null(strstr(x, "| avgpool2d_backward | float16 | cube_math_type=0 | ascend910b "
                              "| 0 | 0 | 1 | 0 | 1 | 0 | 0 | 0 | 0 | 0 | 0 |\n"));
    assert_non_null(strstr(x, "| avgpool2d_backward | float32 | cube_math_type=1 | ascend910b "
                              "| 1 | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 3 | 1.5 |\n"));
    assert_non_null(strstr(x, "| grid_sampler2d_backward | float16 | - | ascend910b | 1 | 0 | 0 "
                              "| 0 | 0 | 0 | 0 | 0 | 0 | 1 | 0.25 |\n"));
    assert_true(strstr(x, "| avgpool2d_backward | float16") <
                strstr(x, "| avgpool2d_backward | float32"));
    assert_non_null(strstr(x, "5 cases: 2 PASS 1 FAIL 1 NOT_SUPPORTED 1 CRASH"));
    /* each failing case, its repro line alone on the next line (four spaces), in a fence */
    assert_non_null(strstr(x, "\n```\nFAIL     s2.b [tolerance]"));
    assert_non_null(strstr(x, "\n    aclcts run --filter 'a<b'\n"));
    assert_null(strstr(x, "\nNOT_SUPPORTED")); /* only failing statuses get repro lines */
    free(x);

    /* The console form merges numerics keys: one line per op x dtype x product, only the
     * non-zero counts, the worst bound units of the line (1.5 beats 0.2; no numbers: "-"). */
    r[3].v.nelems = r[2].v.nelems = 0;
    x = capture(console_fn, r);
    assert_non_null(strstr(x, "\navgpool2d_backward      float16    ascend910b   "
                              "1 NOT_SUPPORTED, 1 CRASH       -\n"));
    assert_non_null(strstr(x, "\navgpool2d_backward      float32    ascend910b   "
                              "1 PASS, 1 FAIL                 1.5\n"));
    assert_non_null(strstr(x, "\ngrid_sampler2d_backward float16    ascend910b   "
                              "1 PASS                         0.25\n"));
    assert_null(strstr(x, "|---")); /* no Markdown table */
    assert_non_null(strstr(x, "5 cases: 2 PASS 1 FAIL 1 NOT_SUPPORTED 1 CRASH"));
    assert_non_null(strstr(x, "\nFAIL     s2.b [tolerance]"));
    assert_null(strstr(x, "```")); /* the console has no fence */
    free(x);

    cts_tally t;
    cts_tally_results(r, 5, &t);
    assert_int_equal(t.total, 5);
    assert_int_equal(cts_tally_exit_code(&t), 1);
    cts_tally_results(r + 3, 2, &t); /* NOT_SUPPORTED and PASS only */
    assert_int_equal(cts_tally_exit_code(&t), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape), cmocka_unit_test(test_junit),
        cmocka_unit_test(test_summary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
