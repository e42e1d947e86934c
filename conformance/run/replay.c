/* Re-judging a case from its evidence (evidence.c): the inputs regenerated from the seed, the
 * device's outputs read from the evidence, the reference's answers and the output checks as a
 * run applies them (run_outputs.c). */
#include "run_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "data/data.h"

typedef struct {
    const cts_case *c;
    int slot;
} replay_fill;

static void fill_input(void *ctx, int64_t first, int64_t n, double *out)
{
    const replay_fill *f = ctx;
    cts_fill_range(f->c, f->slot, first, out, n);
}

/* The header line: format, seed, generator, hash and size must be what this case gives. */
static int read_header(gzFile z, const cts_case *c, uint64_t *hash, char *err, size_t errlen)
{
    char line[512], fmt[64];
    uint64_t seed, bytes;
    int gen;
    if (!gzgets(z, line, sizeof line) ||
        sscanf(line, "%63s seed=%" SCNu64 " generator=%d hash=%" SCNx64 " bytes=%" SCNu64, fmt,
               &seed, &gen, hash, &bytes) != 5 || strcmp(fmt, CTS_EVIDENCE_FORMAT) != 0)
        return snprintf(err, errlen, "not %s evidence", CTS_EVIDENCE_FORMAT), -1;
    if (seed != c->seed)
        return snprintf(err, errlen, "seed %" PRIu64 ", the suite's is %" PRIu64, seed, c->seed), -1;
    if (gen != CTS_DATA_GENERATOR)
        return snprintf(err, errlen, "data generator %d, this aclcts has %d", gen,
                        CTS_DATA_GENERATOR), -1;
    return 0;
}

/* Every tensor prepared as run 1 had it; each output's image read back is the poison with the
 * evidence's elements at the view's positions. */
static int rebuild(gzFile z, const cts_case *c, device_run *r, char *err, size_t errlen)
{
    for (int i = 0; i < c->ntensors; i++) {
        replay_fill f = {c, i};
        bool fill = !c->t[i].is_output && !c->t[i].null;
        if (cts_dev_tensor_prepare_fill(&r->d[i], &c->t[i], i, fill ? fill_input : NULL, &f) != 0)
            return snprintf(err, errlen, "cannot prepare %s", c->t[i].name), -1;
        cts_dev_tensor *d = &r->d[i];
        if (!c->t[i].is_output || c->t[i].null) continue;
        if (!(d->back = malloc(d->bytes))) return snprintf(err, errlen, "out of host memory"), -1;
        for (size_t k = 0; k < d->bytes; k++) d->back[k] = cts_dev_tensor_sent_byte(d, k);
        for (int64_t k = 0; k < d->numel; k++) {
            unsigned char *p = d->back + CTS_GUARD_BYTES + cts_dev_tensor_pos(d, k) * d->esize;
            if (gzread(z, p, (unsigned)d->esize) != (int)d->esize)
                return snprintf(err, errlen, "evidence of %s ends early", c->t[i].name), -1;
        }
    }
    char extra;
    if (gzread(z, &extra, 1) != 0) return snprintf(err, errlen, "evidence longer than the outputs"), -1;
    return 0;
}

/* The numeric checks of run 1 on the rebuilt run. */
static void judge(case_run *r, cts_verdict *v)
{
    const cts_case *c = r->s.c;
    cts_case_plan(c, &r->plan);
    r->st = r->plan.status;
    r->expected = c->expect_status_model ? r->st.status : c->expect_status;
    v->expected_status = r->expected;
    snprintf(v->path, sizeof v->path, "%s", r->plan.path.name ? r->plan.path.name : "");
    r->oc = (output_checks){.c = c, .r = &r->runs[0], .v = v, .plan = &r->plan, .slot = -1};
    r->oc.numerics = r->expected == 0 && (r->st.status != 0 || r->st.runs);
    if (r->oc.numerics && !run_reference_answers(r, v)) return;
    run_outputs_until(&r->oc, c->ntensors);
    cts_check_unjudged(c->max_unjudged, v);
}

int cts_replay_case(const cts_case *c, const char *path, cts_verdict *v, char *err,
                    size_t errlen)
{
    memset(v, 0, sizeof *v);
    snprintf(v->case_id, sizeof v->case_id, "%s", c->id);
    v->status = CTS_PASS;
    v->worst_index = -1;
    gzFile z = gzopen(path, "rb");
    if (!z) return snprintf(err, errlen, "%s: %s", path, strerror(errno)), -1;
    device_run run;
    memset(&run, 0, sizeof run);
    case_run r = {.s = {.c = c}, .runs = &run, .nruns = 1, .total = 1};
    uint64_t hash = 0;
    int rc = read_header(z, c, &hash, err, errlen);
    if (rc == 0) rc = rebuild(z, c, &run, err, errlen);
    gzclose(z);
    if (rc == 0) v->output_hash = run_output_hash(c, &run);
    if (rc == 0 && v->output_hash != hash)
        rc = -1, snprintf(err, errlen, "its outputs do not hash to its header's hash");
    if (rc == 0) judge(&r, v);
    if (r.oc.j) cts_judge_abandon(r.oc.j);
    run_device_free(NULL, c, &run);
    free(r.oc.got);
    return rc;
}
