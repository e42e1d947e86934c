/* `aclcts show CASE`: every parameter of the cases whose id matches, as the harness will run
 * them (after matrix expansion, defaults and --seed). */
#include "cli.h"

#include <inttypes.h>
#include <string.h>

#include "results/results.h"
#include "run/run.h"

static const char show_help[] =
    "usage: aclcts show [OPTIONS] CASE [SUITE.yaml|DIR]...\n"
    "\n"
    "Prints everything about the cases whose id is CASE (an exact id or a glob): where it is\n"
    "defined, op, product, dtype, shapes, strides, parameters, data generators, expectation,\n"
    "tolerance. Suites default to ./suites. Exit 2 when no case matches.\n"
    "\n"
    "%s";

static const char *gen_name(cts_gen_kind k)
{
    static const char *const names[] = {"ones", "zeros", "arange", "uniform", "normal", "int",
                                        "special", "values"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

static const char *format_name(ref_format f)
{
    switch (f) {
    case REF_FMT_NCHW: return "NCHW";
    case REF_FMT_NHWC: return "NHWC";
    case REF_FMT_ND: return "ND";
    case REF_FMT_NCL: return "NCL";
    case REF_FMT_NC1HWC0: return "NC1HWC0";
    case REF_FMT_FRACTAL_Z: return "FRACTAL_Z";
    default: return "UNDEFINED";
    }
}

static void print_dims(const int64_t *d, int n)
{
    printf("[");
    for (int k = 0; k < n; k++)
        printf("%s%" PRId64, k ? ", " : "", d[k]);
    printf("]");
}

static void print_bools(const int64_t *v, int n)
{
    printf("[");
    for (int k = 0; k < n; k++)
        printf("%s%s", k ? ", " : "", v[k] ? "true" : "false");
    printf("]");
}

/* The operator's parameters, by their suite keys. */
static void print_params(const cts_case *c)
{
    for (int i = 0; i < c->op->nparams; i++) {
        const cts_param *p = &c->param[i];
        cts_param_kind kind = c->op->params[i].kind;
        printf("  %-18s ", c->op->params[i].key);
        if ((kind == CTS_PARAM_INTS || kind == CTS_PARAM_BOOLS) && p->null)
            printf("null");
        else if (kind == CTS_PARAM_INTS)
            print_dims(p->v, p->len);
        else if (kind == CTS_PARAM_BOOLS)
            print_bools(p->v, p->len);
        else if (kind == CTS_PARAM_BOOL)
            printf("%s", p->v[0] ? "true" : "false");
        else if (kind == CTS_PARAM_DOUBLE)
            printf("%.17g", p->real);
        else
            printf("%" PRId64, p->v[0]);
        printf("\n");
    }
}

static void print_case(const cts_case *c)
{
    printf("%s\n", c->id);
    printf("  %-18s %s:%d:%d\n", "defined at", c->mark.file ? c->mark.file : "?", c->mark.line,
           c->mark.column);
    printf("  %-18s %s\n  %-18s %s\n", "suite", c->suite, "case", c->name);
    printf("  %-18s %s\n  %-18s %s\n", "op", c->op->name, "product",
           ref_product_id(c->product));
    printf("  %-18s %s\n  %-18s %s\n", "dtype", cts_dtype_yaml_name(c->dtype), "spec",
           ref_spec_name(c->spec));
    printf("  %-18s %" PRIu64 "\n", "seed", c->seed);
    for (int k = 0; k < c->ntensors; k++) {
        const cts_tensor *t = &c->t[k];
        printf("  %-18s ", t->name);
        if (t->null) {
            printf("null\n");
            continue;
        }
        printf("%s %s %s ", t->is_output ? "out" : "in ", cts_dtype_yaml_name(t->dtype),
               format_name(t->format));
        print_dims(t->dims, t->rank);
        if (t->has_strides)
            printf(" strides "), print_dims(t->strides, t->rank);
        if (t->offset)
            printf(" offset %" PRId64, t->offset);
        if (!t->is_output) {
            printf(" data %s", gen_name(t->gen.kind));
            if (t->gen.kind == CTS_GEN_UNIFORM || t->gen.kind == CTS_GEN_NORMAL ||
                t->gen.kind == CTS_GEN_INT)
                printf(" [%g, %g]", t->gen.a, t->gen.b);
            if (t->gen.kind == CTS_GEN_VALUES)
                printf(" (%zu values)", t->gen.nvalues);
        }
        printf("\n");
    }
    print_params(c);
    /* What the status model predicts, with its reason, also where the suite fixes the code. */
    ref_status_query q = cts_status_query(c);
    ref_status model = ref_expected_status(&q);
    if (c->expect_status_model && model.undefined)
        printf("  %-18s undefined (status model: run isolated, recorded, not judged)\n",
               "expect status");
    else if (c->expect_status_model)
        printf("  %-18s %d (status model)\n", "expect status", (int)model.status);
    else
        printf("  %-18s %d (fixed by the suite; the status model says %d)\n", "expect status",
               (int)c->expect_status, (int)model.status);
    printf("  %-18s %s\n", "model reason", model.reason[0] ? model.reason : "-");
    for (int k = 0; k < c->ntensors; k++)
        if (c->expect_values[k].any)
            printf("  %-18s %s: %zu value(s), first %.17g\n", "expect values", c->t[k].name,
                   c->expect_values[k].nvalues,
                   c->expect_values[k].nvalues ? c->expect_values[k].values[0] : 0.0);
    printf("  %-18s %s\n", "tolerance", c->tolerance.name ? c->tolerance.name : "bound");
    printf("  %-18s %s\n  %-18s %d\n", "deterministic", c->deterministic ? "true" : "false",
           "repeat", c->repeat);
    if (c->waiver) {
        char w[512];
        cts_waiver_describe(c, w, sizeof w);
        printf("  %-18s %s\n", "waiver", w);
    }
    printf("  %-18s %s\n", "quick", c->quick ? "true" : "false");
}

int cli_show(int argc, char **argv)
{
    cts_selection s = {0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf(show_help, cli_selection_help);
            return CLI_EXIT_OK;
        }
        int r = cli_selection_arg(&s, argc, argv, &i);
        if (r < 0)
            return CLI_EXIT_USAGE;
        if (r == 0) {
            fprintf(stderr, "aclcts: error: show: unknown option %s (see aclcts show --help)\n",
                    argv[i]);
            return CLI_EXIT_USAGE;
        }
    }
    if (s.npaths == 0) {
        fprintf(stderr, "aclcts: error: show needs a CASE id or glob\n");
        return CLI_EXIT_USAGE;
    }
    /* The first positional word is the case, the rest are suites. */
    s.filters[s.nfilters++] = s.paths[0];
    memmove(s.paths, s.paths + 1, (size_t)(s.npaths - 1) * sizeof s.paths[0]);
    s.npaths--;
    cts_loaded l;
    int rc = cts_selection_load(&s, &l) ? CLI_EXIT_USAGE : 0;
    if (rc == 0 && l.nsel == 0) {
        fprintf(stderr, "aclcts: error: no case matches %s (try aclcts list)\n",
                s.filters[s.nfilters - 1]);
        rc = CLI_EXIT_USAGE;
    }
    for (size_t k = 0; rc == 0 && k < l.nsel; k++)
        print_case(l.sel[k]), printf("%s", k + 1 < l.nsel ? "\n" : "");
    cts_loaded_free(&l);
    return rc;
}
