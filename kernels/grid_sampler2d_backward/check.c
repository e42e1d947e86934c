/* gs_check: the first phase's checks in the order of docs/contract.md (grid sampler section
 * and "Both operators"): nulls, product, dtypes, ranks, parameter values, shapes, empty tensors,
 * then the output mask. Formats are not checked (the document's table has no format row). Also
 * the tensor tests both contracts' checks use (check_vendor.c). */
#include <stdio.h>

#include "grid_sampler2d_backward.h"

#define FAIL(code, ...)                                                                        \
    do {                                                                                       \
        emu_set_error(GS_API_NAME ": " __VA_ARGS__);                                           \
        return (code);                                                                         \
    } while (0)

const char *const gs_tensor_names[GS_TENSOR_COUNT] = {"gradOutput", "input", "grid",
                                                      "inputGrad", "gridGrad"};

int gs_first_dtype_mismatch(const aclTensor *const t[GS_TENSOR_COUNT])
{
    for (int i = 0; i < GS_TENSOR_COUNT; i++)
        if (t[i]->dtype != t[GS_INPUT]->dtype)
            return i;
    return -1;
}

bool gs_same_shape(const aclTensor *a, const aclTensor *b)
{
    if (a->ndim != b->ndim)
        return false;
    for (uint64_t i = 0; i < a->ndim; i++)
        if (a->dims[i] != b->dims[i])
            return false;
    return true;
}

bool gs_negative_dim(const aclTensor *t)
{
    for (uint64_t i = 0; i < t->ndim; i++)
        if (t->dims[i] < 0)
            return true;
    return false;
}

static bool dtype_supported(aclDataType dt, const emu_profile *prof)
{
    if (dt == ACL_FLOAT || dt == ACL_FLOAT16)
        return true;
    return (dt == ACL_BF16 || dt == ACL_DOUBLE) && gs_product_of(prof)->bf16_double;
}

/* The shape rules of the document's table, in its order. */
static aclnnStatus check_shapes(const aclTensor *const t[GS_TENSOR_COUNT])
{
    char b1[96], b2[96];
    const int64_t *go = t[GS_GRAD_OUTPUT]->dims, *in = t[GS_INPUT]->dims, *gr = t[GS_GRID]->dims;
    for (int i = 0; i < GS_TENSOR_COUNT; i++)
        if (gs_negative_dim(t[i]))
            FAIL(ACLNN_ERR_PARAM_INVALID, "%s shape %s has a negative dimension",
                 gs_tensor_names[i], emu_shape_str(t[i], b1, sizeof b1));
    if (in[0] != gr[0] || in[0] != go[0])
        FAIL(ACLNN_ERR_PARAM_INVALID,
             "the first dimensions of input (%lld), grid (%lld) and gradOutput (%lld) must be "
             "equal", (long long)in[0], (long long)gr[0], (long long)go[0]);
    if (in[1] != go[1])
        FAIL(ACLNN_ERR_PARAM_INVALID,
             "the second dimension of input (%lld) must equal that of gradOutput (%lld)",
             (long long)in[1], (long long)go[1]);
    if (gr[1] != go[2])
        FAIL(ACLNN_ERR_PARAM_INVALID,
             "the second dimension of grid (%lld) must equal the third of gradOutput (%lld)",
             (long long)gr[1], (long long)go[2]);
    if (gr[2] != go[3])
        FAIL(ACLNN_ERR_PARAM_INVALID,
             "the third dimension of grid (%lld) must equal the fourth of gradOutput (%lld)",
             (long long)gr[2], (long long)go[3]);
    if (in[2] == 0 || in[3] == 0)
        FAIL(ACLNN_ERR_PARAM_INVALID, "the last two dimensions of input %s must not be 0",
             emu_shape_str(t[GS_INPUT], b1, sizeof b1));
    if (gr[3] != 2 && !emu_fault_on(EMU_FAULT_SKIP_CHECK))
        FAIL(ACLNN_ERR_PARAM_INVALID, "the last dimension of grid %s must be 2",
             emu_shape_str(t[GS_GRID], b1, sizeof b1));
    if (!gs_same_shape(t[GS_INPUT], t[GS_INPUT_GRAD]))
        FAIL(ACLNN_ERR_PARAM_INVALID, "inputGrad shape %s must equal input shape %s",
             emu_shape_str(t[GS_INPUT_GRAD], b1, sizeof b1),
             emu_shape_str(t[GS_INPUT], b2, sizeof b2));
    if (!gs_same_shape(t[GS_GRID], t[GS_GRID_GRAD]))
        FAIL(ACLNN_ERR_PARAM_INVALID, "gridGrad shape %s must equal grid shape %s",
             emu_shape_str(t[GS_GRID_GRAD], b1, sizeof b1),
             emu_shape_str(t[GS_GRID], b2, sizeof b2));
    return ACLNN_SUCCESS;
}

