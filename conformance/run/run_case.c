/* cts_run_case (run.h): one case in-process, from data generation to verdict. */
#include "run.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check/check.h"
#include "data/data.h"
#include "dump.h"
#include "op_driver.h"
#include "backend/backend.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The product of a SoC name ("Ascend910B3", "Ascend910_9391") or of a profile id: the product
 * whose id (ref_product_id, lower case) is the longest prefix of the name in lower case. */
static int soc_product(const char *soc, ref_product *out)
{
    if (!soc) return -1;
    char low[64];
    size_t n = 0, best = 0;
    for (; soc[n] && n + 1 < sizeof low; n++) low[n] = (char)tolower((unsigned char)soc[n]);
    low[n] = 0;
    for (int p = 0; p < REF_PRODUCT_COUNT; p++) {
        const char *id = ref_product_id((ref_product)p);
        size_t len = strlen(id);
        if (len > best && strncmp(low, id, len) == 0) {
            best = len;
            *out = (ref_product)p;
        }
    }
    return best ? 0 : -1;
}

/* True when the user set ACLNN_EMU_SPEC: the emulated device then keeps that contract whatever
 * the run judges by (how a device that follows another contract is shown). Read once, before
 * this process sets the variable itself. */
static bool emu_spec_pinned(void)
{
    static int pinned = -1;
    if (pinned < 0) {
        const char *v = getenv("ACLNN_EMU_SPEC");
        pinned = v != NULL && *v != '\0';
    }
    return pinned;
}

typedef struct {
    const cts_backend *b;
    const cts_case *c;
    aclrtStream stream;
    bool initialized, device_set;
    bool dataless;           /* an error case too large for memory: shapes without data */
    uint64_t need;           /* the case's memory estimate (memory_estimate) */
    uint64_t max_memory;     /* --max-memory, 0: no limit */
} session;

/* aclInit (product chosen by ACLCTS_SOC on emulated backends), device 0, a stream and the
 * determinism option. Non-zero: the verdict says why (ERROR or NOT_SUPPORTED). */
static int session_open(session *s, cts_verdict *v)
{
    const cts_backend *b = s->b;
    const cts_case *c = s->c;
    if (!b->op_first[cts_op_index(c->op)]) {
        cts_verdict_fail(v, CTS_NOT_SUPPORTED, "setup", "the device has no %s (no symbol %s in "
                         "%s)", c->op->api, c->op->first_phase, b->dir);
        return -1;
    }
    if (b->emulated) {
        /* The emulated device plays the product and the release the case describes. */
        setenv("ACLCTS_SOC", ref_product_id(c->product), 1);
        if (!emu_spec_pinned())
            setenv("ACLNN_EMU_SPEC", ref_spec_name(c->spec), 1);
        /* Scatter-add order varies between runs on a real device even on one core; ask the
         * emulation for that too (unless the user chose a seed), so determinism and spread
         * checks mean the same thing on any machine. */
        setenv("ACLNN_EMU_SHUFFLE", "1", 0);
    }
    aclError e = b->aclInit(NULL);
    if (e != ACL_SUCCESS && (b->emulated || e != ACL_ERROR_REPEAT_INITIALIZE)) {
        const char *m = b->aclGetRecentErrMsg(); /* reading it clears it: once */
        cts_verdict_fail(v, CTS_ERROR, "setup", "aclInit failed with %d: %s", e,
                         m ? m : "no message");
        return -1;
    }
    s->initialized = e == ACL_SUCCESS;
    const char *soc = b->aclrtGetSocName();
    ref_product p;
    bool known = soc_product(soc, &p) == 0;
    if (!known || p != c->product) {
        cts_verdict_fail(v, b->emulated ? CTS_ERROR : CTS_NOT_SUPPORTED, "setup",
                         "the device is %s (%s) and the case is for %s", soc ? soc : "(null)",
                         known ? ref_product_id(p) : "unknown product", ref_product_id(c->product));
        return -1;
    }
    if ((e = b->aclrtSetDevice(0)) != ACL_SUCCESS) {
        cts_verdict_fail(v, CTS_ERROR, "setup", "aclrtSetDevice(0) failed with %d", e);
        return -1;
    }
    s->device_set = true;
    if ((e = b->aclrtCreateStream(&s->stream)) != ACL_SUCCESS) {
        s->stream = NULL;
        cts_verdict_fail(v, CTS_ERROR, "setup", "aclrtCreateStream failed with %d", e);
        return -1;
    }
    if ((e = b->aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, c->deterministic ? 1 : 0)) !=
        ACL_SUCCESS) {
        cts_verdict_fail(v, CTS_ERROR, "setup", "aclrtCtxSetSysParamOpt(DETERMINISTIC) failed "
                         "with %d", e);
        return -1;
    }
    return 0;
}

