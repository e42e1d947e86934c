/* Suite loading: valid suites expand to the ids and parameters worked out by hand below, and
 * every malformed suite in malformed/ gives exactly the messages of its .expected file.
 * Expected numbers: forward output sizes by hand from facts §4's formula (each derivation is in
 * a comment), ids from the id rule of suites/README.md. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "avgpool2d_backward/avgpool2d_backward.h"
#include "grid_sampler2d_backward/grid_sampler2d_backward.h"
#include "suite/suite.h"

/* Writes text to a fresh file in a temporary directory; returns its path (static storage). */
static char tmpdir[256];

static const char *write_suite(const char *name, const char *text)
{
    static char path[8][512];
    static int next;
    char *p = path[next++ % 8];
    snprintf(p, 512, "%s/%s", tmpdir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return p;
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/aclcts-suite-test-XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Loads and returns the error text (malloc'd) of the loader. */
static int load(const char *const *paths, int n, const cts_load_options *o, cts_case_list *l,
                char **errtext)
{
    size_t len;
    char *buf = NULL;
    FILE *err = open_memstream(&buf, &len);
    int r = cts_load_suites(paths, n, o, l, err);
    fclose(err);
    if (errtext)
        *errtext = buf;
    else
        free(buf);
    return r;
}

static const cts_case *find(const cts_case_list *l, const char *id)
{
    for (size_t i = 0; i < l->ncases; i++)
        if (!strcmp(l->cases[i].id, id))
            return &l->cases[i];
    return NULL;
}

static void assert_dims(const cts_tensor *t, int rank, const int64_t *d)
{
    assert_int_equal(t->rank, rank);
    for (int i = 0; i < rank; i++)
        assert_int_equal(t->dims[i], d[i]);
}

/* The example, split per op (a suite has one op). */
static const char *avg_basic =
    "suite: avgpool2d_backward.basic\n"
    "op: avgpool2d_backward\n"
    "product: [ascend910b, ascend910]\n"
    "seed: 7\n"
    "defaults: {tolerance: bound}\n"
    "cases:\n"
    "  - name: doc_example\n"
    "    dtype: float32\n"
    "    self_shape: [1, 16, 4, 4]\n"
    "    kernel_size: [4, 4]\n"
    "    stride: [1, 1]\n"
    "    padding: [0, 0]\n"
    "    cube_math_type: 1\n"
    "    data: {grad_output: ones}\n"
    "    expect: {values: {grad_input: 0.0625}}\n"
    "    quick: true\n"
    "  - name: ceil\n"
    "    self_shape: [2, 3, 5, 5]\n"
    "    kernel_size: [2]\n"
    "    stride: [2]\n"
    "    padding: [1]\n"
    "    matrix:\n"
    "      ceil_mode: [false, true]\n"
    "      dtype: [float32, float16]\n"
    "    exclude:\n"
    "      - {ceil_mode: true, dtype: float16}\n"
    "    tolerance: {float16: {ulp: 1}, float32/cmt3: ascend-ten-thousandth, default: torch-default}\n"
    "  - name: ncl_null_stride\n"
    "    self_shape: [16, 6, 6]\n"
    "    kernel_size: [3, 3]\n"
    "    null: [stride]\n"
    "    padding: [0]\n"
    "    cube_math_type: 3\n"
    "    quick: [ascend910]\n"
    "    tolerance: {float16: {ulp: 1}, float32/cmt3: ascend-ten-thousandth}\n"
    "    views: {self: {strides: [100, 10, 1], offset: 3}}\n"
    "    expect: {status: 161002}\n"
    "    waiver: {reason: vendor returns 161001 before 2026-01, status: [161001]}\n";

static const char *grid_basic =
    "suite: grid.basic\n"
    "op: grid_sampler2d_backward\n"
    "spec: vendor\n"
    "cases:\n"
    "  - name: modes\n"
    "    matrix:\n"
    "      dtype: [float32, float16]\n"
    "      interpolation_mode: [bilinear, nearest]\n"
    "      padding_mode: [zeros, border, reflection]\n"
    "      align_corners: [false, true]\n"
    "    input_shape: [2, 3, 5, 7]\n"
    "    grid_shape: [2, 4, 6, 2]\n"
    "    output_mask: [true, false]\n"
    "    data: {input: {uniform: [-2, 2]}, grid: {uniform: [-1.2, 1.2]}, "
    "grad_output: {normal: [0, 1]}}\n"
    "  - name: no_mask\n"
    "    product: ascend950\n"
    "    spec: doc\n"
    "    input_shape: [1, 1, 2, 2]\n"
    "    grid_shape: [1, 1, 1, 2]\n"
    "    output_mask: null\n"
    "    dtypes: {grid: float64}\n"
    "    formats: {input: nchw}\n"
    "    deterministic: true\n"
    "    repeat: 3\n";

static void test_avgpool_expansion(void **state)
{
    (void)state;
    const char *p = write_suite("a.yaml", avg_basic);
    cts_case_list l;
    char *err;
    assert_int_equal(load(&p, 1, NULL, &l, &err), 0);
    assert_string_equal(err, "");
    free(err);
    /* doc_example × 2 products + ceil (2×2 − 1 excluded) × 2 + ncl_null_stride × 2 = 10 */
    assert_int_equal(l.ncases, 10);
    /* order: case, then combination (first matrix key outermost), then product as listed */
    assert_string_equal(l.cases[0].id, "avgpool2d_backward.basic.doc_example.ascend910b");
    assert_string_equal(l.cases[1].id, "avgpool2d_backward.basic.doc_example.ascend910");
    assert_string_equal(l.cases[2].id,
                        "avgpool2d_backward.basic.ceil.ceil_mode=false.dtype=float32.ascend910b");
    assert_string_equal(l.cases[4].id,
                        "avgpool2d_backward.basic.ceil.ceil_mode=false.dtype=float16.ascend910b");
    assert_string_equal(l.cases[6].id,
                        "avgpool2d_backward.basic.ceil.ceil_mode=true.dtype=float32.ascend910b");
    assert_null(find(&l, "avgpool2d_backward.basic.ceil.ceil_mode=true.dtype=float16.ascend910b"));

    const cts_case *c = &l.cases[0];
    assert_ptr_equal(c->op, &cts_op_avgpool2d_backward);
    assert_int_equal(c->product, REF_PRODUCT_ASCEND910B);
    assert_int_equal(c->seed, 7);
    assert_int_equal(c->dtype, REF_DT_FLOAT);
    assert_int_equal(cts_param_int(c, AVG_CUBE_MATH_TYPE), 1);
    assert_true(c->quick);
    assert_true(cts_param_bool(c, AVG_COUNT_INCLUDE_PAD));  /* default, as in PyTorch */
    assert_int_equal(c->ntensors, 3);
    /* 4x4 input, kernel 4, stride 1, pad 0: (4 + 0 - 4)/1 + 1 = 1 */
    assert_dims(&c->t[0], 4, (int64_t[]){1, 16, 1, 1});
    assert_dims(&c->t[1], 4, (int64_t[]){1, 16, 4, 4});
    assert_dims(&c->t[2], 4, (int64_t[]){1, 16, 4, 4});
    assert_string_equal(c->t[0].name, "grad_output");
    assert_true(c->t[2].is_output);
    assert_int_equal(c->t[0].format, REF_FMT_NCHW);
    assert_int_equal(c->t[0].gen.kind, CTS_GEN_ONES);
    assert_true(c->expect_status_model);
    assert_true(c->expect_values[2].any);
    assert_int_equal(c->expect_values[2].nvalues, 1);
    assert_true(c->expect_values[2].values[0] == 0.0625);
    assert_int_equal(c->tolerance.kind, CTS_TOL_BOUND);
    assert_string_equal(c->mark.file, p);
    assert_int_equal(c->mark.line, 7);
    assert_int_equal(c->mark.column, 5);
    assert_string_equal(c->suite, "avgpool2d_backward.basic");
    assert_string_equal(c->name, "doc_example");

    /* ceil=false: H 5, k 2, s 2, p 1: floor((5 + 2 - 2)/2) + 1 = 3.
     * ceil=true: floor((5 + 2 - 2 + 1)/2) + 1 = 4, and (4 - 1)·2 = 6 >= 5 + 1, so 3. */
    c = find(&l, "avgpool2d_backward.basic.ceil.ceil_mode=false.dtype=float32.ascend910");
    assert_non_null(c);
    assert_dims(&c->t[0], 4, (int64_t[]){2, 3, 3, 3});
    assert_int_equal(c->param[AVG_KERNEL_SIZE].len, 1);
    assert_int_equal(c->param[AVG_KERNEL_SIZE].v[0], 2);
    assert_false(cts_param_bool(c, AVG_CEIL_MODE));
    /* float32 with cubeMathType 0: the float32/cmt3 entry does not apply, default does */
    assert_int_equal(c->tolerance.kind, CTS_TOL_ALLCLOSE);
    assert_string_equal(c->tolerance.name, "torch-default");
    assert_true(c->tolerance.rtol == 1.3e-6 && c->tolerance.atol == 1e-5);
    c = find(&l, "avgpool2d_backward.basic.ceil.ceil_mode=true.dtype=float32.ascend910");
    assert_non_null(c);
    assert_true(cts_param_bool(c, AVG_CEIL_MODE));
    assert_dims(&c->t[0], 4, (int64_t[]){2, 3, 3, 3});
    c = find(&l, "avgpool2d_backward.basic.ceil.ceil_mode=false.dtype=float16.ascend910");
    assert_int_equal(c->dtype, REF_DT_FLOAT16);
    assert_int_equal(c->t[1].dtype, REF_DT_FLOAT16);
    assert_int_equal(c->tolerance.kind, CTS_TOL_ULP);
    assert_true(c->tolerance.ulps == 1);

    /* NCL, stride null = kernel: 6 with kernel 3, stride 3: (6 - 3)/3 + 1 = 2 */
    c = find(&l, "avgpool2d_backward.basic.ncl_null_stride.ascend910");
    assert_non_null(c);
    assert_true(c->param[AVG_STRIDE].null);
    assert_dims(&c->t[0], 3, (int64_t[]){16, 2, 2});
    assert_int_equal(c->t[0].format, REF_FMT_NCL);
    assert_int_equal(c->t[2].format, REF_FMT_NCL);
    assert_true(c->t[1].has_strides);
    assert_int_equal(c->t[1].strides[0], 100);
    assert_int_equal(c->t[1].offset, 3);
    assert_false(c->t[0].has_strides);
    assert_false(c->expect_status_model);
    assert_int_equal(c->expect_status, 161002);
    assert_string_equal(c->waiver, "vendor returns 161001 before 2026-01");
    assert_int_equal(c->nwaiver_status, 1);
    assert_int_equal(c->waiver_status[0], 161001);
    /* float32 with cubeMathType 3 picks the float32/cmt3 entry: facts §5 ten-thousandth */
    assert_int_equal(c->tolerance.kind, CTS_TOL_SHARE);
    assert_true(c->tolerance.rel == 1e-4 && c->tolerance.min_share == 0.9999);
    assert_true(c->tolerance.small_threshold == 0x1p-20);
    /* default generator of inputs */
    assert_int_equal(c->t[0].gen.kind, CTS_GEN_UNIFORM);
    cts_case_list_free(&l);
    assert_int_equal(l.ncases, 0);
}

static void test_grid_expansion(void **state)
{
    (void)state;
    const char *p = write_suite("g.yaml", grid_basic);
    cts_case_list l;
    assert_int_equal(load(&p, 1, NULL, &l, NULL), 0);
    /* modes: 2·2·3·2 = 24 combinations × 6 products; no_mask: 1 (ascend950 only) */
    assert_int_equal(l.ncases, 24 * 6 + 1);
    const cts_case *c = &l.cases[0];
    assert_string_equal(c->id, "grid.basic.modes.dtype=float32.interpolation_mode=bilinear."
                               "padding_mode=zeros.align_corners=false.ascend910");
    assert_int_equal(c->spec, REF_SPEC_VENDOR_92); /* `vendor` names the newest release */
    assert_int_equal(c->ntensors, 5);
    /* gradOutput (input N, input C, grid H, grid W) */
    assert_dims(&c->t[0], 4, (int64_t[]){2, 3, 4, 6});
    assert_dims(&c->t[3], 4, (int64_t[]){2, 3, 5, 7});
    assert_dims(&c->t[4], 4, (int64_t[]){2, 4, 6, 2});
    assert_int_equal(c->t[2].format, REF_FMT_ND);
    assert_int_equal(c->t[2].gen.kind, CTS_GEN_UNIFORM);
    assert_true(c->t[2].gen.a == -1.2 && c->t[2].gen.b == 1.2);
    assert_int_equal(c->t[0].gen.kind, CTS_GEN_NORMAL);
    assert_int_equal(c->param[GRID_OUTPUT_MASK].len, 2);
    assert_true(c->param[GRID_OUTPUT_MASK].v[0]);
    assert_false(c->param[GRID_OUTPUT_MASK].v[1]);
    /* the last combination of the matrix, last product */
    c = &l.cases[24 * 6 - 1];
    assert_string_equal(c->id, "grid.basic.modes.dtype=float16.interpolation_mode=nearest."
                               "padding_mode=reflection.align_corners=true.ascend950");
    assert_int_equal(cts_param_int(c, GRID_INTERPOLATION_MODE), 1);
    assert_int_equal(cts_param_int(c, GRID_PADDING_MODE), 2);
    assert_true(cts_param_bool(c, GRID_ALIGN_CORNERS));
    c = &l.cases[24 * 6];
    assert_string_equal(c->id, "grid.basic.no_mask.ascend950");
    assert_int_equal(c->spec, REF_SPEC_DOC);
    assert_true(c->param[GRID_OUTPUT_MASK].null);
    assert_int_equal(c->t[2].dtype, REF_DT_DOUBLE);
    assert_int_equal(c->t[1].dtype, REF_DT_FLOAT);
    assert_int_equal(c->t[1].format, REF_FMT_NCHW);
    assert_int_equal(c->t[0].format, REF_FMT_ND);
    assert_true(c->deterministic);
    assert_int_equal(c->repeat, 3);
    cts_case_list_free(&l);
}

static void test_options_and_directories(void **state)
{
    (void)state;
    char dir_path[300];
    snprintf(dir_path, sizeof dir_path, "%s/dir", tmpdir);
    assert_int_equal(mkdir(dir_path, 0700), 0);
    write_suite("dir/b.yaml", grid_basic);
    write_suite("dir/a.yaml", avg_basic);
    write_suite("dir/notes.txt", "not a suite");
    const char *dir = dir_path;
    cts_case_list l;
    /* a directory: a.yaml before b.yaml, notes.txt ignored */
    assert_int_equal(load(&dir, 1, NULL, &l, NULL), 0);
    assert_int_equal(l.ncases, 10 + 145);
    assert_string_equal(l.cases[0].suite, "avgpool2d_backward.basic");
    assert_string_equal(l.cases[10].suite, "grid.basic");
    cts_case_list_free(&l);

    cts_load_options o = {.product = "ascend910", .have_seed = true, .seed = 99, .quick = false};
    assert_int_equal(load(&dir, 1, &o, &l, NULL), 0);
    assert_int_equal(l.ncases, 5 + 24);
    for (size_t i = 0; i < l.ncases; i++) {
        assert_int_equal(l.cases[i].product, REF_PRODUCT_ASCEND910);
        assert_int_equal(l.cases[i].seed, 99);
    }
    cts_case_list_free(&l);

    o = (cts_load_options){.product = "all", .quick = true};
    assert_int_equal(load(&dir, 1, &o, &l, NULL), 0);
    /* doc_example on both products; ncl_null_stride only on ascend910 (quick: [ascend910]) */
    assert_int_equal(l.ncases, 3);
    assert_int_equal(l.cases[0].seed, 7);
    assert_string_equal(l.cases[2].id, "avgpool2d_backward.basic.ncl_null_stride.ascend910");
    cts_case_list_free(&l);

    char *err;
    o = (cts_load_options){.product = "ascend999"};
    assert_int_equal(load(&dir, 1, &o, &l, &err), 1);
    assert_int_equal(l.ncases, 0);
    assert_string_equal(err, "aclcts: error: --product: unknown product 'ascend999' (ascend910, "
                             "ascend910b, ascend910_93, ascend310p, ascend310b, ascend950, all)\n");
    free(err);
}

/* A directory is read with its operators' folders and no other subdirectory; a file's name in a
 * suite set is OPERATOR/FILE inside an operator's folder, else its file name. */
static void test_operator_folders(void **state)
{
    (void)state;
    char path[400];
    snprintf(path, sizeof path, "%s/set", tmpdir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/set/avgpool2d_backward", tmpdir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/set/extra", tmpdir);
    assert_int_equal(mkdir(path, 0700), 0);
    const char *in_op = write_suite("set/avgpool2d_backward/a.yaml", avg_basic);
    const char *extra = write_suite("set/extra/b.yaml", grid_basic);
    snprintf(path, sizeof path, "%s/set", tmpdir);
    const char *dir = path;
    cts_case_list l;
    assert_int_equal(load(&dir, 1, NULL, &l, NULL), 0);
    assert_int_equal(l.ncases, 10); /* avg_basic's; extra/ is read only when named */
    assert_string_equal(l.cases[0].mark.file, in_op);
    cts_case_list_free(&l);
    assert_int_equal(load(&extra, 1, NULL, &l, NULL), 0);
    assert_int_equal(l.ncases, 145);
    cts_case_list_free(&l);

    char key[300], cwd[1024];
    assert_non_null(getcwd(cwd, sizeof cwd));
    cts_suite_key(in_op, key, sizeof key);
    assert_string_equal(key, "avgpool2d_backward/a.yaml");
    cts_suite_key(extra, key, sizeof key);
    assert_string_equal(key, "b.yaml");
    assert_int_equal(chdir(path), 0); /* relative to an operator's folder, as ./NAME */
    cts_suite_key("avgpool2d_backward/a.yaml", key, sizeof key);
    assert_string_equal(key, "avgpool2d_backward/a.yaml");
    assert_int_equal(chdir("avgpool2d_backward"), 0);
    cts_suite_key("a.yaml", key, sizeof key);
    assert_string_equal(key, "avgpool2d_backward/a.yaml");
    assert_int_equal(chdir(cwd), 0);
}

/* Adding cases (before and after) and matrix keys elsewhere never changes an existing id. */
static void test_ids_stable(void **state)
{
    (void)state;
    const char *p = write_suite("a.yaml", avg_basic);
    cts_case_list l1, l2;
    assert_int_equal(load(&p, 1, NULL, &l1, NULL), 0);
    char *more = malloc(strlen(avg_basic) + 512);
    const char *cases = strstr(avg_basic, "cases:\n") + 7;
    sprintf(more, "%.*s  - name: first\n    self_shape: [1, 1, 2, 2]\n    kernel_size: [1]\n"
                  "    padding: [0]\n    matrix: {dtype: [float32, bfloat16]}\n%s",
            (int)(cases - avg_basic), avg_basic, cases);
    p = write_suite("a.yaml", more);
    free(more);
    assert_int_equal(load(&p, 1, NULL, &l2, NULL), 0);
    assert_int_equal(l2.ncases, l1.ncases + 4);
    for (size_t i = 0; i < l1.ncases; i++)
        assert_string_equal(l1.cases[i].id, l2.cases[i + 4].id);
    cts_case_list_free(&l1);
    cts_case_list_free(&l2);
}

/* Every malformed/NAME.yaml gives exactly malformed/NAME.expected, and no case. The loader is
 * given the bare file name (run from that directory) so the messages are machine-independent. */
/* ---- quoting: plain, '...' and "..." are the same string wherever a string is meant ---- */

/* Everything a suite can set in a case, as text, so two loads compare field by field. */
static void fingerprint(const cts_case *c, FILE *f)
{
    fprintf(f, "%s op=%s dt=%d p=%d spec=%d seed=%llu\n", c->id, c->op->name, c->dtype, c->product,
            c->spec, (unsigned long long)c->seed);
    for (int s = 0; s < c->ntensors; s++) {
        const cts_tensor *t = &c->t[s];
        fprintf(f, " %s null=%d dt=%d fmt=%d off=%lld dims", t->name, t->null, t->dtype,
                t->format, (long long)t->offset);
        for (int i = 0; i < t->rank; i++)
            fprintf(f, " %lld", (long long)t->dims[i]);
        for (int i = 0; t->has_strides && i < t->rank; i++)
            fprintf(f, " s%lld", (long long)t->strides[i]);
        fprintf(f, " gen=%d %g %g", t->gen.kind, t->gen.a, t->gen.b);
        for (size_t i = 0; i < t->gen.nvalues; i++)
            fprintf(f, " %g", t->gen.values[i]);
        fputc('\n', f);
    }
    for (int j = 0; j < c->op->nparams; j++) {
        fprintf(f, " %s null=%d", c->op->params[j].key, c->param[j].null);
        for (int i = 0; i < c->param[j].len; i++)
            fprintf(f, " %lld", (long long)c->param[j].v[i]);
    }
    fprintf(f, "\n model=%d status=%d tol=%d:%s ulps=%g rtol=%g atol=%g rel=%g share=%g small=%g",
            c->expect_status_model, c->expect_status, c->tolerance.kind, c->tolerance.name,
            c->tolerance.ulps, c->tolerance.rtol, c->tolerance.atol, c->tolerance.rel,
            c->tolerance.min_share, c->tolerance.small_threshold);
    for (int s = 0; s < CTS_MAX_TENSORS; s++)
        for (size_t i = 0; c->expect_values[s].any && i < c->expect_values[s].nvalues; i++)
            fprintf(f, " e%d=%g", s, c->expect_values[s].values[i]);
    fprintf(f, "\n det=%d repeat=%d waiver=%s", c->deterministic, c->repeat,
            c->waiver ? c->waiver : "-");
    for (int i = 0; i < c->nwaiver_status; i++)
        fprintf(f, " %d", c->waiver_status[i]);
    fprintf(f, " quick=%d\n", c->quick);
}

/* Loads the files (all products) and returns the fingerprints of all cases (malloc'd). */
static char *load_fingerprint(const char *const *paths, int n)
{
    cts_case_list l;
    char *err;
    int r = load(paths, n, NULL, &l, &err);
    if (r != 0)
        fprintf(stderr, "%s", err);
    assert_int_equal(r, 0);
    free(err);
    size_t len;
    char *buf = NULL;
    FILE *f = open_memstream(&buf, &len);
    for (size_t i = 0; i < l.ncases; i++)
        fingerprint(&l.cases[i], f);
    fclose(f);
    cts_case_list_free(&l);
    return buf;
}

/* tests/conformance/quoting/: the same two suites written plain, all quoted by hand, by
 * PyYAML's safe_dump (default and every scalar quoted with core tags) and as JSON load to the
 * same cases, field by field. */
static void test_quoting_fixtures(void **state)
{
    (void)state;
    const char *src = getenv("ACLCTS_SOURCE_DIR");
    assert_non_null(src);
    char plain[1024], other[3][1024], json[2][1024];
    snprintf(plain, sizeof plain, "%s/tests/conformance/quoting/plain.yaml", src);
    const char *names[3] = {"all_quoted", "safe_dump", "safe_dump_quoted"};
    snprintf(json[0], sizeof json[0], "%s/tests/conformance/quoting/json_avg.yaml", src);
    snprintf(json[1], sizeof json[1], "%s/tests/conformance/quoting/json_grid.yaml", src);
    const char *p = plain;
    char *want = load_fingerprint(&p, 1);
    /* plain.yaml: 3 avg-pool cases x 2 products + 4 modes + 1 border case (ascend910b) */
    size_t lines = 0;
    for (const char *q = want; (q = strstr(q, ".ascend")); q++)
        lines++;
    assert_int_equal(lines, 3 * 2 + 4 + 1);
    for (int i = 0; i < 3; i++) {
        snprintf(other[i], sizeof other[i], "%s/tests/conformance/quoting/%s.yaml", src,
                 names[i]);
        p = other[i];
        char *got = load_fingerprint(&p, 1);
        assert_string_equal(got, want);
        free(got);
    }
    const char *jp[2] = {json[0], json[1]};
    char *got = load_fingerprint(jp, 2);
    assert_string_equal(got, want);
    free(got);
    free(want);
}

/* One key at a time: the suite text has %s where the quote goes; '' (plain), "'" and "\"" must
 * load to identical cases, and `check` must appear in the fingerprint (the value took effect). */
static const struct {
    const char *what, *text, *check;
} per_key[] = {
    {"op", "suite: q\nop: %1$sgrid_sampler2d_backward%1$s\nproduct: ascend910b\ncases:\n"
           "  - name: a\n    input_shape: [1, 1, 2, 2]\n    grid_shape: [1, 1, 1, 2]\n",
     "op=grid_sampler2d_backward "},
    {"suite name and case name", "suite: %1$sq.r%1$s\nop: avgpool2d_backward\nproduct: ascend910\n"
     "cases:\n  - name: %1$sa-1%1$s\n    self_shape: [1, 1, 4, 4]\n    kernel_size: [2]\n",
     "q.r.a-1.ascend910 "},
    {"suite product list", "suite: q\nop: avgpool2d_backward\nproduct: [%1$sascend950%1$s]\n"
     "cases:\n  - name: a\n    self_shape: [1, 1, 4, 4]\n    kernel_size: [2]\n",
     "q.a.ascend950 "},
    {"suite product all", "suite: q\nop: avgpool2d_backward\nproduct: %1$sall%1$s\ncases:\n"
     "  - name: a\n    self_shape: [1, 1, 4, 4]\n    kernel_size: [2]\n",
     "q.a.ascend310b "},
    {"spec", "suite: q\nop: avgpool2d_backward\nproduct: ascend910\nspec: %1$svendor%1$s\n"
     "cases:\n  - name: a\n    self_shape: [1, 1, 4, 4]\n    kernel_size: [2]\n",
     " spec=4 "},
    {"case product and spec", "suite: q\nop: avgpool2d_backward\nproduct: ascend910\ncases:\n"
     "  - name: a\n    product: %1$sascend910b%1$s\n    spec: %1$svendor-old%1$s\n"
     "    self_shape: [1, 1, 4, 4]\n    kernel_size: [2]\n",
     "q.a.ascend910b op=avgpool2d_backward dt=0 p=1 spec=2 "},
    {"dtype", "suite: q\nop: avgpool2d_backward\nproduct: ascend910\ncases:\n"
     "  - name: a\n    dtype: %1$sfloat16%1$s\n    self_shape: [1, 1, 4, 4]\n    kernel_size: [2]\n",
     " dt=1 p=0"},
    {"dtypes", "suite: q\nop: grid_sampler2d_backward\nproduct: ascend910b\ncases:\n"
     "  - name: a\n    dtypes: {%1$sgrid%1$s: %1$sfloat64%1$s}\n    input_shape: [1, 1, 2, 2]\n"
     "    grid_shape: [1, 1, 1, 2]\n",
     " grid null=0 dt=11 "},
    {"format", "suite: q\nop: avgpool2d_backward\nproduct: ascend910\ncases:\n"
     "  - name: a\n    format: %1$snhwc%1$s\n    self_shape: [1, 1, 4, 4]\n    kernel_size: [2]\n",
     " self null=0 dt=0 fmt=1 "},
    {"formats", "suite: q\nop: avgpool2d_backward\nproduct: ascend910\ncases:\n"
     "  - name: a\n    formats: {self: %1$snd%1$s}\n    self_shape: [1, 1, 4, 4]\n"
     "    kernel_size: [2]\n",
     " self null=0 dt=0 fmt=2 "},
    {"interpolation_mode and padding_mode", "suite: q\nop: grid_sampler2d_backward\n"
     "product: ascend910b\ncases:\n  - name: a\n    interpolation_mode: %1$snearest%1$s\n"
     "    padding_mode: %1$sreflection%1$s\n    input_shape: [1, 1, 2, 2]\n"
     "    grid_shape: [1, 1, 1, 2]\n",
     " interpolation_mode null=0 1 padding_mode null=0 2 "},
    {"matrix values", "suite: q\nop: grid_sampler2d_backward\nproduct: ascend910b\ncases:\n"
     "  - name: a\n    matrix: {padding_mode: [%1$sborder%1$s]}\n    input_shape: [1, 1, 2, 2]\n"
     "    grid_shape: [1, 1, 1, 2]\n",
     "q.a.padding_mode=border.ascend910b "},
    {"generator names", "suite: q\nop: avgpool2d_backward\nproduct: ascend910\ncases:\n"
     "  - name: a\n    data: {%1$sgrad_output%1$s: %1$sspecial%1$s}\n    self_shape: [1, 1, 4, 4]\n"
     "    kernel_size: [2]\n",
     " gen=6 "},
    {"generator map key", "suite: q\nop: avgpool2d_backward\nproduct: ascend910\ncases:\n"
     "  - name: a\n    data: {grad_output: {%1$snormal%1$s: [0, 2]}}\n"
     "    self_shape: [1, 1, 4, 4]\n    kernel_size: [2]\n",
     " gen=4 0 2"},
    {"tolerance name", "suite: q\nop: avgpool2d_backward\nproduct: ascend910\ncases:\n"
     "  - name: a\n    tolerance: %1$storch-default%1$s\n    self_shape: [1, 1, 4, 4]\n"
     "    kernel_size: [2]\n",
     " tol=2:torch-default "},
    {"tolerance per dtype", "suite: q\nop: avgpool2d_backward\nproduct: ascend910\ncases:\n"
     "  - name: a\n    tolerance: {%1$sfloat32%1$s: {%1$sulp%1$s: 3}, %1$sdefault%1$s: "
     "%1$sbound%1$s}\n    self_shape: [1, 1, 4, 4]\n    kernel_size: [2]\n",
     " tol=1:ulp:3 ulps=3 "},
    {"expect status model", "suite: q\nop: avgpool2d_backward\nproduct: ascend910\ncases:\n"
     "  - name: a\n    expect: {status: %1$smodel%1$s}\n    self_shape: [1, 1, 4, 4]\n"
     "    kernel_size: [2]\n",
     " model=1 "},
    {"null", "suite: q\nop: avgpool2d_backward\nproduct: ascend910\ncases:\n"
     "  - name: a\n    null: [%1$sstride%1$s, %1$sself%1$s]\n    self_shape: [1, 1, 4, 4]\n"
     "    kernel_size: [2]\n",
     " self null=1 "},
    {"quick products", "suite: q\nop: avgpool2d_backward\nproduct: ascend910\ncases:\n"
     "  - name: a\n    quick: [%1$sascend910%1$s]\n    self_shape: [1, 1, 4, 4]\n"
     "    kernel_size: [2]\n",
     " quick=1"},
    {"waiver reason", "suite: q\nop: avgpool2d_backward\nproduct: ascend910\ncases:\n"
     "  - name: a\n    waiver: {reason: %1$sknown: 161001%1$s, status: [161001]}\n"
     "    self_shape: [1, 1, 4, 4]\n    kernel_size: [2]\n",
     " waiver=known: 161001 161001 "},
};

static void test_quoting_per_key(void **state)
{
    (void)state;
    static const char *const quotes[] = {"'", "\""};
    for (size_t i = 0; i < sizeof per_key / sizeof per_key[0]; i++) {
        char text[1024];
        /* plain: the waiver reason holds ": ", which only a quoted scalar can */
        bool needs_quotes = strstr(per_key[i].check, "known: ") != NULL;
        snprintf(text, sizeof text, per_key[i].text, needs_quotes ? "'" : "");
        const char *p = write_suite("key.yaml", text);
        char *want = load_fingerprint(&p, 1);
        if (!strstr(want, per_key[i].check))
            fail_msg("%s: '%s' not in\n%s", per_key[i].what, per_key[i].check, want);
        for (int q = 0; q < 2; q++) {
            snprintf(text, sizeof text, per_key[i].text, quotes[q]);
            p = write_suite("key.yaml", text);
            char *got = load_fingerprint(&p, 1);
            if (strcmp(got, want))
                fail_msg("%s quoted with %s:\n%s\nplain:\n%s", per_key[i].what, quotes[q], got,
                         want);
            free(got);
        }
        free(want);
    }
}

static void test_malformed_corpus(void **state)
{
    (void)state;
    const char *src = getenv("ACLCTS_SOURCE_DIR");
    assert_non_null(src);
    char dirpath[1024], cwd[1024];
    snprintf(dirpath, sizeof dirpath, "%s/tests/conformance/malformed", src);
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dirpath), 0);
    DIR *d = opendir(".");
    assert_non_null(d);
    struct dirent *e;
    int files = 0, failures = 0;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".yaml"))
            continue;
        char exp_path[512];
        snprintf(exp_path, sizeof exp_path, "%.*s.expected", (int)(n - 5), e->d_name);
        FILE *f = fopen(exp_path, "r");
        if (!f) {
            fprintf(stderr, "%s: missing %s\n", e->d_name, exp_path);
            failures++;
            continue;
        }
        char expected[8192] = "";
        size_t got = fread(expected, 1, sizeof expected - 1, f);
        expected[got] = 0;
        fclose(f);
        int lines = 0;
        for (char *c = expected; *c; c++)
            lines += *c == '\n';
        const char *path = e->d_name;
        cts_case_list l;
        char *err;
        int r = load(&path, 1, NULL, &l, &err);
        files++;
        if (r != lines || strcmp(err, expected) != 0 || l.ncases != 0) {
            fprintf(stderr, "%s: returned %d (want %d), output:\n%s--- expected:\n%s",
                    e->d_name, r, lines, err, expected);
            failures++;
        }
        free(err);
        cts_case_list_free(&l);
    }
    closedir(d);
    assert_int_equal(chdir(cwd), 0);
    assert_true(files >= 20);
    assert_int_equal(failures, 0);
}

