/* The checks of a run: the call'"s, */
#include "run_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The checks of the first run (DESIGN "Checks and tolerances") that need no reference, in
 * order: status, message, poison of a failed call, inputs, guards. */
void run_check_call(const cts_case *c, const ref_status *st, int32_t expected,
                    const device_run *r, cts_verdict *v)
{
    cts_check_status(c, expected, r->status, st->reason, r->errmsg, v);
    char why[96];
    if (r->status != 0) {
        cts_check_errmsg(r->status, r->errmsg, v);
        snprintf(why, sizeof why, "the call returned %d", r->status);
        for (int i = 0; i < c->ntensors; i++)
            if (c->t[i].is_output && !c->t[i].null) cts_check_poison(&r->d[i], why, v);
    }
    for (int i = 0; i < c->ntensors; i++)
        if (!c->t[i].is_output && !c->t[i].null) cts_check_input_unchanged(&r->d[i], v);
    for (int i = 0; i < c->ntensors; i++)
        if (!c->t[i].null) cts_check_guards(&r->d[i], v);
}

static void output_begin(output_checks *oc, int i)
{
    const cts_tensor *t = &oc->c->t[i];
    const cts_dev_tensor *d = &oc->r->d[i];
    oc->slot = i;
    oc->j = NULL;
    if (oc->plan->numel[i] != d->numel) {
        cts_verdict_fail(oc->v, CTS_ERROR, "setup",
                         "the reference gives %lld elements for %s, the view has %lld",
                         (long long)oc->plan->numel[i], t->name, (long long)d->numel);
        return;
    }
    cts_judged_output o = {t->name, t->dtype, t->rank, t->dims, d->numel, NULL, NULL,
                           oc->c->op->tensors[i].pairs};
    oc->j = cts_judge_begin(&oc->c->tolerance, &oc->plan->judge, &o, true,
                            &oc->c->expect_values[i], &oc->v->el);
    if (!oc->j) cts_verdict_fail(oc->v, CTS_RESOURCE_ERROR, "memory", "out of host memory");
}

/* The checks of every slot before `upto` not done yet. */
void run_outputs_until(output_checks *oc, int upto)
{
    const cts_case *c = oc->c;
    for (; oc->next < upto; oc->next++) {
        int i = oc->next;
        const cts_tensor *t = &c->t[i];
        if (!t->is_output || t->null) continue;
        if (!oc->numerics || !oc->plan->computed[i]) {
            cts_check_poison(&oc->r->d[i],
                             !oc->numerics ? "the call has nothing to compute (status model)"
                             : c->op->not_computed ? c->op->not_computed
                                                   : "the operator does not compute it",
                             oc->v);
            continue;
        }
        if (oc->slot != i) output_begin(oc, i); /* an output without elements: no chunk came */
        if (oc->j) cts_judge_end(oc->j, oc->v, &oc->worst_map);
        oc->j = NULL;
        oc->slot = -1;
    }
}

/* The device's values of the chunk's elements, decoded from the image read back. False when
 * memory ran out. */
static bool chunk_got(output_checks *oc, const ref_chunk *ch)
{
    int64_t n = ch->out->numel;
    if (n > oc->got_cap) {
        double *g = realloc(oc->got, (size_t)n * sizeof *g);
        if (!g) return false;
        oc->got = g;
        oc->got_cap = n;
    }
    cts_dev_tensor_decode(&oc->r->d[ch->slot], oc->r->d[ch->slot].back, ch->first, n, oc->got);
    return true;
}

/* The chunk judged; when its elements are the next the output hash takes (a plain view's, in
 * storage order), hashed in the judge's pass over them. */