static void session_close(session *s)
{
    if (s->stream) s->b->aclrtDestroyStream(s->stream);
    if (s->device_set) s->b->aclrtResetDevice(0);
    /* A real runtime stays initialized for the process (aclInit once per process); the
     * emulation is finalized so the next case's aclInit reads its product. */
    if (s->initialized && s->b->emulated) s->b->aclFinalize();
}

/* One call of the operator: what came back. */
typedef struct {
    cts_dev_tensor d[CTS_MAX_TENSORS];
    int32_t status;
    char errmsg[512];
} device_run;

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Batches the reference answers at a time: 0 for the whole case at once, else at least 1. A
 * batch_major case with plain views is cut when the doubles of the inputs the reference reads
 * and the outputs' images would pass 2 T + 256 MiB (T: the tensors' bytes; a 16-bit input's
 * doubles are 4 times its bytes), so that its memory stays that of its tensors. The
 * environment's ACLCTS_REFERENCE_PIECE (bytes of doubles at once) sets another bound: the tests
 * cut small cases into single batches with it. */
static int64_t piece_batches(const cts_case *c)
{
    if (!c->op->batch_major) return 0;
    uint64_t vals = 0, tensors = 0, back = 0;
    int64_t n = -1;
    for (int i = 0; i < c->ntensors; i++) {
        const cts_tensor *t = &c->t[i];
        cts_tensor_extent e;
        if (t->null) continue;
        if (t->rank < 1 || t->has_strides || t->offset || (n >= 0 && t->dims[0] != n) ||
            !cts_tensor_extent_of(t, &e))
            return 0;
        n = t->dims[0];
        tensors = sat_add(tensors, (uint64_t)e.bytes);
        if (t->is_output) back = sat_add(back, (uint64_t)e.bytes);
        else if (!c->op->tensors[i].shape_only) vals = sat_add(vals, 8 * (uint64_t)e.numel);
    }
    const char *env = getenv("ACLCTS_REFERENCE_PIECE");
    uint64_t goal = sat_add(sat_add(tensors, tensors), (uint64_t)256 << 20);
    uint64_t cap = env && *env ? strtoull(env, NULL, 10) : goal > back ? goal - back : 0;
    if (n <= 1 || vals <= cap) return 0;
    uint64_t per_batch = vals / (uint64_t)n, nb = per_batch ? cap / per_batch : 1;
    return nb < 1 ? 1 : nb < (uint64_t)n ? (int64_t)nb : 0;
}

/* Host bytes a case needs at its peak (an estimate, for --max-memory; suites/vendor_st/README.md
 * "Memory and time"): the largest of its stages, each the sum of what coexists then.
 * - A device run: every tensor's device copy (host memory on the emulation), the inputs' sent
 *   images, and the image of one output read back while its device copy still exists. The
 *   emulated device computes 16-bit tensors in FP32 copies of its own (4 bytes an element); its
 *   workspace is added once the first phase gives its size (workspace_fits).
 * - The checks of run 1: the outputs' images, the sent images and the guard check's map of one
 *   strided output's storage.
 * - The reference: the outputs' images, the values of the inputs it reads (8 bytes each) and the
 *   sent image of the one being decoded (every sent image under --dump, with later runs, and
 *   when it answers a few batches at a time, with those batches' values), its working set
 *   (ref_bytes: its chunks and scratch, which the checks judge and drop) and the device's
 *   values of one chunk (8 bytes an element, under an eighth of the chunk's working set).
 * - A later run (determinism): run 1's output and sent images besides a device run (which
 *   sends copies of run 1's sent images).
 * Saturates instead of wrapping. */