/* All the errors of several files are reported, then nothing is returned. */
static void test_errors_of_all_files(void **state)
{
    (void)state;
    const char *paths[3];
    paths[0] = write_suite("ok.yaml", avg_basic);
    paths[1] = write_suite("bad1.yaml", "suite: x\nop: avgpool2d_backward\ncases:\n"
                                        "  - {name: a, self_shape: [1, 1, 2, 2], kernel_size: 2}\n");
    paths[2] = write_suite("bad2.yaml", "suite: avgpool2d_backward.basic\nop: conv\ncases: []\n");
    cts_case_list l;
    char *err;
    assert_int_equal(load(paths, 3, NULL, &l, &err), 3);
    assert_int_equal(l.ncases, 0);
    /* the choices an unknown op is told are the driver table's, starting with these two */
    char want[2048], ops[256];
    cts_op_names(ops, sizeof ops);
    assert_true(strncmp(ops, "avgpool2d_backward, grid_sampler2d_backward", 43) == 0);
    snprintf(want, sizeof want,
             "%s:4:54: error: cases[0].kernel_size: expected a list, got a scalar\n"
             "%s:1:8: error: suite: duplicate suite name 'avgpool2d_backward.basic' (also in "
             "%s:1)\n"
             "%s:2:5: error: op: unknown op 'conv' (%s)\n",
             paths[1], paths[2], paths[0], paths[2], ops);
    assert_string_equal(err, want);
    free(err);
}

