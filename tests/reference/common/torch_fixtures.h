/* Shared by the PyTorch float64 agreement tests (test_*_torch.c): the records of
 * tests/reference/fixtures/torch_f64.txt (made by tools/make-torch-fixtures, read here without
 * torch), one operator's problem and PyTorch's answers each, and the check of an output against
 * them. PyTorch's CPU float64 kernels are a faithful double implementation of the same algorithms,
 * i.e. a REF_PATH_VECTOR device in double: so each of its values must lie within ref_bound(DOUBLE,
 * vector-double path, v) of the exact value (γ(nops + n − 1, 2^-53)·Σ|terms| + coordinate term +
 * 2^-53·|exact|: relative ~1e-15 for well-conditioned elements) of some legal alternative. The
 * bound is checked not to be vacuous: below 1e-9·(Σ|terms| + 1) everywhere. */
#ifndef ACLCTS_TESTS_REFERENCE_TORCH_FIXTURES_H_
#define ACLCTS_TESTS_REFERENCE_TORCH_FIXTURES_H_

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "reference.h"
#include "reference_avgpool2d_backward.h"
#include "reference_grid_sampler2d_backward.h"

/* One record: an avg-pool problem (go → gi) or a grid sampler one (go, in, grid → dx, dg). */
typedef struct {
    ref_op op;
    ref_avgpool_params pool;
    ref_grid_params grid;
    double *go, *in, *gr, *gi, *dx, *dg; /* NULL where the op has none */
} torch_record;

static double *torch_read_vals(FILE *f, const char *tag, int64_t want)
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

/* A fixture file of tests/reference/fixtures/, past its header comment. */
static FILE *torch_open_named(const char *name)
{
    const char *src = getenv("ACLCTS_SOURCE_DIR");
    assert_non_null(src);
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/reference/fixtures/%s", src, name);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512];
    assert_non_null(fgets(line, sizeof line, f));
    return f;
}

static inline FILE *torch_open(void) { return torch_open_named("torch_f64.txt"); }

/* The next record into r (0), or 1 at the "end" line. */
static int torch_next(FILE *f, torch_record *r)
{
    char tag[16];
    memset(r, 0, sizeof *r);
    assert_int_equal(fscanf(f, "%15s", tag), 1);
    if (!strcmp(tag, "end"))
        return 1;
    if (!strcmp(tag, "avgpool")) {
        long long a[15];
        for (int i = 0; i < 15; i++)
            assert_int_equal(fscanf(f, "%lld", &a[i]), 1);
        ref_avgpool_params p = {a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9],
                                a[10], a[11], a[12] != 0, a[13] != 0, a[14]};
        r->op = REF_OP_AVGPOOL2D_BACKWARD;
        r->pool = p;
        r->go = torch_read_vals(f, "go", p.n * p.c * p.oh * p.ow);
        r->gi = torch_read_vals(f, "gi", p.n * p.c * p.h * p.w);
        return 0;
    }
    assert_string_equal(tag, "grid");
    long long a[9];
    for (int i = 0; i < 9; i++)
        assert_int_equal(fscanf(f, "%lld", &a[i]), 1);
    ref_grid_params p = {a[0], a[1], a[2], a[3], a[4], a[5], (ref_interp)a[6], (ref_padding)a[7],
                         a[8] != 0};
    r->op = REF_OP_GRID_SAMPLER2D_BACKWARD;
    r->grid = p;
    r->go = torch_read_vals(f, "go", p.n * p.c * p.h_out * p.w_out);
    r->in = torch_read_vals(f, "in", p.n * p.c * p.h_in * p.w_in);
    r->gr = torch_read_vals(f, "grid", p.n * p.h_out * p.w_out * 2);
    r->dx = torch_read_vals(f, "dx", p.n * p.c * p.h_in * p.w_in);
    r->dg = torch_read_vals(f, "dg", p.n * p.h_out * p.w_out * 2);
    return 0;
}

static void torch_record_free(torch_record *r)
{
    free(r->go); free(r->in); free(r->gr); free(r->gi); free(r->dx); free(r->dg);
}

/* The elements of o outside the bound of every legal alternative around PyTorch's values. */
static int torch_check(const ref_output *o, const double *torch, const char *what, int ncase)
{
    const ref_path path = ref_grid_path(REF_DT_DOUBLE);
    int bad = 0;
    for (int64_t i = 0; i < o->numel; i++) {
        bool ok = false;
        int32_t na = o->alt_count[i] ? o->alt_count[i] : 1;
        for (int32_t k = 0; k < na && !ok; k++) {
            const ref_value *v = o->alt_count[i] ? &o->alts[o->alt_first[i] + k] : &o->v[i];
            double b = ref_bound(REF_DT_DOUBLE, &path, v);
            assert_true(b <= 1e-9 * (v->sum_abs + 1));
            ok = fabs(torch[i] - (v->hi + v->lo)) <= b;
        }
        if (o->flags[i] & REF_FLAG_UNCHECKABLE)
            ok = true;
        if (!ok) {
            print_message("case %d %s[%lld]: torch %.17g exact %.17g bound %.3g\n", ncase, what,
                          (long long)i, torch[i], o->v[i].hi,
                          ref_bound(REF_DT_DOUBLE, &path, &o->v[i]));
            bad++;
        }
    }
    return bad;
}

#endif