aclnnStatus gs_check(const aclTensor *grad_output, const aclTensor *input,
                     const aclTensor *grid, int64_t interpolation, int64_t padding,
                     const aclBoolArray *mask, const aclTensor *input_grad,
                     const aclTensor *grid_grad, bool *nothing)
{
    const aclTensor *const t[GS_TENSOR_COUNT] = {grad_output, input, grid, input_grad,
                                                 grid_grad};
    const emu_profile *prof = emu_profile_current();
    *nothing = false;

    /* 1. null pointers, in parameter order (outputMask is the 7th parameter) */
    for (int i = 0; i < GS_INPUT_GRAD; i++)
        if (t[i] == NULL)
            FAIL(ACLNN_ERR_PARAM_NULLPTR, "%s must not be a null pointer", gs_tensor_names[i]);
    if (mask == NULL) /* doc: the mask is a required input (derived) */
        FAIL(ACLNN_ERR_PARAM_NULLPTR, "outputMask must not be a null pointer");
    for (int i = GS_INPUT_GRAD; i < GS_TENSOR_COUNT; i++)
        if (t[i] == NULL)
            FAIL(ACLNN_ERR_PARAM_NULLPTR, "%s must not be a null pointer", gs_tensor_names[i]);
    for (int i = 0; i < GS_TENSOR_COUNT; i++)
        if (!emu_tensor_valid(t[i]))
            FAIL(ACLNN_ERR_PARAM_INVALID, "%s is not a live aclTensor", gs_tensor_names[i]);
    if (mask->magic != EMU_MAGIC_BOOLARRAY)
        FAIL(ACLNN_ERR_PARAM_INVALID, "outputMask is not a live aclBoolArray");

    /* 2. product */
    if (!gs_product_of(prof)->supported)
        FAIL(ACLNN_ERR_PARAM_INVALID, "not supported on %s (%s)", prof->product, prof->id);

    /* 3. dtypes: support, then equality with input's */
    for (int i = 0; i < GS_TENSOR_COUNT; i++)
        if (!dtype_supported(t[i]->dtype, prof))
            FAIL(ACLNN_ERR_PARAM_INVALID, "%s dtype %s is not supported on %s (%s)",
                 gs_tensor_names[i],
                 emu_dtype_name(t[i]->dtype), prof->product, prof->id);
    int odd = gs_first_dtype_mismatch(t);
    if (odd >= 0)
        FAIL(ACLNN_ERR_PARAM_INVALID, "%s dtype %s differs from input dtype %s",
             gs_tensor_names[odd], emu_dtype_name(t[odd]->dtype), emu_dtype_name(input->dtype));

    /* 5. ranks */
    for (int i = 0; i < GS_TENSOR_COUNT; i++)
        if (t[i]->ndim != 4)
            FAIL(ACLNN_ERR_PARAM_INVALID, "%s must be 4-dimensional, got %llu dimensions",
                 gs_tensor_names[i], (unsigned long long)t[i]->ndim);

    /* 6. parameter values */
    if (interpolation < 0 || interpolation > 1)
        FAIL(ACLNN_ERR_PARAM_INVALID,
             "interpolationMode %lld is not supported (0 bilinear, 1 nearest)",
             (long long)interpolation);
    if (padding < 0 || padding > 2)
        FAIL(ACLNN_ERR_PARAM_INVALID,
             "paddingMode %lld is not supported (0 zeros, 1 border, 2 reflection)",
             (long long)padding);

    /* 7. shapes */
    aclnnStatus st = check_shapes(t);
    if (st != ACLNN_SUCCESS)
        return st;

    /* 8. empty tensors (N, C, Hout or Wout zero) succeed. outputMask: empty or all false
     * selects nothing; entries past the second are ignored. A selected output that is not
     * itself empty is written in full, zeros where no point contributes (C = 0 still has a
     * gridGrad; Hout = 0 still has an inputGrad), as PyTorch does (docs/contract.md). */
    bool want_dx = mask->size > 0 && mask->values[0] && emu_tensor_numel(input_grad) > 0;
    bool want_dgrid = mask->size > 1 && mask->values[1] && emu_tensor_numel(grid_grad) > 0;
    if (!want_dx && !want_dgrid)
        *nothing = true;
    return ACLNN_SUCCESS;
}
