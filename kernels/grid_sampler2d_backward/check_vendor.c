/* gs_check_vendor: the first phase's checks under a vendor contract (ACLNN_EMU_SPEC=vendor or
 * vendor-old), in the order of the vendor's op_api code (docs/contract.md "Vendor releases",
 * G1..G7; G2', G5', G8 from 9.1), implemented here without the reference's status model.
 * Releases 8.5 and 9.0 check the same things; 9.1 and 9.2 the same as each other. */
#include "grid_sampler2d_backward.h"

#define REFUSE(code, ...)                                                                      \
    do {                                                                                       \
        emu_set_error(GS_API_NAME ": " __VA_ARGS__);                                           \
        return (code);                                                                         \
    } while (0)

/* Release 9.1 or 9.2: bicubic accepted, outputMask of length exactly 2, the both-false
 * shortcut after the parameter checks (ops-cv v9.1.0 CV:41, 177-182, 240-257@4d57ffe7). */
static bool since_9_1(const emu_profile *prof)
{
    return prof->contract == EMU_CONTRACT_VENDOR_9_1 || prof->contract == EMU_CONTRACT_VENDOR_9_2;
}

static bool listed(aclDataType dt, const emu_profile *prof)
{
    if (dt == ACL_FLOAT || dt == ACL_FLOAT16 || dt == ACL_DOUBLE)
        return true;
    return dt == ACL_BF16 && (prof->family == EMU_FAMILY_A2_A3 || prof->family == EMU_FAMILY_950);
}

/* G6: ranks of input, grid and gradOutput, then the cross-tensor shape rules. */
static aclnnStatus vendor_shapes(const aclTensor *go, const aclTensor *in, const aclTensor *gr,
                                 const aclTensor *dx, const aclTensor *dgrid)
{
    if (in->ndim != 4 || gr->ndim != 4 || go->ndim != 4)
        REFUSE(ACLNN_ERR_PARAM_INVALID, "input, grid and gradOutput must be 4-D");
    if (gs_negative_dim(go) || gs_negative_dim(in) || gs_negative_dim(gr) || gs_negative_dim(dx) ||
        gs_negative_dim(dgrid))
        REFUSE(ACLNN_ERR_PARAM_INVALID, "a tensor has a negative dim");
    if (in->dims[0] != gr->dims[0] || in->dims[0] != go->dims[0])
        REFUSE(ACLNN_ERR_PARAM_INVALID, "input, grid and gradOutput need one batch size");
    if (in->dims[1] != go->dims[1])
        REFUSE(ACLNN_ERR_PARAM_INVALID, "input and gradOutput need one channel count");
    if (in->dims[2] == 0 || in->dims[3] == 0)
        REFUSE(ACLNN_ERR_PARAM_INVALID, "input's spatial dims must not be empty");
    if (gr->dims[1] != go->dims[2] || gr->dims[2] != go->dims[3])
        REFUSE(ACLNN_ERR_PARAM_INVALID, "grid's H, W must be gradOutput's H, W");
    if (gr->dims[3] != 2)
        REFUSE(ACLNN_ERR_PARAM_INVALID, "grid's last dim must be 2");
    if (!gs_same_shape(dx, in) || !gs_same_shape(dgrid, gr))
        REFUSE(ACLNN_ERR_PARAM_INVALID, "inputGrad must have input's shape and gridGrad grid's");
    return ACLNN_SUCCESS;
}

aclnnStatus gs_check_vendor(const aclTensor *grad_output, const aclTensor *input,
                            const aclTensor *grid, int64_t interpolation, int64_t padding,
                            const aclBoolArray *mask, const aclTensor *input_grad,
                            const aclTensor *grid_grad, bool *nothing)
{
    const emu_profile *prof = emu_profile_current();
    const aclTensor *const t[GS_TENSOR_COUNT] = {grad_output, input, grid, input_grad,
                                                 grid_grad};
    *nothing = true;
    /* G1/G2: a NULL mask (the caller's shortcut) or, before 9.1, a mask selecting nothing
     * succeeds first; entries past the array's end read as false. */
    if (mask == NULL)
        return ACLNN_SUCCESS;
    if (mask->magic != EMU_MAGIC_BOOLARRAY)
        REFUSE(ACLNN_ERR_PARAM_INVALID, "outputMask is not a live aclBoolArray");
    bool dx = mask->size > 0 && mask->values[0], dgrid = mask->size > 1 && mask->values[1];
    const bool v91 = since_9_1(prof);
    if (!dx && !dgrid && !v91)
        return ACLNN_SUCCESS;
    /* G3 */
    for (int i = 0; i < GS_TENSOR_COUNT; i++)
        if (t[i] == NULL)
            REFUSE(ACLNN_ERR_PARAM_NULLPTR, "%s is a null pointer", gs_tensor_names[i]);
    for (int i = 0; i < GS_TENSOR_COUNT; i++)
        if (!emu_tensor_valid(t[i]))
            REFUSE(ACLNN_ERR_PARAM_INVALID, "%s is not a live aclTensor", gs_tensor_names[i]);
    if (!gs_product_of(prof)->supported) /* the package ships no kernel (derived) */
        REFUSE(ACLNN_ERR_PARAM_INVALID, "not supported on %s (%s)", prof->product, prof->id);
    /* G4: dtypes equal to input's, then input's dtype in the SoC's list */
    if (gs_first_dtype_mismatch(t) >= 0)
        REFUSE(ACLNN_ERR_PARAM_INVALID, "every dtype must be input's (%s)",
                   emu_dtype_name(input->dtype));
    if (!listed(input->dtype, prof))
        REFUSE(ACLNN_ERR_PARAM_INVALID, "dtype %s is not in the list of %s",
               emu_dtype_name(input->dtype), prof->soc_name);
    /* G5, G5' (9.1): interpolationMode up to 1 (2, bicubic, from 9.1) */
    if (interpolation < 0 || interpolation > (v91 ? 2 : 1) || padding < 0 || padding > 2)
        REFUSE(ACLNN_ERR_PARAM_INVALID, "interpolationMode must be in [0, %d] and paddingMode in "
               "[0, 2]", v91 ? 2 : 1);
    aclnnStatus st = vendor_shapes(grad_output, input, grid, input_grad, grid_grad);
    if (st != ACLNN_SUCCESS)
        return st;
    /* G8 (9.1): the mask's length, the last of the shape checks */
    if (v91 && mask->size != 2)
        REFUSE(ACLNN_ERR_PARAM_INVALID, "outputMask must have length 2, not %llu",
               (unsigned long long)mask->size);
    /* G7: an empty gradOutput, input or grid leaves both outputs untouched; so does, from 9.1
     * at this point (G2'), a mask selecting nothing. */
    *nothing = emu_tensor_numel(grad_output) == 0 || emu_tensor_numel(input) == 0 ||
               emu_tensor_numel(grid) == 0 || (!dx && !dgrid);
    return ACLNN_SUCCESS;
}
