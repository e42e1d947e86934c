/* Agreement with PyTorch float64 (tests/reference/fixtures/torch_f64.txt, made by
 * tools/make-torch-fixtures; read here without torch). PyTorch's CPU float64 kernels are a
 * faithful double implementation of the same algorithms, i.e. a REF_PATH_VECTOR device in double:
 * so each of its values must lie within ref_bound(DOUBLE, vector-double path, v) of the exact
 * value (γ(nops + n − 1, 2^-53)·Σ|terms| + coordinate term + 2^-53·|exact|: relative ~1e-15 for
 * well-conditioned elements) of some legal alternative. The bound is checked not to be vacuous:
 * below 1e-9·(Σ|terms| + 1) everywhere. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "reference.h"

static double *read_vals(FILE *f, const char *tag, int64_t want)
{
    char t[16];
    assert_int_equal(fscanf(f, "%15s", t), 1);
    assert_string_equal(t, tag);
    double *v = malloc((size_t)(want ? want : 1) * sizeof *v);
    char buf[64];
    for (int64_t i = 0; i < want; i++) {
        assert_int_equal(fscanf(f, "%63s", buf), 1);
        v[i] = strtod(buf, NULL);
    }
    return v;
}

static int check(const ref_output *o, const double *torch, const ref_path *path, const char *what,
                 int ncase)
{
    int bad = 0;
    for (int64_t i = 0; i < o->numel; i++) {
        bool ok = false;
        int32_t na = o->alt_count[i] ? o->alt_count[i] : 1;
        for (int32_t k = 0; k < na && !ok; k++) {
            const ref_value *v = o->alt_count[i] ? &o->alts[o->alt_first[i] + k] : &o->v[i];
            double b = ref_bound(REF_DT_DOUBLE, path, v);
            assert_true(b <= 1e-9 * (v->sum_abs + 1));
            ok = fabs(torch[i] - (v->hi + v->lo)) <= b;
        }
        if (o->flags[i] & REF_FLAG_UNCHECKABLE)
            ok = true;
        if (!ok) {
            print_message("case %d %s[%lld]: torch %.17g exact %.17g bound %.3g\n", ncase, what,
                          (long long)i, torch[i], o->v[i].hi, ref_bound(REF_DT_DOUBLE, path, &o->v[i]));
            bad++;
        }
    }
    return bad;
}

static void fixtures(void **state)
{
    (void)state;
    const char *src = getenv("ACLCTS_SOURCE_DIR");
    assert_non_null(src);
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/reference/fixtures/torch_f64.txt", src);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512];
    assert_non_null(fgets(line, sizeof line, f)); /* header comment */
    ref_path dpath = ref_grid_path(REF_DT_DOUBLE);
    int ncase = 0, bad = 0, nav = 0, ngr = 0;
    int64_t nel = 0;
    char tag[16];
    while (fscanf(f, "%15s", tag) == 1 && strcmp(tag, "end") != 0) {
        ncase++;
        if (!strcmp(tag, "avgpool")) {
            long long a[15];
            for (int i = 0; i < 15; i++)
                assert_int_equal(fscanf(f, "%lld", &a[i]), 1);
            ref_avgpool_params p = {a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9],
                                    a[10], a[11], a[12] != 0, a[13] != 0, a[14]};
            double *go = read_vals(f, "go", p.n * p.c * p.oh * p.ow);
            double *gi = read_vals(f, "gi", p.n * p.c * p.h * p.w);
            ref_output o;
            ref_options opt = {0};
            assert_int_equal(ref_avgpool2d_backward(&p, go, &opt, &o), 0);
            bad += check(&o, gi, &dpath, "gi", ncase);
            nel += o.numel;
            nav++;
            ref_output_free(&o);
            free(go);
            free(gi);
        } else {
            assert_string_equal(tag, "grid");
            long long a[9];
            for (int i = 0; i < 9; i++)
                assert_int_equal(fscanf(f, "%lld", &a[i]), 1);
            ref_grid_params p = {a[0], a[1], a[2], a[3], a[4], a[5], (ref_interp)a[6],
                                 (ref_padding)a[7], a[8] != 0};
            double *go = read_vals(f, "go", p.n * p.c * p.h_out * p.w_out);
            double *in = read_vals(f, "in", p.n * p.c * p.h_in * p.w_in);
            double *gr = read_vals(f, "grid", p.n * p.h_out * p.w_out * 2);
            double *dx = read_vals(f, "dx", p.n * p.c * p.h_in * p.w_in);
            double *dg = read_vals(f, "dg", p.n * p.h_out * p.w_out * 2);
            ref_output oi, og;
            ref_options opt = {.path = dpath};
            assert_int_equal(ref_grid_sampler2d_backward(&p, go, in, gr, &opt, &oi, &og), 0);
            bad += check(&oi, dx, &dpath, "dx", ncase);
            bad += check(&og, dg, &dpath, "dgrid", ncase);
            nel += oi.numel + og.numel;
            ngr++;
            ref_output_free(&oi);
            ref_output_free(&og);
            free(go); free(in); free(gr); free(dx); free(dg);
        }
    }
    fclose(f);
    print_message("%d avg-pool and %d grid-sampler fixtures, %lld elements, %d outside the bound\n",
                  nav, ngr, (long long)nel, bad);
    assert_true(nav >= 10 && ngr >= 10);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(fixtures)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
