/* Avg-pool against PyTorch float64: every avg-pool record of the fixture file within the bound
 * of the exact value (common/torch_fixtures.h says why that is the right bound). */
#include "torch_fixtures.h"

static void agrees_with_torch(void **state)
{
    (void)state;
    FILE *f = torch_open();
    torch_record r;
    int ncase = 0, n = 0, bad = 0;
    int64_t nel = 0;
    while (torch_next(f, &r) == 0) {
        ncase++;
        if (r.op == REF_OP_AVGPOOL2D_BACKWARD) {
            ref_output o;
            ref_options opt = {0};
            assert_int_equal(ref_avgpool2d_backward(&r.pool, r.go, &opt, &o), 0);
            bad += torch_check(&o, r.gi, "gi", ncase);
            nel += o.numel;
            n++;
            ref_output_free(&o);
        }
        torch_record_free(&r);
    }
    fclose(f);
    print_message("%d avg-pool fixtures, %lld elements, %d outside the bound\n", n, (long long)nel,
                  bad);
    assert_true(n >= 10);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(agrees_with_torch)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
