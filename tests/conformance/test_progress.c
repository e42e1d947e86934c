/* The console progress line: on a terminal it is redrawn at most ~4 times a second however fast
 * cases finish, always shows the last case, and failing cases print their own lines. The
 * "terminal" is a memory stream with the tty flag set, so every byte written can be counted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/results.h"

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (; (s = strstr(s, what)); s += strlen(what))
        n++;
    return n;
}

/* Feeds n cases (the ones at fail_at fail) as fast as possible; returns what was printed. */
static char *feed(size_t n, size_t fail_at, double *elapsed)
{
    char *buf = NULL;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    cts_progress p;
    cts_progress_start(&p, f, false, n);
    p.tty = true;
    cts_result r;
    memset(&r, 0, sizeof r);
    for (size_t i = 0; i < n; i++) {
        r.v.status = i == fail_at ? CTS_FAIL : CTS_PASS;
        snprintf(r.v.case_id, sizeof r.v.case_id, "case.%zu", i);
        cts_progress_case(&p, &r);
    }
    *elapsed = cts_now() - p.t_start;
    cts_progress_end(&p);
    fclose(f);
    return buf;
}

static void test_redraws_are_rate_limited(void **state)
{
    (void)state;
    double el;
    char *out = feed(20000, (size_t)-1, &el);
    /* the first case, the last, and one per 0.25 s in between (+1 for rounding) */
    size_t redraws = count(out, "\r\033[K") - 1; /* the last one is progress_end's clear */
    size_t limit = 2 + (size_t)(el / 0.25) + 1;
    if (redraws > limit)
        fail_msg("%zu redraws in %.3f s (limit %zu)", redraws, el, limit);
    assert_non_null(strstr(out, "20000/20000 done, 0 failing"));
    free(out);
}

static void test_failing_case_is_printed_and_line_redrawn(void **state)
{
    (void)state;
    double el;
    char *out = feed(5000, 2500, &el);
    const char *fail_line = strstr(out, "FAIL     case.2500");
    assert_non_null(fail_line);
    /* the live line comes back right after the failing case's lines */
    assert_non_null(strstr(fail_line, "2501/5000 done, 1 failing"));
    assert_non_null(strstr(out, "5000/5000 done, 1 failing"));
    free(out);
}

/* The ETA weighs cases by their work: 10 s for the first case's 10 units of 100 leaves 90 s,
 * not the 10 s that counting cases (1 of 2 done) would say. */
static void test_eta_counts_work_not_cases(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    cts_progress p;
    cts_progress_start(&p, f, false, 2);
    p.tty = true;
    p.work_total = 100;
    p.t_start -= 10;
    cts_result r;
    memset(&r, 0, sizeof r);
    r.v.status = CTS_PASS;
    cts_progress_case_work(&p, &r, 10);
    cts_progress_end(&p);
    fclose(f);
    if (!strstr(buf, "1/2 done, 0 failing, ETA 1m30s"))
        fail_msg("printed: %s", buf);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_redraws_are_rate_limited),
        cmocka_unit_test(test_failing_case_is_printed_and_line_redrawn),
        cmocka_unit_test(test_eta_counts_work_not_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