/* Several suites in one file, separated by `---`: each with its own op. */
static void test_documents(void **state)
{
    (void)state;
    char *both = malloc(strlen(avg_basic) + strlen(grid_basic) + 8);
    sprintf(both, "%s---\n%s", avg_basic, grid_basic);
    const char *p = write_suite("both.yaml", both);
    free(both);
    cts_case_list l;
    assert_int_equal(load(&p, 1, NULL, &l, NULL), 0);
    assert_int_equal(l.ncases, 10 + 145);
    assert_ptr_equal(l.cases[0].op, &cts_op_avgpool2d_backward);
    assert_ptr_equal(l.cases[10].op, &cts_op_grid_sampler2d_backward);
    /* the second document's case marks count lines from the start of the file: avg_basic has
     * 38 lines, then "---" (line 39), so grid_basic's line 5 (its first case) is line 44 */
    assert_int_equal(l.cases[10].mark.line, 44);
    cts_case_list_free(&l);

    /* A trailing `---` opens an empty document: nothing to load, not "expected a map". */
    char *trailing = malloc(strlen(avg_basic) + 8);
    sprintf(trailing, "%s---\n", avg_basic);
    p = write_suite("trailing.yaml", trailing);
    free(trailing);
    char *err;
    assert_int_equal(load(&p, 1, NULL, &l, &err), 0);
    assert_string_equal(err, "");
    assert_int_equal(l.ncases, 10);
    free(err);
    cts_case_list_free(&l);
}

