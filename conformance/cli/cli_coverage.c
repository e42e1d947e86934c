/* `aclcts coverage`: which pairs of levels of the coverage model (coverage.h) the selected
 * cases hit, which no legal case can hit (with the reason), and which are missed. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

#include "coverage/coverage.h"

static const char coverage_help[] =
    "usage: aclcts coverage [OPTIONS] [SUITE.yaml|DIR]...\n"
    "\n"
    "Counts, per operator, the pairs of levels of its coverage model (its driver's factors:\n"
    "dtype, view kind, rank, channel class, determinism, numeric path, parameters, outcome)\n"
    "that the selected cases hit; numeric factors count only for calls that compute. Then, per\n"
    "tensor, the view classes its cases exercise in calls that compute (a padded stride at each\n"
    "dimension, a storage offset, stride 0, a permuted layout). Prints every missed pair and\n"
    "class; those no legal case can hit are explained, not missed. Exit 0 when none is missed,\n"
    "1 otherwise, 2 for usage or suite errors.\n"
    "\n"
    "%s"
    "  --all              also print every pair hit, with its case count\n"
    "  --impossible       also print the pairs no legal case can hit, with the reason\n";

typedef struct {
    const cts_op_driver *op;
    const cov_model *m;
    size_t ncases;
    unsigned views[CTS_MAX_TENSORS][COV_VIEW_CLASSES]; /* cases exercising each view class */
    unsigned hits[COV_MAX_FACTORS][COV_MAX_LEVELS][COV_MAX_FACTORS][COV_MAX_LEVELS];
} op_counts;

static void count_case(op_counts *oc, const cts_case *c)
{
    uint32_t lv[COV_MAX_FACTORS];
    cov_case_levels(c, oc->m, lv);
    oc->ncases++;
    for (int a = 0; a < oc->m->nfactors; a++)
        for (int b = a + 1; b < oc->m->nfactors; b++)
            for (int la = 0; la < oc->m->factors[a].nlevels; la++)
                for (int lb = 0; lb < oc->m->factors[b].nlevels; lb++)
                    if ((lv[a] >> la & 1) && (lv[b] >> lb & 1)) oc->hits[a][la][b][lb]++;
    uint32_t vc[CTS_MAX_TENSORS];
    cov_case_views(c, oc->m, vc);
    for (int t = 0; t < CTS_MAX_TENSORS; t++)
        for (int k = 0; k < COV_VIEW_CLASSES; k++) oc->views[t][k] += vc[t] >> k & 1;
}

/* Prints the op's view classes per tensor; returns the number missed. */
static int report_views(const op_counts *oc, bool all, bool impossible)
{
    const cts_op_driver *op = oc->op;
    int classes = 0, hit = 0, expl = 0, missed = 0;
    if (!oc->m->views) return 0;
    for (int t = 0; t < op->ntensors; t++)
        for (int k = 0; k < COV_VIEW_CLASSES; k++) {
            char name[48];
            cov_view_class_name(oc->m, t, k, name, sizeof name);
            const char *tn = op->tensors[t].name, *why = cov_view_impossible(op, t, k);
            unsigned n = oc->views[t][k];
            classes++;
            hit += n > 0;
            expl += n == 0 && why;
            missed += n == 0 && !why;
            if (n > 0 && why)
                printf("  CONTRADICTION view %s=%s: hit by %u cases, yet explained as "
                       "impossible: %s\n", tn, name, n, why);
            else if (n > 0 && all)
                printf("  hit view %s=%s: %u cases\n", tn, name, n);
            else if (n == 0 && why && impossible)
                printf("  impossible view %s=%s: %s\n", tn, name, why);
            else if (n == 0 && !why)
                printf("  MISSED view %s=%s\n", tn, name);
        }
    printf("%s: %d view classes (tensor x class, in calls that compute): %d hit, %d impossible "
           "(explained), %d missed\n", op->name, classes, hit, expl, missed);
    return missed;
}

/* Prints the op's pairs; returns the number missed. */
static int report(const op_counts *oc, const char *op, bool all, bool impossible)
{
    const cov_model *m = oc->m;
    int pairs = 0, hit = 0, expl = 0, missed = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int a = 0; a < m->nfactors; a++)
            for (int b = a + 1; b < m->nfactors; b++)
                for (int la = 0; la < m->factors[a].nlevels; la++)
                    for (int lb = 0; lb < m->factors[b].nlevels; lb++) {
                        const cov_factor *fa = &m->factors[a], *fb = &m->factors[b];
                        unsigned n = oc->hits[a][la][b][lb];
                        const char *why = cov_impossible(m, a, la, b, lb);
                        if (pass == 0) {
                            pairs++;
                            hit += n > 0;
                            expl += n == 0 && why;
                            missed += n == 0 && !why;
                            continue;
                        }
                        if (n > 0 && why)
                            printf("  CONTRADICTION %s=%s x %s=%s: hit by %u cases, yet "
                                   "explained as impossible: %s\n", fa->name, fa->levels[la],
                                   fb->name, fb->levels[lb], n, why);
                        else if (n > 0 && all)
                            printf("  hit %s=%s x %s=%s: %u cases\n", fa->name, fa->levels[la],
                                   fb->name, fb->levels[lb], n);
                        else if (n == 0 && why && impossible)
                            printf("  impossible %s=%s x %s=%s: %s\n", fa->name,
                                   fa->levels[la], fb->name, fb->levels[lb], why);
                        else if (n == 0 && !why)
                            printf("  MISSED %s=%s x %s=%s\n", fa->name, fa->levels[la],
                                   fb->name, fb->levels[lb]);
                    }
    printf("%s: %zu cases, %d factors, %d pairs of levels: %d hit, %d impossible "
           "(explained), %d missed\n",
           op, oc->ncases, m->nfactors, pairs, hit, expl, missed);
    return missed;
}

int cli_coverage(int argc, char **argv)
{
    cts_selection s = {0};
    bool all = false, impossible = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf(coverage_help, cli_selection_help);
            return CLI_EXIT_OK;
        }
        int r = cli_selection_arg(&s, argc, argv, &i);
        if (r < 0) return CLI_EXIT_USAGE;
        if (r > 0) continue;
        if (strcmp(argv[i], "--all") == 0) {
            all = true;
        } else if (strcmp(argv[i], "--impossible") == 0) {
            impossible = true;
        } else {
            fprintf(stderr, "aclcts: error: coverage: unknown option %s (see aclcts coverage "
                    "--help)\n", argv[i]);
            return CLI_EXIT_USAGE;
        }
    }
    cts_loaded l;
    s.all_contracts = true; /* the suites' case space: every contract's cases */
    int rc = cts_selection_load(&s, &l) ? CLI_EXIT_USAGE : 0;
    if (rc != 0) {
        cts_loaded_free(&l);
        return rc;
    }
    op_counts *counts = calloc((size_t)cts_nops, sizeof *counts); /* large: not on the stack */
    if (!counts) abort();
    for (int i = 0; i < cts_nops; i++) {
        counts[i].op = cts_ops[i];
        counts[i].m = cov_model_of(cts_ops[i]);
    }
    for (size_t k = 0; k < l.nsel; k++) count_case(&counts[cts_op_index(l.sel[k]->op)], l.sel[k]);
    int missed = 0;
    for (int i = 0; i < cts_nops; i++) {
        missed += report(&counts[i], cts_ops[i]->name, all, impossible);
        missed += report_views(&counts[i], all, impossible);
    }
    free(counts);
    cts_loaded_free(&l);
    return missed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
