/* Grid sampler against PyTorch float64: every grid sampler record of the fixture file within
 * the bound of the exact value of some legal alternative (common/torch_fixtures.h says why that
 * is the right bound). */
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
        if (r.op == REF_OP_GRID_SAMPLER2D_BACKWARD) {
            ref_output oi, og;
            ref_options opt = {.path = ref_grid_path(REF_DT_DOUBLE)};
            assert_int_equal(ref_grid_sampler2d_backward(&r.grid, r.go, r.in, r.gr, &opt, &oi, &og),
                             0);
            bad += torch_check(&oi, r.dx, "dx", ncase);
            bad += torch_check(&og, r.dg, "dgrid", ncase);
            nel += oi.numel + og.numel;
            n++;
            ref_output_free(&oi);
            ref_output_free(&og);
        }
        torch_record_free(&r);
    }
    fclose(f);
    print_message("%d grid-sampler fixtures, %lld elements, %d outside the bound\n", n,
                  (long long)nel, bad);
    assert_true(n >= 10);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(agrees_with_torch)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
