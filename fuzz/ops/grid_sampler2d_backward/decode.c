/* Bytes → one aclnnGridSampler2DBackward call. Order of reads (fuzz/seeds.py writes the same):
 * header; N, C mode (+C), Hin, Win, Hout, Wout, grid last dim mode (+dim);
 * interpolationMode, paddingMode, alignCorners; outputMask NULL, length, entries;
 * per tensor (gradOutput, input, grid, inputGrad, gridGrad) a shape mode (+rank/dim changes);
 * then dtype/format/NULL/view of the five tensors. */
#include <string.h>

#include "fuzz_call.h"
#include "grid_sampler2d_backward/grid_sampler2d_backward.h"

static const int MASK_LENGTHS[] = {2, 2, 2, 2, 0, 1, 3, 4};

/* mode 0..5: as derived; 6: one dim moved by -2..2; 7: another rank 0..5 (dims kept or 1). */
static void decode_shape(fdp *p, cts_tensor *t)
{
    int mode = fdp_pick(p, 8);
    if (mode == 6) {
        int i = fdp_pick(p, t->rank);
        t->dims[i] += fdp_int(p, -2, 2);
    } else if (mode == 7) {
        int r = (int)fdp_int(p, 0, 5);
        for (int i = t->rank; i < r; i++) t->dims[i] = 1;
        t->rank = r;
    }
    fuzz_shrink(t->rank, t->dims, FUZZ_MAX_NUMEL, t->rank == 4 ? 1 : -1);
}

static void set4(cts_tensor *t, int64_t a, int64_t b, int64_t c, int64_t d)
{
    t->rank = 4;
    t->dims[0] = a, t->dims[1] = b, t->dims[2] = c, t->dims[3] = d;
}

void fuzz_decode_op(fdp *p, fuzz_call *fc)
{
    fuzz_decode_header(p, fc, &cts_op_grid_sampler2d_backward);
    cts_case *c = &fc->c;
    int64_t n = fdp_int(p, -1, 3);
    /* C around 2048 (the determinism limit) with a 1x1 plane, or small. */
    bool wide_c = fdp_rare(p);
    int64_t ch = wide_c ? 2047 + fdp_int(p, 0, 2) : fdp_int(p, -1, 4);
    int64_t hi = fdp_int(p, -1, 8), wi = fdp_int(p, -1, 8);
    int64_t ho = fdp_int(p, -1, 8), wo = fdp_int(p, -1, 8);
    int64_t last = fdp_rare(p) ? fdp_int(p, 0, 4) : 2;
    if (wide_c) n = hi = wi = ho = wo = 1;
    c->param[GRID_INTERPOLATION_MODE].v[0] = fdp_int_mix(p, 0, 2);
    c->param[GRID_PADDING_MODE].v[0] = fdp_int_mix(p, 0, 2);
    c->param[GRID_ALIGN_CORNERS].v[0] = fdp_bool(p);
    cts_param *mask = &c->param[GRID_OUTPUT_MASK];
    mask->null = fdp_rare(p);
    mask->len = MASK_LENGTHS[fdp_pick(p, 8)];
    for (int i = 0; i < mask->len; i++) mask->v[i] = fdp_bool(p);
    set4(&c->t[0], n, ch, ho, wo);
    set4(&c->t[1], n, ch, hi, wi);
    set4(&c->t[2], n, ho, wo, last);
    set4(&c->t[3], n, ch, hi, wi);
    set4(&c->t[4], n, ho, wo, last);
    for (int s = 0; s < 5; s++) decode_shape(p, &c->t[s]);
    for (int s = 0; s < 5; s++) fuzz_decode_tensor(p, fc, s, REF_FMT_ND);
}