static uint64_t memory_estimate(const cts_case *c, int runs, bool dump, bool emulated,
                                uint64_t ref_bytes)
{
    uint64_t dev = 0, sent = 0, back = 0, vals = 0, max_out = 0, max_in = 0, map = 0;
    uint64_t staging = 0;
    for (int i = 0; i < c->ntensors; i++) {
        const cts_tensor *t = &c->t[i];
        cts_tensor_extent e;
        if (t->null) continue;
        if (!cts_tensor_extent_of(t, &e)) return UINT64_MAX;
        uint64_t bytes = (uint64_t)e.bytes, n = (uint64_t)e.numel;
        dev = sat_add(dev, bytes);
        if (emulated && (t->dtype == REF_DT_FLOAT16 || t->dtype == REF_DT_BF16))
            staging = sat_add(staging, n > UINT64_MAX / 4 ? UINT64_MAX : 4 * n);
        if (t->is_output) {
            back = sat_add(back, bytes);
            max_out = max_u64(max_out, bytes);
            if (t->has_strides || t->offset) map = max_u64(map, (uint64_t)e.storage);
            continue;
        }
        sent = sat_add(sent, bytes);
        max_in = max_u64(max_in, bytes);
        if (!c->op->tensors[i].shape_only)
            vals = sat_add(vals, n > UINT64_MAX / 8 ? UINT64_MAX : 8 * n);
    }
    uint64_t device = sat_add(sat_add(sat_add(dev, staging), sent), max_out);
    uint64_t checks = sat_add(sat_add(back, sent), map);
    int64_t nb = piece_batches(c);
    if (nb > 0) vals = vals / (uint64_t)c->t[0].dims[0] * (uint64_t)nb;
    uint64_t reference = sat_add(sat_add(sat_add(back, vals),
                                         dump || nb || runs > 1 ? sent : max_in),
                                 sat_add(ref_bytes, ref_bytes / 8));
    uint64_t later = runs > 1 ? sat_add(sat_add(back, sent), device) : 0;
    return max_u64(max_u64(device, checks), max_u64(reference, later));
}

static const char *human_bytes(uint64_t n, char *buf, size_t len)
{
    static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double x = (double)n;
    int u = 0;
    while (x >= 1024 && u < 6) x /= 1024, u++;
    snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", x, unit[u]);
    return buf;
}

/* On the emulated device the workspace is host memory too, known once the first phase gives
 * its size: with it the case must still fit --max-memory. False (err says why) when not. */
