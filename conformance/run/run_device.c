/* Device runs of a case: data into the sent images, upload, both phases, read back. */
#include "run_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/data.h"

/* Both phases on uploaded tensors; returns the first non-zero status (or the sync's). -1 with
 * err on harness failures. */
static int call_op(const session *s, device_run *r, char *err, size_t errlen)
{
    const cts_backend *b = s->b;
    uint64_t ws = 0;
    aclOpExecutor *exec = NULL;
    cts_call_args a = {.c = s->c, .workspace_size = &ws, .executor = &exec};
    for (int i = 0; i < s->c->ntensors; i++) a.t[i] = r->d[i].acl;
    cts_call_arrays_create(b, &a);
    aclnnStatus rc = cts_call_first_phase(b, &a);
    int ret = 0;
    void *wsp = NULL;
    aclError me = ACL_SUCCESS;
    if (rc == 0 && s->dataless) {
        /* It accepted a case the contract refuses: the status check says so; running it over
         * tensors without data would only crash. */
    } else if (rc == 0 && ws > 0 && !run_workspace_fits(s, ws, err, errlen)) {
        ret = CTS_OUT_OF_MEMORY;
    } else if (rc == 0 && ws > 0 &&
               (me = b->aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST)) != ACL_SUCCESS) {
        snprintf(err, errlen, "aclrtMalloc of a %llu-byte workspace failed with %d",
                 (unsigned long long)ws, me);
        ret = me == ACL_ERROR_BAD_ALLOC ? CTS_OUT_OF_MEMORY : -1;
    } else if (rc == 0) {
        rc = cts_call_second_phase(b, s->c, wsp, ws, exec, s->stream);
        aclError e = b->aclrtSynchronizeStream(s->stream);
        if (rc == 0) rc = e;
    }
    r->status = rc;
    const char *m = rc != 0 ? b->aclGetRecentErrMsg() : NULL;
    snprintf(r->errmsg, sizeof r->errmsg, "%s", m ? m : "");
    if (wsp) b->aclrtFree(wsp);
    cts_call_arrays_destroy(b, &a);
    return ret;
}

/* Upload every prepared tensor not yet on the device, call the op, read every tensor back and
 * free its device copy (both device runs): an input compared with what was sent piece by piece
 * (its image kept only when it changed), an output whole. */
static int upload_call_download(const session *s, device_run *r, char *err, size_t errlen)
{
    const cts_case *c = s->c;
    int rc;
    for (int i = 0; i < c->ntensors; i++)
        if (!c->t[i].null && !r->d[i].dev &&
            (rc = cts_dev_tensor_upload(s->b, &r->d[i], err, errlen)) != 0)
            return rc;
    if ((rc = call_op(s, r, err, errlen)) != 0) return rc;
    for (int i = 0; i < c->ntensors && rc == 0; i++) {
        if (c->t[i].null) continue;
        cts_dev_tensor *d = &r->d[i];
        rc = c->t[i].is_output ? cts_dev_tensor_download(s->b, d, err, errlen)
                               : cts_dev_tensor_download_input(s->b, d, err, errlen);
        cts_dev_tensor_release(s->b, d);
    }
    return rc;
}

/* An error case whose data would not fit: every tensor is described with its real shape,
 * strides and storage but points at a buffer of guard zones only. The device must refuse it
 * from its parameters, before touching data; the guards show if it did not. */
static int device_run_dataless(const session *s, device_run *r, char *err, size_t errlen)
{
    const cts_case *c = s->c;
    for (int i = 0; i < c->ntensors; i++) {
        cts_dev_tensor *d = &r->d[i];
        cts_dev_tensor_layout(d, &c->t[i], i);
        d->acl_storage = d->storage;
        d->numel = d->storage = 0;
        d->bytes = 2 * (size_t)CTS_GUARD_BYTES;
        d->sent = malloc(d->bytes);
        d->back = malloc(d->bytes);
        if (!d->sent || !d->back)
            return snprintf(err, errlen, "out of host memory"), CTS_OUT_OF_MEMORY;
        for (size_t k = 0; k < d->bytes; k++) d->sent[k] = cts_poison_byte(k);
        memcpy(d->back, d->sent, d->bytes);
    }
    return upload_call_download(s, r, err, errlen);
}

