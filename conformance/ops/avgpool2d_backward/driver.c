/* The descriptor of aclnnAvgPool2dBackward (spec/000, docs/operators.md): its tensors, its
 * parameters as suites write them, the shape a suite may leave open, the ABI call, and the
 * status query's operator part (the reference's view of a case). */
#include "avgpool2d_backward.h"

#include <string.h>

#include "aclnnop/aclnn_avgpool2d_backward.h"

static const cts_tensor_role tensors[AVG_NTENSORS] = {
    [AVG_GRAD_OUTPUT] = {.name = "grad_output", .api_name = "gradOutput", .shape_from = AVG_SELF,
                         .derived = true},
    [AVG_SELF] = {.name = "self", .api_name = "self", .required = true, .shape_from = -1,
                  .shape_only = true},
    [AVG_GRAD_INPUT] = {.name = "grad_input", .api_name = "gradInput", .is_output = true,
                        .shape_from = AVG_SELF},
};

static const cts_param_desc params[AVG_NPARAMS] = {
    [AVG_KERNEL_SIZE] = {.key = "kernel_size", .atk = "kernel_size", .kind = CTS_PARAM_INTS,
                         .required = true, .nullable = true},
    /* left out: stride is the kernel's, as in PyTorch, padding [0] (complete) */
    [AVG_STRIDE] = {.key = "stride", .atk = "stride", .kind = CTS_PARAM_INTS, .nullable = true},
    [AVG_PADDING] = {.key = "padding", .atk = "padding", .kind = CTS_PARAM_INTS, .nullable = true},
    [AVG_CEIL_MODE] = {.key = "ceil_mode", .atk = "ceil_mode", .kind = CTS_PARAM_BOOL},
    [AVG_COUNT_INCLUDE_PAD] = {.key = "count_include_pad", .atk = "count_include_pad",
                               .kind = CTS_PARAM_BOOL, .dflt = {.len = 1, .v = {1}}},
    [AVG_DIVISOR_OVERRIDE] = {.key = "divisor_override", .atk = "divisor_override",
                              .kind = CTS_PARAM_INT, .dflt = {.len = 1}},
    /* The prototype takes int8_t: a suite cannot write a value the call would truncate. */
    [AVG_CUBE_MATH_TYPE] = {.key = "cube_math_type", .atk = "cube_math_type",
                            .kind = CTS_PARAM_INT, .c_type = "int8_t", .min = -128, .max = 127,
                            .numerics = true, .tolerance_tag = "cmt", .dflt = {.len = 1}},
};

static ref_format default_format(int rank)
{
    return rank == 3 ? REF_FMT_NCL : REF_FMT_NCHW;
}

static void complete(cts_case *c, const bool *param_set)
{
    if (!param_set[AVG_STRIDE])
        c->param[AVG_STRIDE] = c->param[AVG_KERNEL_SIZE];
    if (!param_set[AVG_PADDING]) {
        c->param[AVG_PADDING].len = 1;
        c->param[AVG_PADDING].v[0] = 0;
    }
}

static bool axis(const cts_param *a, int i, int64_t *v)
{
    if (a->null || a->len < 1 || a->len > 2)
        return false;
    *v = a->v[a->len == 1 ? 0 : i];
    return true;
}

/* gradOutput: self's leading dims and the forward output size (the reference's). When kernel,
 * stride or padding give no output size (null, bad length, non-positive), or self's rank is
 * not 3 or 4, it is self's shape: such a case is an error case and the status model decides it
 * before shapes matter. */
