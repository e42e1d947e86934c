/* The memory a case needs (--max-memory) and the pieces the reference answers it in. */
#include "run_internal.h"

#include <stdio.h>
#include <stdlib.h>

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Batches the reference answers at a time: 0 for the whole case at once, else at least 1. A
 * batch_major case with plain views is cut when its reference stage would pass 1.5 T + 256 MiB
 * (T: the tensors' bytes), the memory goal of a case: the whole case holds the outputs' images,
 * the doubles of the inputs the reference reads (a FLOAT input's are twice its bytes, a 16-bit
 * one's 4 times), the sent image being decoded and the reference's working set (ref_bytes, 9/8
 * with the device's values of a chunk). A piece holds every sent image and the outputs' images
 * (T) besides its batches' doubles and the working set, so it gets what is left of the goal,
 * at least one batch. The environment's ACLCTS_REFERENCE_PIECE (bytes of doubles at once) sets
 * another bound: the tests cut small cases into single batches with it. */
int64_t run_piece_batches(const cts_case *c, uint64_t ref_bytes)
{
    if (!c->op->batch_major) return 0;
    uint64_t vals = 0, tensors = 0;
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
        if (!t->is_output && !c->op->tensors[i].shape_only) vals = sat_add(vals, 8 * (uint64_t)e.numel);
    }
    const char *env = getenv("ACLCTS_REFERENCE_PIECE");
    uint64_t goal = sat_add(sat_add(tensors, tensors / 2), (uint64_t)256 << 20);
    uint64_t work = sat_add(ref_bytes, ref_bytes / 8), in_piece = sat_add(tensors, work);
    uint64_t whole = sat_add(sat_add(tensors, vals), work); /* outputs + max_in <= tensors */
    uint64_t cap = env && *env ? strtoull(env, NULL, 10) : goal > in_piece ? goal - in_piece : 0;
    if (n <= 1 || (env && *env ? vals <= cap : whole <= goal)) return 0;
    uint64_t per_batch = vals / (uint64_t)n, nb = per_batch ? cap / per_batch : 1;
    return nb < 1 ? 1 : nb < (uint64_t)n ? (int64_t)nb : 0;
}

/* Host bytes a case needs at its peak (an estimate, for --max-memory; suites/vendor_st/README.md
 * "Memory and time"): the largest of its stages, each the sum of what coexists then.
 * - A device run: every tensor's device copy (host memory on the emulation) and the image of
 *   one tensor besides: an input's sent image, made and uploaded before the next (then dropped
 *   until the read back), or an image read back while its device copy still exists. The
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
    uint64_t device = sat_add(sat_add(dev, staging), max_u64(max_in, max_out));
    uint64_t checks = sat_add(sat_add(back, sent), map);
    int64_t nb = run_piece_batches(c, ref_bytes);
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
bool run_workspace_fits(const session *s, uint64_t ws, char *err, size_t errlen)
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

/* --max-memory: a case estimated above it is not run (RESOURCE_ERROR naming the estimate), or,
 * when the contract expects a refusal, runs without data (its parameters are judged, not data).
 * False when it must not run. */
bool run_fits_memory(session *s, const cts_run_options *o, int runs, int32_t expected,
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