/* Nesting is limited, never recursed into as deep as the input goes: 60000 '[' once overflowed
 * the stack of the node reader (exit 139). The root map is level 1, so the 64th '[' (column
 * 7 + 64 of "cases: [[[...") is level 65, the first one too deep. */
static void test_deep_nesting(void **state)
{
    (void)state;
    size_t n = 60000;
    char *text = malloc(n + 64);
    assert_non_null(text);
    int len = sprintf(text, "suite: x\ncases: ");
    memset(text + len, '[', n);
    text[len + n] = '\0';
    const char *p = write_suite("deep.yaml", text);
    free(text);
    cts_case_list l;
    char *err, want[600];
    assert_int_equal(load(&p, 1, NULL, &l, &err), 1);
    assert_int_equal(l.ncases, 0);
    snprintf(want, sizeof want, "%s:2:71: error: yaml: nested deeper than 64 levels (a suite "
             "needs a handful)\n", p);
    assert_string_equal(err, want);
    free(err);
}

/* The shipped suites load without errors, the quick subset stays small (60..150 cases), and
 * the documents' examples carry facts §4's values. */
static void test_shipped_suites(void **state)
{
    (void)state;
    const char *src = getenv("ACLCTS_SOURCE_DIR");
    assert_non_null(src);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/suites", src);
    const char *p = dir;
    cts_case_list l;
    char *err;
    assert_int_equal(load(&p, 1, NULL, &l, &err), 0);
    assert_string_equal(err, "");
    free(err);
    assert_true(l.ncases > 1000);
    const cts_case *c = find(&l, "doc_examples.grid_sampler2d_backward.example.ascend910b");
    assert_non_null(c);
    assert_int_equal(c->expect_values[4].nvalues, 18);
    assert_true(c->expect_values[4].values[3] == 11.25 && c->expect_values[4].values[17] == -50);
    assert_int_equal(c->expect_values[3].nvalues, 40);
    assert_true(c->expect_values[3].values[16] == 0.5);
    c = find(&l, "doc_examples.avgpool2d_backward.example.ascend310b");
    assert_non_null(c);
    assert_true(c->expect_values[2].values[0] == 0.0625);
    cts_case_list_free(&l);
    cts_load_options o = {.quick = true};
    assert_int_equal(load(&p, 1, &o, &l, NULL), 0);
    /* a small fixed subset; its real budget, < 60 s, is measured by test_quick_suite.sh */
    assert_true(l.ncases >= 60 && l.ncases <= 150);
    cts_case_list_free(&l);
}