static bool workspace_fits(const session *s, uint64_t ws, char *err, size_t errlen)
{
    uint64_t need = sat_add(s->need, ws);
    if (!s->b->emulated || !s->max_memory || need <= s->max_memory) return true;
    char wb[32], nb[32], mb[32];
    snprintf(err, errlen, "not run: with the device's workspace of %s (host memory on the "
             "emulated device) the case needs about %s of host memory, above --max-memory %s",
             human_bytes(ws, wb, sizeof wb), human_bytes(need, nb, sizeof nb),
             human_bytes(s->max_memory, mb, sizeof mb));
    return false;
}

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
    } else if (rc == 0 && ws > 0 && !workspace_fits(s, ws, err, errlen)) {
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

/* Upload every prepared tensor, call the op, read every tensor back and free its device copy
 * (both device runs): an input compared with what was sent piece by piece (its image kept only
 * when it changed), an output whole. */
static int upload_call_download(const session *s, device_run *r, char *err, size_t errlen)
{
    const cts_case *c = s->c;
    int rc;
    for (int i = 0; i < c->ntensors; i++)
        if (!c->t[i].null && (rc = cts_dev_tensor_upload(s->b, &r->d[i], err, errlen)) != 0)
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

/* The seeded values of one input, generated piece by piece (cts_fill_range) into its sent
 * image. */
typedef struct {
    const cts_case *c;
    int slot;
} input_fill;

static void fill_input(void *ctx, int64_t first, int64_t n, double *out)
{
    const input_fill *f = ctx;
    cts_fill_range(f->c, f->slot, first, out, n);
}

/* Generate (into the sent images: no values are kept), poison, upload, call, read back. A
 * later run (first: run 1, whose sent images stay as they were sent) copies run 1's images
 * instead of generating them again. *t_gen: seconds spent making the sent images. */
static int device_run_once(const session *s, const device_run *first, device_run *r,
                           double *t_gen, char *err, size_t errlen)
{
    const cts_case *c = s->c;
    memset(r, 0, sizeof *r);
    if (s->dataless) return device_run_dataless(s, r, err, errlen);
    for (int i = 0; i < c->ntensors; i++) {
        input_fill f = {c, i};
        double t = now();
        bool fill = !c->t[i].is_output && !c->t[i].null;
        int rc = first && (!fill || first->d[i].sent)
                     ? cts_dev_tensor_prepare_like(&r->d[i], &c->t[i], i, &first->d[i])
                     : cts_dev_tensor_prepare_fill(&r->d[i], &c->t[i], i,
                                                   fill ? fill_input : NULL, &f);
        *t_gen += now() - t;
        if (rc != 0)
            return snprintf(err, errlen, rc == CTS_OUT_OF_MEMORY ? "out of host memory for %s"
                            : "%s cannot exist (its size passes 2^63)", c->t[i].name), rc;
    }
    return upload_call_download(s, r, err, errlen);
}

static void device_run_free(const cts_backend *b, const cts_case *c, device_run *r)
{
    for (int i = 0; i < c->ntensors; i++) cts_dev_tensor_free(b, &r->d[i]);
}

static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t output_hash(const cts_case *c, const device_run *r)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < c->ntensors; i++) {
        const cts_dev_tensor *d = &r->d[i];
        if (!c->t[i].is_output || c->t[i].null) continue;
        if (cts_dev_tensor_plain(d)) { /* the view's elements in order are the storage's bytes */
            h = fnv1a(h, d->back + CTS_GUARD_BYTES, (size_t)d->numel * d->esize);
            continue;
        }
        for (int64_t k = 0; k < d->numel; k++)
            h = fnv1a(h, d->back + CTS_GUARD_BYTES + cts_dev_tensor_pos(d, k) * d->esize,
                      d->esize);
    }
    return h;
}

/* The checks of the first run (DESIGN "Checks and tolerances") that need no reference, in
 * order: status, message, poison of a failed call, inputs, guards. */
static void check_call(const cts_case *c, const ref_status *st, int32_t expected,
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

/* The output checks of the first run, slot by slot: poison of outputs the call must not write,
 * and the numerics of the others judged chunk by chunk as the reference streams them (the
 * reference's outputs come in slot order). */
typedef struct {
    const cts_case *c;
    const device_run *r;
    cts_verdict *v;
    const ref_case_answer *plan;
    bool numerics;
    int next;                    /* first slot whose checks are not done */
    int slot;                    /* the output being judged, -1 none */
    cts_output_judge *j;         /* its judge; NULL: its size disagrees with the view (setup
                                    error) or memory ran out */
    cts_error_grid worst_map;    /* error map of the verdict's worst output */
    cts_dump_stream *dump;       /* --dump: the reference's arrays, or NULL */
    double *got;                 /* the device's values of the chunk being judged */
    int64_t got_cap;
    double t_judge;              /* seconds spent judging (the rest of the stream is the
                                    reference's) */
} output_checks;

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
    cts_judged_output o = {t->name, t->dtype, t->rank, t->dims, d->numel, NULL, NULL};
    oc->j = cts_judge_begin(&oc->c->tolerance, &oc->plan->judge, &o, true,
                            &oc->c->expect_values[i], &oc->v->el);
    if (!oc->j) cts_verdict_fail(oc->v, CTS_RESOURCE_ERROR, "memory", "out of host memory");
}

/* The checks of every slot before `upto` not done yet. */
static void outputs_until(output_checks *oc, int upto)
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