static void derive_shapes(cts_case *c)
{
    const cts_tensor *self = &c->t[AVG_SELF];
    cts_tensor *go = &c->t[AVG_GRAD_OUTPUT];
    go->rank = self->rank;
    memcpy(go->dims, self->dims, sizeof go->dims);
    if (self->rank != 3 && self->rank != 4)
        return;
    const cts_param *k = &c->param[AVG_KERNEL_SIZE], *s = &c->param[AVG_STRIDE],
                    *p = &c->param[AVG_PADDING];
    int64_t kh, kw, sh, sw, ph, pw;
    if (!axis(k, 0, &kh) || !axis(k, 1, &kw) || !axis(p, 0, &ph) || !axis(p, 1, &pw))
        return;
    if (s->null || s->len == 0) {
        sh = kh;
        sw = kw;
    } else if (!axis(s, 0, &sh) || !axis(s, 1, &sw)) {
        return;
    }
    bool ceil = cts_param_bool(c, AVG_CEIL_MODE);
    int64_t oh, ow;
    int r = self->rank;
    if (!ref_avgpool_output_size(self->dims[r - 2], kh, sh, ph, ceil, &oh) ||
        !ref_avgpool_output_size(self->dims[r - 1], kw, sw, pw, ceil, &ow))
        return;
    go->dims[r - 2] = oh;
    go->dims[r - 1] = ow;
}

static aclnnStatus call(void *fn, const cts_call_args *a)
{
    __typeof__(&aclnnAvgPool2dBackwardGetWorkspaceSize) first;
    memcpy(&first, &fn, sizeof first); /* object pointer to function pointer, as dlsym */
    const cts_case *c = a->c;
    return first(a->t[AVG_GRAD_OUTPUT], a->t[AVG_SELF], a->array[AVG_KERNEL_SIZE],
                 a->array[AVG_STRIDE], a->array[AVG_PADDING], cts_param_bool(c, AVG_CEIL_MODE),
                 cts_param_bool(c, AVG_COUNT_INCLUDE_PAD), cts_param_int(c, AVG_DIVISOR_OVERRIDE),
                 (int8_t)cts_param_int(c, AVG_CUBE_MATH_TYPE), a->t[AVG_GRAD_INPUT],
                 a->workspace_size, a->executor);
}

/* spec/000: deterministic whenever asked. */
static bool determinism_promised(const cts_case *c)
{
    (void)c;
    return true;
}

/* Each probe's status differs between at least two contracts on some product
 * (docs/contract.md rules named in the comments). */
static const char probes[] =
    "suite: detect.avgpool2d_backward\n"
    "op: avgpool2d_backward\n"
    "seed: 1\n"
    "defaults: {dtype: float32, self_shape: [1, 2, 4, 4], kernel_size: [2, 2], stride: [2, 2],\n"
    "           padding: [0, 0], cube_math_type: 1, data: {grad_output: {int: [-4, 4]}}}\n"
    "cases:\n"
    "  - {name: cube_math_type_4, cube_math_type: 4}              # A7: 161002 / 161001\n"
    "  - {name: grad_output_spatial, grad_output_shape: [1, 2, 3, 2]} # A9': doc 161002\n"
    "  - {name: empty_batch, self_shape: [0, 2, 4, 4]}            # A9: doc 161002\n"
    "  - {name: self_dtype, dtypes: {self: float16}}              # A3b: doc 161002\n"
    "  - {name: stride_empty, stride: []}                         # doc 161002\n"
    "  - {name: bf16, dtype: bfloat16}                            # A3a: 950 in 8.5\n";

const cts_op_driver cts_op_avgpool2d_backward = {
    .name = "avgpool2d_backward",
    .api = "aclnnAvgPool2dBackward",
    .ref_op = REF_OP_AVGPOOL2D_BACKWARD,
    .first_phase = "aclnnAvgPool2dBackwardGetWorkspaceSize",
    .second_phase = "aclnnAvgPool2dBackward",
    .ntensors = AVG_NTENSORS,
    .tensors = tensors,
    .nparams = AVG_NPARAMS,
    .params = params,
    .default_format = default_format,
    .complete = complete,
    .derive_shapes = derive_shapes,
    .call = call,
    .determinism_promised = determinism_promised,
    .coverage = &avgpool2d_backward_coverage,
    .contract_probes = probes,
};
