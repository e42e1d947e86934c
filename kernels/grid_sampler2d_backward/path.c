/* gs_choose_path: the numerics path of the grid sampler, chosen in the first phase: the
 * compute type (every operation in FP32 for FLOAT, FLOAT16 and BF16, in double for DOUBLE) and
 * the kernel (the fixed-order one when determinism is asked for, except where the document
 * says the operator stays non-deterministic: DOUBLE, or C > 2048). */
#include "grid_sampler2d_backward.h"

void gs_choose_path(gs_params *p)
{
    const aclTensor *input = p->input;
    p->deterministic = emu_deterministic() && input->dtype != ACL_DOUBLE &&
                       input->dims[1] <= 2048;
    p->run = input->dtype == ACL_DOUBLE ? gs_run_f64 : gs_run_f32;
}