static int on_chunk(void *ctx, const ref_chunk *ch)
{
    output_checks *oc = ctx;
    double t = now();
    if (ch->slot != oc->slot) {
        outputs_until(oc, ch->slot);
        output_begin(oc, ch->slot);
    }
    if (oc->j && !chunk_got(oc, ch)) {
        cts_judge_abandon(oc->j);
        oc->j = NULL;
        cts_verdict_fail(oc->v, CTS_RESOURCE_ERROR, "memory", "out of host memory");
    }
    if (oc->j) cts_judge_chunk_got(oc->j, ch, oc->got);
    if (oc->dump) cts_dump_stream_chunk(oc->dump, ch);
    oc->t_judge += now() - t;
    return 0;
}

/* Later runs: same status, and bitwise-identical outputs when determinism is asked, else the
 * spread. label: "run 2", "1 thread", "4 threads". */
static void check_later_run(const cts_case *c, const device_run *first, const device_run *r,
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

/* --max-memory: a case estimated above it is not run (RESOURCE_ERROR naming the estimate), or,
 * when the contract expects a refusal, runs without data (its parameters are judged, not data).
 * False when it must not run. */
static bool fits_memory(session *s, const cts_run_options *o, int runs, int32_t expected,
                        uint64_t ref_bytes, cts_verdict *v)
{
    uint64_t max_memory = o ? o->max_memory : 0;
    uint64_t need = memory_estimate(s->c, runs, o && o->dump_dir, s->b->emulated, ref_bytes);
    s->need = need;
    s->max_memory = max_memory;
    if (!max_memory || need <= max_memory) return true;
    if (expected != 0) {
        s->dataless = true;
        return true;
    }
    char nb[32], mb[32];
    cts_verdict_fail(v, CTS_RESOURCE_ERROR, "memory",
                     "not run: the case needs about %s of host memory (inputs, outputs, device "
                     "copies, reference), above --max-memory %s",
                     need == UINT64_MAX ? "more than 16 EiB" : human_bytes(need, nb, sizeof nb),
                     human_bytes(max_memory, mb, sizeof mb));
    return false;
}

/* A device run the harness could not complete: memory that ran out is the host's resource
 * failure, anything else a setup error. */
static void run_failed(int rc, const char *err, cts_verdict *v)
{
    if (rc == CTS_OUT_OF_MEMORY)
        cts_verdict_fail(v, CTS_RESOURCE_ERROR, "memory", "%s", err);
    else
        cts_verdict_fail(v, CTS_ERROR, "setup", "%s", err);
}

/* One case's run in progress, shared by the steps of cts_run_case. */
typedef struct {
    session s;
    const cts_run_options *o;
    ref_case_answer plan;        /* the reference's plan: status, paths, outputs, memory */
    ref_status st;               /* the status model's answer */
    int32_t expected;            /* the status the case expects */
    output_checks oc;            /* the first run's output checks */
    bool exact[CTS_MAX_TENSORS]; /* outputs whose reference arrays --dump wrote */
    device_run *runs;
    int nruns, total;
} case_run;

/* What the reference expects of the case (its plan): its status (and reason), computation
 * path, outputs and memory. */
static void expectation(case_run *r, cts_verdict *v)
{
    const cts_case *c = r->s.c;
    double t = now();
    cts_case_plan(c, &r->plan);
    r->st = r->plan.status;
    r->expected = c->expect_status_model ? r->st.status : c->expect_status;
    v->expected_status = r->expected;
    snprintf(v->status_reason, sizeof v->status_reason, "%s", r->st.reason);
    snprintf(v->path, sizeof v->path, "%s", r->plan.path.name ? r->plan.path.name : "");
    v->t_ref += now() - t;
}

/* Device runs of the case: its repeat (or --repeat), at least 2 when determinism is promised,
 * then one with 1 thread and one with --jobs threads. */
static int total_runs(const cts_case *c, const cts_run_options *o)
{
    int repeat = o && o->repeat > 0 ? o->repeat : (c->repeat > 0 ? c->repeat : 1);
    if (c->deterministic && repeat < 2) repeat = 2;
    return c->deterministic ? repeat + 2 : repeat;
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
        if (!(seen[i] = malloc((size_t)(d->numel > 0 ? d->numel : 1) * sizeof *seen[i])))
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
 * its inputs' values decoded from the sent images. The reference's status (0, or -1 with
 * errno). */
static int answers_by_batches(case_run *r, int64_t nb)
{
    const cts_case *c = r->s.c;
    const device_run *run = &r->runs[0];
    int64_t n = c->t[0].dims[0];
    double *seen[CTS_MAX_TENSORS] = {0};
    int rc = 0;
    for (int i = 0; i < c->ntensors && rc == 0; i++)
        if (!c->t[i].is_output && !c->t[i].null && !c->op->tensors[i].shape_only &&
            !(seen[i] = malloc((size_t)(run->d[i].numel / n * nb + 1) * sizeof *seen[i])))
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
            rc = cts_case_answers_batches(c, m, (const double *const *)seen, on_piece_chunk, &p,
                                          &a);
            if (rc == PIECE_DONE) rc = 0;
        }
    }
    for (int i = 0; i < CTS_MAX_TENSORS; i++) free(seen[i]);
    return rc;
}

