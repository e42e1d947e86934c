/* The descriptor of aclnnToyScaleBackward: its tensors, its parameter, the ABI call. */
#include "toy_scale_backward.h"

#include <string.h>

#include "aclnnop/aclnn_toy_scale_backward.h"

static const cts_tensor_role tensors[TOY_NTENSORS] = {
    [TOY_GRAD_OUTPUT] = {.name = "grad_output", .api_name = "gradOutput", .required = true,
                         .shape_from = -1},
    [TOY_GRAD_INPUT] = {.name = "grad_input", .api_name = "gradInput", .is_output = true,
                        .shape_from = TOY_GRAD_OUTPUT},
};

static const cts_param_desc params[TOY_NPARAMS] = {
    [TOY_SCALE] = {.key = "scale", .atk = "scale", .kind = CTS_PARAM_DOUBLE,
                   .dflt = {.len = 1, .real = 1}},
};

static ref_format default_format(int rank)
{
    (void)rank;
    return REF_FMT_ND;
}

static aclnnStatus call(void *fn, const cts_call_args *a)
{
    __typeof__(&aclnnToyScaleBackwardGetWorkspaceSize) first;
    memcpy(&first, &fn, sizeof first); /* object pointer to function pointer, as dlsym */
    return first(a->t[TOY_GRAD_OUTPUT], cts_param_real(a->c, TOY_SCALE), a->t[TOY_GRAD_INPUT],
                 a->workspace_size, a->executor);
}

static bool determinism_promised(const cts_case *c)
{
    (void)c;
    return true;
}

const cts_op_driver cts_op_toy_scale_backward = {
    .name = "toy_scale_backward",
    .api = "aclnnToyScaleBackward",
    .ref_op = REF_OP_TOY_SCALE_BACKWARD,
    .first_phase = "aclnnToyScaleBackwardGetWorkspaceSize",
    .second_phase = "aclnnToyScaleBackward",
    .ntensors = TOY_NTENSORS,
    .tensors = tensors,
    .nparams = TOY_NPARAMS,
    .params = params,
    .default_format = default_format,
    .call = call,
    .determinism_promised = determinism_promised,
    .coverage = &toy_scale_backward_coverage,
};