static void judge_chunk(output_checks *oc, const ref_chunk *ch)
{
    const cts_dev_tensor *d = &oc->r->d[ch->slot];
    run_output_hash_settle(oc->c, oc->r, &oc->hash);
    if (oc->hash.slot != ch->slot || oc->hash.k != ch->first || !cts_dev_tensor_plain(d)) {
        cts_judge_chunk_got(oc->j, ch, oc->got);
        return;
    }
    const unsigned char *raw = d->back + CTS_GUARD_BYTES + (size_t)ch->first * d->esize;
    cts_judge_chunk_hashed(oc->j, ch, oc->got, raw, (int)d->esize, &oc->hash.h);
    oc->hash.k += ch->out->numel;
}

static int on_chunk(void *ctx, const ref_chunk *ch)
{
    output_checks *oc = ctx;
    double t = run_now(), cpu = run_thread_cpu();
    if (ch->slot != oc->slot) {
        run_outputs_until(oc, ch->slot);
        output_begin(oc, ch->slot);
    }
    if (oc->j && !chunk_got(oc, ch)) {
        cts_judge_abandon(oc->j);
        oc->j = NULL;
        cts_verdict_fail(oc->v, CTS_RESOURCE_ERROR, "memory", "out of host memory");
    }
    if (oc->j) judge_chunk(oc, ch);
    if (oc->dump) cts_dump_stream_chunk(oc->dump, ch);
    oc->t_judge += run_now() - t;
    oc->c_judge += run_thread_cpu() - cpu;
    return 0;
}

/* Later runs: same status, and bitwise-identical outputs when determinism is asked, else the
 * spread. label: "run 2", "1 thread", "4 threads". */
void run_check_later(const cts_case *c, const device_run *first, const device_run *r,
                     const char *label, cts_verdict *v)
{
    if (r->status != first->status) {
        cts_verdict_fail(v, CTS_FAIL, "determinism", "%s returned %d, run 1 returned %d", label,
                         r->status, first->status);
        return;
    }
    for (int i = 0; i < c->ntensors; i++) {
        if (!c->t[i].is_output || c->t[i].null) continue;
        if (c->deterministic) cts_check_identical(&first->d[i], &r->d[i], label, v);
        else v->spread_ulp = fmax(v->spread_ulp, cts_spread_ulp(&first->d[i], &r->d[i]));
    }
}

/* The values of the inputs the reference reads, as the device saw them in run 1 (decoded from
 * the sent images, which then go unless --dump writes them or later runs send them again).
 * False when memory ran out. */
static bool seen_values(case_run *r, double *seen[])
{
    const cts_case *c = r->s.c;
    for (int i = 0; i < c->ntensors; i++) {
        cts_dev_tensor *d = &r->runs[0].d[i];
        if (c->t[i].is_output || c->t[i].null || c->op->tensors[i].shape_only) continue;
        size_t bytes = (size_t)(d->numel > 0 ? d->numel : 1) * sizeof *seen[i];
        if (!(seen[i] = cts_malloc_written(bytes)))
            return false;
        cts_dev_tensor_decode(d, d->sent, 0, d->numel, seen[i]);
        if (!(r->o && r->o->dump_dir) && r->total == 1) {
            free(d->sent);
            d->sent = NULL;
        }
    }
    return true;
}

/* A piece of the case (a few batches) streams its answers to the checks: the chunks of the
 * output being judged (slot), at their place in the whole output (offset: its elements of the
 * batches before); an earlier output's are dropped (judged in an earlier pass), a later one's
 * end the piece. */
typedef struct {
    output_checks *oc;
    int slot;
    int64_t offset;
} piece_pass;

#define PIECE_DONE 1

static int on_piece_chunk(void *ctx, const ref_chunk *ch)
{
    piece_pass *p = ctx;
    if (ch->slot < p->slot) return 0;
    if (ch->slot > p->slot) return PIECE_DONE;
    ref_chunk at = {ch->slot, ch->first + p->offset, ch->out};
    return on_chunk(p->oc, &at);
}

/* The answers nb batches at a time (piece_batches), one output after the other so the checks
 * see them in the order of the whole case's stream: for each computed output, every piece with
 * its inputs' values decoded from the sent images, the reference computing that output alone
 * (each output once). The reference's status (0, or -1 with errno). */