/* The reference's answers on the inputs exactly as the device saw them in run 1 (rounded,
 * overlapping views), judged (and with --dump written) chunk by chunk as they come. False (the
 * verdict says why) when it cannot give them. */
static bool reference_answers(case_run *r, cts_verdict *v)
{
    const cts_case *c = r->s.c;
    output_checks *oc = &r->oc;
    if (r->o && r->o->dump_dir && !r->s.dataless) {
        char derr[512];
        if (!(oc->dump = cts_dump_stream_open(r->o->dump_dir, c, &r->plan.path, derr, sizeof derr)))
            fprintf(stderr, "aclcts: --dump of %s: %s\n", c->id, derr);
    }
    double t = now();
    double *seen[CTS_MAX_TENSORS] = {0};
    int rc = -1, err = ENOMEM;
    int64_t nb = piece_batches(c);
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
    v->t_ref += now() - t - oc->t_judge;
    v->t_check += oc->t_judge;
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

/* Run 1: the device call, its checks, the reference's answers judged as they come when the call
 * computed something, and the output checks. False when the case cannot go on. */
static bool first_run(case_run *r, cts_verdict *v)
{
    const cts_backend *b = r->s.b;
    const cts_case *c = r->s.c;
    char err[512] = "";
    if (!(r->runs = calloc((size_t)r->total, sizeof *r->runs))) {
        cts_verdict_fail(v, CTS_RESOURCE_ERROR, "memory", "out of host memory");
        return false;
    }
    double t = now();
    r->nruns = 1;
    /* Leak check where the backend can tell (the emulation's counter; a real install cannot):
     * every byte the case allocated is freed again when its first run ends. */
    size_t live_before = b->emu_live_device_bytes ? b->emu_live_device_bytes() : 0;
    double gen = 0;
    int rc = device_run_once(&r->s, NULL, &r->runs[0], &gen, err, sizeof err);
    v->t_gen += gen;
    if (rc != 0) {
        run_failed(rc, err, v);
        return false;
    }
    v->t_device += now() - t - gen;
    v->got_status = r->runs[0].status;
    v->output_hash = output_hash(c, &r->runs[0]);
    t = now();
    check_call(c, &r->st, r->expected, &r->runs[0], v);
    v->t_check += now() - t;
    r->oc = (output_checks){.c = c, .r = &r->runs[0], .v = v, .plan = &r->plan, .slot = -1};
    r->oc.numerics =
        r->runs[0].status == 0 && r->expected == 0 && (r->st.status != 0 || r->st.runs);
    if (r->oc.numerics && !reference_answers(r, v)) return false;
    t = now();
    if (r->runs[0].status == 0) {
        outputs_until(&r->oc, c->ntensors);
        cts_check_unjudged(c->max_unjudged, v);
    }
    size_t live_after = b->emu_live_device_bytes ? b->emu_live_device_bytes() : 0;
    if (v->status == CTS_PASS && live_after > live_before)
        cts_verdict_fail(v, CTS_FAIL, "leak",
                         "the device holds %zu more bytes of device memory after the call than "
                         "before, with every tensor and workspace freed: a leak",
                         live_after - live_before);
    v->t_check += now() - t;
    return true;
}

/* Runs 2..total while the case passes: determinism (plus 1 thread and --jobs threads) or the
 * spread. */
static void later_runs(case_run *r, cts_verdict *v)
{
    const cts_case *c = r->s.c;
    const cts_run_options *o = r->o;
    char err[512] = "";
    int saved_threads = omp_get_max_threads();
    for (int k = 1; k < r->total && v->status == CTS_PASS; k++) {
        char label[32];
        int threads = 0;
        if (c->deterministic && k == r->total - 2) threads = 1;
        if (c->deterministic && k == r->total - 1)
            threads = o && o->threads > 0 ? o->threads : omp_get_num_procs();
        if (threads) {
            omp_set_num_threads(threads);
            snprintf(label, sizeof label, "a run with %d thread%s", threads, threads > 1 ? "s" : "");
        } else {
            snprintf(label, sizeof label, "run %d", k + 1);
        }
        double t = now(), gen = 0;
        int rc = device_run_once(&r->s, &r->runs[0], &r->runs[k], &gen, err, sizeof err);
        r->nruns = k + 1;
        omp_set_num_threads(saved_threads);
        v->t_gen += gen;
        v->t_device += now() - t - gen;
        if (rc != 0) {
            run_failed(rc, err, v);
            break;
        }
        t = now();
        check_later_run(c, &r->runs[0], &r->runs[k], label, v);
        device_run_free(r->s.b, c, &r->runs[k]); /* judged: only run 1 is compared with */
        v->t_check += now() - t;
    }
}

/* A FAIL the case's waiver accepts whatever the failure is (no status list): WAIVED, with the
 * waiver's reason before the message. */
static void waive(const cts_case *c, cts_verdict *v)
{
    char msg[sizeof v->message + 300];
    snprintf(msg, sizeof msg, "waived (%s): %s", c->waiver, v->message);
    size_t n = strlen(msg) < sizeof v->message ? strlen(msg) : sizeof v->message - 1;
    memcpy(v->message, msg, n);
    v->message[n] = 0;
    v->status = CTS_WAIVED;
}

/* The end of every case, however far it got: the waiver, the error map of a failure, --dump,
 * and every buffer and the device session released. */
static void finish(case_run *r, cts_verdict *v)
{
    const cts_case *c = r->s.c;
    if (v->status == CTS_FAIL && c->waiver && c->nwaiver_status == 0) waive(c, v);
    /* the error map of a failure over the plane of its worst element (report.html) */
    if (v->status == CTS_FAIL && r->nruns > 0 && v->worst_output[0] &&
        !strcmp(r->oc.worst_map.output, v->worst_output))
        v->grid = r->oc.worst_map;
    if (r->oc.j) cts_judge_abandon(r->oc.j); /* a stream cut short */
    if (r->o && r->o->dump_dir && r->nruns > 0 && !r->s.dataless) {
        char derr[512];
        if (cts_dump_case(r->o->dump_dir, c, r->runs[0].d, r->exact, v, derr, sizeof derr) != 0)
            fprintf(stderr, "aclcts: --dump of %s: %s\n", c->id, derr);
    }
    for (int k = 0; k < r->nruns; k++) device_run_free(r->s.b, c, &r->runs[k]);
    free(r->runs);
    free(r->oc.got);
    session_close(&r->s);
}

void cts_run_case(const cts_backend *b, const cts_case *c, const cts_run_options *o,
                  cts_verdict *v)
{
    double t0 = now();
    memset(v, 0, sizeof *v);
    snprintf(v->case_id, sizeof v->case_id, "%s", c->id);
    v->status = CTS_PASS;
    v->worst_index = -1;
    case_run r = {.s = {.b = b, .c = c}, .o = o};
    expectation(&r, v);
    r.total = total_runs(c, o);
    if (fits_memory(&r.s, o, r.total, r.expected, r.plan.work_bytes, v) &&
        session_open(&r.s, v) == 0 && first_run(&r, v))
        later_runs(&r, v);
    finish(&r, v);
    v->t_total = now() - t0;
}
