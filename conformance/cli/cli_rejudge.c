/* verify-package --rejudge: every verdict of a package re-derived from its evidence
 * (evidence.tar.gz, run.h): the inputs regenerated from the packaged suites' seeds, the
 * device's outputs from the evidence, the reference and the output checks run again, and each
 * record compared with what they give. */
#include "cli.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "package/package.h"
#include "results/results.h"
#include "run/run.h"

/* The packaged suites loaded for the manifest's product, seed and the records' contract. */
static int load_packaged(const char *dir, const cts_manifest *m, const char *contract,
                         cts_loaded *l, FILE *out)
{
    static char paths[CTS_SELECTION_MAX][PATH_MAX];
    cts_selection sel;
    memset(&sel, 0, sizeof sel);
    sel.product = m->product;
    for (size_t i = 0; i < m->nfiles && sel.npaths < CTS_SELECTION_MAX; i++)
        if (!strcmp(m->files[i].role, "suite") && !strstr(m->files[i].path, "..")) {
            snprintf(paths[sel.npaths], sizeof paths[0], "%s/%s", dir, m->files[i].path);
            sel.paths[sel.npaths] = paths[sel.npaths];
            sel.npaths++;
        }
    if (strcmp(m->seed, "suite") != 0) {
        sel.have_seed = true;
        sel.seed = strtoull(m->seed, NULL, 10);
    }
    if (*contract && cli_parse_contract(contract, &sel.contract) != 0) return -1;
    if (cts_selection_load(&sel, l) != 0) {
        fprintf(out, "--rejudge: the packaged suites do not load\n");
        return -1;
    }
    return 0;
}

static bool near(double a, double b)
{
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    return a == b || fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

/* What the record says against what its evidence gives; one line per case that differs. A
 * record may fail a check the evidence cannot show (status, guards, determinism, ...): then
 * only a PASS re-judged as FAIL, or a numeric check the evidence clears, differs. */
static int compare(const cts_result *rec, const cts_verdict *g, FILE *out)
{
    const cts_verdict *v = &rec->v;
    bool rec_fail = v->status != CTS_PASS, got_fail = g->status != CTS_PASS;
    bool same_check = !strcmp(v->check, g->check);
    bool numeric_check = !strcmp(v->check, "tolerance") || !strcmp(v->check, "expected-values") ||
                         !strcmp(v->check, "unjudged");
    const char *why = NULL;
    if (v->output_hash != g->output_hash) why = "output_hash";
    else if (got_fail && !rec_fail) why = "status";
    else if (rec_fail && !got_fail && numeric_check) why = "status";
    else if (got_fail && numeric_check && !same_check) why = "check";
    else if ((!rec_fail || same_check) &&
             (v->nelems != g->nelems || !near(v->worst_bound_units, g->worst_bound_units) ||
              !near(v->worst_ulp, g->worst_ulp) || !near(v->worst_rel, g->worst_rel) ||
              v->el.skipped != g->el.skipped))
        why = "worst errors or counts";
    if (!why) return 0;
    fprintf(out, "results.jsonl:%d: %s: the record differs from its evidence in %s: recorded "
            "%s%s%s, %lld elements, worst %.6g bound units; the evidence gives %s%s%s, %lld "
            "elements, worst %.6g bound units\n", rec->line, v->case_id, why,
            cts_status_name(v->status), *v->check ? " " : "", v->check, (long long)v->nelems,
            v->worst_bound_units, cts_status_name(g->status), *g->check ? " " : "", g->check,
            (long long)g->nelems, g->worst_bound_units);
    return 1;
}

static const cts_case *find_case(const cts_loaded *l, const char *id)
{
    for (size_t i = 0; i < l->nsel; i++)
        if (!strcmp(l->sel[i]->id, id)) return l->sel[i];
    return NULL;
}

/* One record: re-judged from its evidence when its outputs were judged; their evidence must
 * then be there. */
static int rejudge_record(const cts_loaded *l, const char *edir, const cts_result *rec,
                          size_t *judged, FILE *out)
{
    const cts_verdict *v = &rec->v;
    const cts_case *c = find_case(l, v->case_id);
    if (!c || v->got_status != 0 || v->expected_status != 0) return 0;
    ref_case_answer plan;
    cts_case_plan(c, &plan);
    if (plan.status.status == 0 && !plan.status.runs) return 0; /* nothing computed */
    char path[PATH_MAX * 2], err[PATH_MAX + 400];
    cts_evidence_path(edir, c->id, path, sizeof path);
    if (access(path, F_OK) != 0) {
        fprintf(out, "evidence.tar.gz: no evidence of %s, whose outputs were judged\n", c->id);
        return 1;
    }
    cts_verdict g;
    if (cts_replay_case(c, path, &g, err, sizeof err) != 0) {
        fprintf(out, "evidence.tar.gz: %s: %s\n", c->id, err);
        return 1;
    }
    ++*judged;
    return compare(rec, &g, out);
}

int cli_rejudge(const char *dir, const cts_manifest *m, FILE *out)
{
    char tar[PATH_MAX * 2], tmp[PATH_MAX], edir[PATH_MAX * 2], err[PATH_MAX + 400];
    snprintf(tar, sizeof tar, "%s/evidence.tar.gz", dir);
    if (access(tar, F_OK) != 0) {
        fprintf(out, "evidence.tar.gz: missing: --rejudge has nothing to re-judge from\n");
        return 1;
    }
    if (cts_package_extract(tar, tmp, sizeof tmp, edir, sizeof edir, err, sizeof err) != 0) {
        fprintf(out, "evidence.tar.gz: %s\n", err);
        return 1;
    }
    cts_result_list res = {0};
    snprintf(err, sizeof err, "%s/results.jsonl", dir);
    int bad = cts_jsonl_read(err, &res, NULL, out) != 0;
    cts_loaded l;
    memset(&l, 0, sizeof l);
    if (!bad && load_packaged(dir, m, res.count ? res.r[0].contract : "", &l, out) != 0) bad++;
    bool loaded = !bad;
    size_t judged = 0;
    for (size_t i = 0; loaded && i < res.count; i++)
        bad += rejudge_record(&l, edir, &res.r[i], &judged, out);
    if (bad == 0) printf("--rejudge: %zu cases re-judged from their evidence, as recorded\n", judged);
    cts_loaded_free(&l);
    cts_result_list_free(&res);
    cts_remove_tree(tmp);
    return bad;
}
