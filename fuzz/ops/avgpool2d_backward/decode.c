/* Bytes → one aclnnAvgPool2dBackward call. Order of reads (fuzz/seeds.py writes the same):
 * header; self rank and dims; kernelSize, stride, padding; ceilMode, countIncludePad,
 * divisorOverride, cubeMathType; gradOutput shape mode (+dims); gradInput shape mode (+dims);
 * then dtype/format/NULL/view of gradOutput, self, gradInput. */
#include <string.h>

#include "avgpool2d_backward/avgpool2d_backward.h"
#include "fuzz_call.h"

static const int RANKS[] = {4, 3, 4, 3, 0, 1, 2, 5};

static void decode_int_array(fdp *p, cts_param *a, int64_t lo, int64_t hi)
{
    memset(a, 0, sizeof *a);
    a->null = fdp_rare(p);
    a->len = (int)fdp_int(p, 0, 3);
    for (int i = 0; i < a->len; i++) a->v[i] = fdp_int_mix(p, lo, hi);
}

static int64_t axis(const cts_param *a, int i, int64_t dflt)
{
    if (a->null || a->len == 0) return dflt;
    return a->v[a->len > i ? i : 0];
}

/* The forward output size (the reference's) when the parameters give one, to aim most calls at
 * the shape rule's valid side; the oracle is the status model, not this. */
static bool pool_out(int64_t in, int64_t k, int64_t s, int64_t p, bool ceil, int64_t *out)
{
    if (k > 64 || s > 64 || p > 64 || in > 64) return false;
    return ref_avgpool_output_size(in, k, s, p, ceil, out);
}

static void derive_grad_output(cts_case *c)
{
    const cts_tensor *self = &c->t[1];
    cts_tensor *go = &c->t[0];
    go->rank = self->rank;
    memcpy(go->dims, self->dims, sizeof go->dims);
    int r = self->rank;
    if (r < 2) return;
    const cts_param *ks = &c->param[AVG_KERNEL_SIZE], *st = &c->param[AVG_STRIDE],
                    *pd = &c->param[AVG_PADDING];
    bool ceil = cts_param_bool(c, AVG_CEIL_MODE);
    int64_t kh = axis(ks, 0, 1), kw = axis(ks, 1, 1);
    int64_t oh, ow;
    if (pool_out(self->dims[r - 2], kh, axis(st, 0, kh), axis(pd, 0, 0), ceil, &oh) &&
        pool_out(self->dims[r - 1], kw, axis(st, 1, kw), axis(pd, 1, 0), ceil, &ow)) {
        go->dims[r - 2] = oh;
        go->dims[r - 1] = ow;
    }
}

/* The C axis of an NCHW or NCL shape, -1 for other ranks. */
static int channel_axis(int rank)
{
    return rank == 3 || rank == 4 ? rank - 3 : -1;
}

/* mode 0..5: derived (go) or equal to self (gi); 6: one dim moved by -2..2; 7: any shape. */
static void decode_shape(fdp *p, cts_tensor *t)
{
    int mode = fdp_pick(p, 8);
    if (mode == 6 && t->rank > 0) {
        int i = fdp_pick(p, t->rank);
        t->dims[i] += fdp_int(p, -2, 2);
    } else if (mode == 7) {
        t->rank = RANKS[fdp_pick(p, 8)];
        fuzz_decode_dims(p, t->rank, -1, 14, t->dims);
    }
    fuzz_shrink(t->rank, t->dims, FUZZ_MAX_NUMEL, channel_axis(t->rank));
}

void fuzz_decode_op(fdp *p, fuzz_call *fc)
{
    fuzz_decode_header(p, fc, &cts_op_avgpool2d_backward);
    cts_case *c = &fc->c;
    cts_tensor *self = &c->t[1];
    self->rank = RANKS[fdp_pick(p, 8)];
    fuzz_decode_dims(p, self->rank, -1, 14, self->dims);
    int ch = channel_axis(self->rank);
    if (ch >= 0 && self->dims[ch] == 14) self->dims[ch] = 2049; /* past 2048 (determinism) */
    fuzz_shrink(self->rank, self->dims, FUZZ_MAX_NUMEL, ch);
    decode_int_array(p, &c->param[AVG_KERNEL_SIZE], -1, 6);
    decode_int_array(p, &c->param[AVG_STRIDE], -1, 6);
    decode_int_array(p, &c->param[AVG_PADDING], -1, 3);
    c->param[AVG_CEIL_MODE].v[0] = fdp_bool(p);
    c->param[AVG_COUNT_INCLUDE_PAD].v[0] = fdp_bool(p);
    c->param[AVG_DIVISOR_OVERRIDE].v[0] = fdp_int_mix(p, -3, 3);
    c->param[AVG_CUBE_MATH_TYPE].v[0] = (int8_t)fdp_int_mix(p, 0, 3); /* the prototype's int8_t */
    derive_grad_output(c);
    decode_shape(p, &c->t[0]);
    c->t[2].rank = self->rank;
    memcpy(c->t[2].dims, self->dims, sizeof self->dims);
    decode_shape(p, &c->t[2]);
    for (int s = 0; s < 3; s++)
        fuzz_decode_tensor(p, fc, s, c->t[s].rank == 3 ? REF_FMT_NCL : REF_FMT_NCHW);
}