static int answers_by_batches(case_run *r, int64_t nb)
{
    const cts_case *c = r->s.c;
    const device_run *run = &r->runs[0];
    int64_t n = c->t[0].dims[0];
    double *seen[CTS_MAX_TENSORS] = {0};
    int rc = 0;
    for (int i = 0; i < c->ntensors && rc == 0; i++)
        if (!c->t[i].is_output && !c->t[i].null && !c->op->tensors[i].shape_only &&
            !(seen[i] = cts_malloc_written((size_t)(run->d[i].numel / n * nb + 1) *
                                           sizeof *seen[i])))
            rc = -1, errno = ENOMEM;
    for (int slot = 0; slot < c->ntensors && rc == 0; slot++) {
        if (!c->t[slot].is_output || c->t[slot].null || !r->plan.computed[slot]) continue;
        for (int64_t n0 = 0; n0 < n && rc == 0; n0 += nb) {
            int64_t m = n - n0 < nb ? n - n0 : nb;
            for (int i = 0; i < c->ntensors; i++) {
                const cts_dev_tensor *d = &run->d[i];
                if (seen[i]) cts_dev_tensor_decode(d, d->sent, n0 * (d->numel / n), m * (d->numel / n),
                                                   seen[i]);
            }
            piece_pass p = {&r->oc, slot, n0 * (r->plan.numel[slot] / n)};
            ref_case_answer a;
            errno = 0;
            rc = cts_case_answers_batches(c, m, slot, (const double *const *)seen,
                                          on_piece_chunk, &p, &a);
            if (rc == PIECE_DONE) rc = 0;
        }
    }
    for (int i = 0; i < CTS_MAX_TENSORS; i++) free(seen[i]);
    return rc;
}

/* The reference's answers on the inputs exactly as the device saw them in run 1 (rounded,
 * overlapping views), judged (and with --dump written) chunk by chunk as they come. False (the
 * verdict says why) when it cannot give them. */
bool run_reference_answers(case_run *r, cts_verdict *v)
{
    const cts_case *c = r->s.c;
    output_checks *oc = &r->oc;
    if (r->o && r->o->dump_dir && !r->s.dataless) {
        char derr[512];
        if (!(oc->dump = cts_dump_stream_open(r->o->dump_dir, c, &r->plan.path, derr, sizeof derr)))
            fprintf(stderr, "aclcts: --dump of %s: %s\n", c->id, derr);
    }
    run_clock t = run_clock_now(), now;
    double *seen[CTS_MAX_TENSORS] = {0};
    int rc = -1, err = ENOMEM;
    int64_t nb = run_piece_batches(c, r->plan.work_bytes);
    if (nb > 0) {
        rc = answers_by_batches(r, nb);
        err = errno;
    } else if (seen_values(r, seen)) {
        ref_case_answer answers;
        errno = 0;
        rc = cts_case_answers(c, (const double *const *)seen, on_chunk, oc, &answers);
        err = errno;
    }
    for (int i = 0; i < CTS_MAX_TENSORS; i++) free(seen[i]);
    now = run_clock_now();
    v->t_ref += now.wall - t.wall - oc->t_judge;
    v->c_ref += now.cpu - t.cpu - oc->c_judge;
    v->t_check += oc->t_judge;
    v->c_check += oc->c_judge;
    if (oc->dump) {
        char derr[512];
        if (cts_dump_stream_close(oc->dump, r->exact, derr, sizeof derr) != 0)
            fprintf(stderr, "aclcts: --dump of %s: %s\n", c->id, derr);
        oc->dump = NULL;
    }
    if (rc != 0 && err == ENOMEM) {
        cts_verdict_fail(v, CTS_RESOURCE_ERROR, "memory",
                         "the reference ran out of host memory for this case");
        return false;
    }
    if (rc != 0) {
        cts_verdict_fail(v, CTS_ERROR, "setup",
                         "the reference cannot compute this case (parameters it rejects)");
        return false;
    }
    return true;
}
