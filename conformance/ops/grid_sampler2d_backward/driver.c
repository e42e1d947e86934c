/* The descriptor of aclnnGridSampler2DBackward (spec/003, docs/operators.md): its tensors, its
 * parameters as suites write them, the shape a suite may leave open, the ABI call, and the
 * status query's operator part (the reference's view of a case). */
#include "grid_sampler2d_backward.h"

#include <string.h>

#include "aclnnop/aclnn_grid_sampler2d_backward.h"

static const cts_tensor_role tensors[GRID_NTENSORS] = {
    [GRID_GRAD_OUTPUT] = {.name = "grad_output", .api_name = "gradOutput",
                          .shape_from = GRID_INPUT, .derived = true},
    [GRID_INPUT] = {.name = "input", .api_name = "input", .required = true, .shape_from = -1},
    [GRID_GRID] = {.name = "grid", .api_name = "grid", .required = true, .shape_from = -1,
                   .coordinates = true},
    [GRID_INPUT_GRAD] = {.name = "input_grad", .api_name = "inputGrad", .is_output = true,
                         .shape_from = GRID_INPUT},
    [GRID_GRID_GRAD] = {.name = "grid_grad", .api_name = "gridGrad", .is_output = true,
                        .shape_from = GRID_GRID, .pairs = true},
};

static const char *const interpolation_modes[] = {"bilinear", "nearest", "bicubic"};
static const char *const padding_modes[] = {"zeros", "border", "reflection"};

static const cts_param_desc params[GRID_NPARAMS] = {
    [GRID_INTERPOLATION_MODE] = {.key = "interpolation_mode", .atk = "interpolationMode",
                                 .kind = CTS_PARAM_INT, .names = interpolation_modes,
                                 .nnames = 3, .dflt = {.len = 1}},
    [GRID_PADDING_MODE] = {.key = "padding_mode", .atk = "paddingMode", .kind = CTS_PARAM_INT,
                           .names = padding_modes, .nnames = 3, .dflt = {.len = 1}},
    [GRID_ALIGN_CORNERS] = {.key = "align_corners", .atk = "alignCorners",
                            .kind = CTS_PARAM_BOOL, .dflt = {.len = 1}},
    [GRID_OUTPUT_MASK] = {.key = "output_mask", .atk = "outputMask", .kind = CTS_PARAM_BOOLS,
                          .nullable = true, .dflt = {.len = 2, .v = {1, 1}}},
};

static ref_format default_format(int rank)
{
    (void)rank;
    return REF_FMT_ND;
}

/* gradOutput: (input N, input C, grid H, grid W); a missing dim (rank too small) is 1. */
static void derive_shapes(cts_case *c)
{
    const cts_tensor *in = &c->t[GRID_INPUT], *grid = &c->t[GRID_GRID];
    cts_tensor *go = &c->t[GRID_GRAD_OUTPUT];
    go->rank = 4;
    go->dims[0] = in->rank > 0 ? in->dims[0] : 1;
    go->dims[1] = in->rank > 1 ? in->dims[1] : 1;
    go->dims[2] = grid->rank > 1 ? grid->dims[1] : 1;
    go->dims[3] = grid->rank > 2 ? grid->dims[2] : 1;
}

static aclnnStatus call(void *fn, const cts_call_args *a)
{
    __typeof__(&aclnnGridSampler2DBackwardGetWorkspaceSize) first;
    memcpy(&first, &fn, sizeof first); /* object pointer to function pointer, as dlsym */
    const cts_case *c = a->c;
    return first(a->t[GRID_GRAD_OUTPUT], a->t[GRID_INPUT], a->t[GRID_GRID],
                 cts_param_int(c, GRID_INTERPOLATION_MODE), cts_param_int(c, GRID_PADDING_MODE),
                 cts_param_bool(c, GRID_ALIGN_CORNERS), a->array[GRID_OUTPUT_MASK],
                 a->t[GRID_INPUT_GRAD], a->t[GRID_GRID_GRAD], a->workspace_size, a->executor);
}

/* facts §3: deterministic when asked, except for DOUBLE and above 2048 channels. */
static bool determinism_promised(const cts_case *c)
{
    return c->dtype != REF_DT_DOUBLE && c->t[GRID_INPUT].dims[1] <= 2048;
}

/* Each probe's status differs between at least two contracts on some product
 * (docs/contract.md rules named in the comments). */
static const char probes[] =
    "suite: detect.grid_sampler2d_backward\n"
    "op: grid_sampler2d_backward\n"
    "seed: 1\n"
    "defaults: {dtype: float32, input_shape: [1, 2, 3, 4], grid_shape: [1, 2, 2, 2]}\n"
    "cases:\n"
    "  - {name: null_output_mask, output_mask: null}              # G1: doc 161001\n"
    "  - {name: mask_off_null_input, output_mask: [false, false], null: [input]} # G2\n"
    "  - {name: double, dtype: float64}                           # G4b: ascend910\n";

const cts_op_driver cts_op_grid_sampler2d_backward = {
    .name = "grid_sampler2d_backward",
    .api = "aclnnGridSampler2DBackward",
    .ref_op = REF_OP_GRID_SAMPLER2D_BACKWARD,
    .first_phase = "aclnnGridSampler2DBackwardGetWorkspaceSize",
    .second_phase = "aclnnGridSampler2DBackward",
    .ntensors = GRID_NTENSORS,
    .tensors = tensors,
    .batch_major = true,
    .nparams = GRID_NPARAMS,
    .params = params,
    .default_format = default_format,
    .derive_shapes = derive_shapes,
    .call = call,
    .not_computed = "its outputMask entry is false",
    .determinism_promised = determinism_promised,
    .coverage = &grid_sampler2d_backward_coverage,
    .contract_probes = probes,
};