/* The seeded values of one input, generated piece by piece into its sent image. */
static void fill_input(void *ctx, int64_t first, int64_t n, double *out)
{
    const input_fill *f = ctx;
    cts_fill_range(f->c, f->slot, first, out, n);
}

/* Generate (into the sent images: no values are kept), poison, upload, call, read back. Each
 * tensor goes to the device as soon as it is made, its image then dropped until the read back
 * (cts_dev_tensor_upload), so images and device copies do not all coexist. A later run (first:
 * run 1, whose sent images stay as they were sent) copies run 1's images instead of generating
 * them again. *gen: wall and CPU seconds spent making the sent images. */
int run_device_once(const session *s, const device_run *first, device_run *r,
                    run_clock *gen, char *err, size_t errlen)
{
    const cts_case *c = s->c;
    memset(r, 0, sizeof *r);
    if (s->dataless) return device_run_dataless(s, r, err, errlen);
    for (int i = 0; i < c->ntensors; i++) {
        r->fill[i] = (input_fill){c, i};
        run_clock t = run_clock_now();
        bool fill = !c->t[i].is_output && !c->t[i].null;
        int rc = first && (!fill || first->d[i].sent)
                     ? cts_dev_tensor_prepare_like(&r->d[i], &c->t[i], i, &first->d[i])
                     : cts_dev_tensor_prepare_fill(&r->d[i], &c->t[i], i,
                                                   fill ? fill_input : NULL, &r->fill[i]);
        run_stage_add(&gen->wall, &gen->cpu, t);
        if (rc != 0)
            return snprintf(err, errlen, rc == CTS_OUT_OF_MEMORY ? "out of host memory for %s"
                            : "%s cannot exist (its size passes 2^63)", c->t[i].name), rc;
        if (!c->t[i].null && (rc = cts_dev_tensor_upload(s->b, &r->d[i], err, errlen)) != 0)
            return rc;
    }
    return upload_call_download(s, r, err, errlen);
}

void run_device_free(const cts_backend *b, const cts_case *c, device_run *r)
{
    for (int i = 0; i < c->ntensors; i++) cts_dev_tensor_free(b, &r->d[i]);
}

output_hash_at run_output_hash_start(void)
{
    return (output_hash_at){0xcbf29ce484222325ull, 0, 0};
}

void run_output_hash_settle(const cts_case *c, const device_run *r, output_hash_at *a)
{
    while (a->slot < c->ntensors &&
           (!c->t[a->slot].is_output || c->t[a->slot].null || a->k >= r->d[a->slot].numel)) {
        a->slot++;
        a->k = 0;
    }
}

uint64_t run_output_hash_finish(const cts_case *c, const device_run *r, output_hash_at a)
{
    uint64_t h = a.h;
    for (run_output_hash_settle(c, r, &a); a.slot < c->ntensors; a.slot++, a.k = 0) {
        const cts_dev_tensor *d = &r->d[a.slot];
        if (!c->t[a.slot].is_output || c->t[a.slot].null) continue;
        const unsigned char *data = d->back + CTS_GUARD_BYTES;
        if (cts_dev_tensor_plain(d)) { /* the view's elements in order are the storage's bytes */
            h = cts_fnv1a_long(h, data + a.k * d->esize, (size_t)(d->numel - a.k) * d->esize);
            continue;
        }
        for (int64_t k = a.k; k < d->numel; k++)
            h = cts_fnv1a(h, data + cts_dev_tensor_pos(d, k) * d->esize, d->esize);
    }
    return h;
}

uint64_t run_output_hash(const cts_case *c, const device_run *r)
{
    return run_output_hash_finish(c, r, run_output_hash_start());
}
