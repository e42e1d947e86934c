/* The bound-unit bins of report.html's first picture: exact 0, (0, 2^-10], one per octave up to
 * (1/2, 1], then (1, 2], (2, 4], > 4 and inf/NaN. The pass limit 1 must fall on the edge after
 * bin CTS_AUDIT_BOUND_PASS_LAST: an error of exactly 1 passes and is left of the line, the next
 * double above 1 fails and is right of it. Expected bins worked out by hand from that layout. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "report/report.h"

static int bin(double x) { return cts_audit_bound_bin(cts_stat_bin(x)); }

static void test_bound_bins(void **state)
{
    (void)state;
    assert_int_equal(bin(0), 0);
    assert_int_equal(bin(ldexp(1, -40)), 1);
    assert_int_equal(bin(ldexp(1, -10)), 1);
    assert_int_equal(bin(nextafter(ldexp(1, -10), 1)), 2);  /* (2^-10, 2^-9] */
    assert_int_equal(bin(0.3), 10);                         /* (1/4, 1/2] */
    assert_int_equal(bin(0.75), CTS_AUDIT_BOUND_PASS_LAST); /* (1/2, 1] */
    assert_int_equal(bin(1), CTS_AUDIT_BOUND_PASS_LAST);
    assert_int_equal(bin(nextafter(1, 2)), CTS_AUDIT_BOUND_PASS_LAST + 1);
    assert_int_equal(bin(2), 12);
    assert_int_equal(bin(3), 13);
    assert_int_equal(bin(4), 13);
    assert_int_equal(bin(5), 14);
    assert_int_equal(bin(1e300), 14);
    assert_int_equal(bin(INFINITY), 15);
    assert_int_equal(bin(NAN), 15);
    /* every half-octave bin maps somewhere, in order */
    for (int b = 1; b < CTS_STAT_BINS; b++)
        assert_true(cts_audit_bound_bin(b) >= cts_audit_bound_bin(b - 1));
    assert_int_equal(cts_audit_bound_bin_exp(CTS_AUDIT_BOUND_PASS_LAST), 0); /* edge 2^0 = 1 */
    assert_int_equal(cts_audit_bound_bin_exp(1), -10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_bound_bins)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