/* cts_fmt gives snprintf's text (C library as the peer) at every buffer size, including the
 * truncated ones, for the formats it writes itself (%s, %zu, %%) and one it hands on (%g). */
#define FMT_SAME(...)                                                                    \
    do {                                                                                 \
        char want[96], got[96];                                                          \
        for (size_t n = 0; n <= 40; n++) {                                               \
            memset(want, 'x', sizeof want), memset(got, 'x', sizeof got);                \
            snprintf(want, n, __VA_ARGS__);                                              \
            cts_fmt(got, n, __VA_ARGS__);                                                \
            assert_memory_equal(want, got, sizeof want);                                 \
        }                                                                                \
    } while (0)

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation" /* truncation is what is tested */
#endif
static void test_fmt_matches_snprintf(void **state)
{
    (void)state;
    FMT_SAME("%s.matrix.%s[%zu]", "cases[12]", "input_shape", (size_t)1234567);
    FMT_SAME("cases[%zu].name", (size_t)0);
    FMT_SAME("%s", "");
    FMT_SAME("100%% of %s", "grad_output");
    FMT_SAME("no conversion at all, thirty-odd characters");
    FMT_SAME("%zu", (size_t)-1);
    FMT_SAME("ulp:%g (%s)", 0.5, "fp16");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_avgpool_expansion),
        cmocka_unit_test(test_grid_expansion),
        cmocka_unit_test(test_options_and_directories),
        cmocka_unit_test(test_operator_folders),
        cmocka_unit_test(test_ids_stable),
        cmocka_unit_test(test_quoting_fixtures),
        cmocka_unit_test(test_quoting_per_key),
        cmocka_unit_test(test_malformed_corpus),
        cmocka_unit_test(test_errors_of_all_files),
        cmocka_unit_test(test_documents),
        cmocka_unit_test(test_shipped_suites),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_fmt_matches_snprintf),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
