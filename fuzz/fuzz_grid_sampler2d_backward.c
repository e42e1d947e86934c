/* libFuzzer target: any bytes → one aclnnGridSampler2DBackward call with every oracle. */
#include "fuzz_call.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_one_input(REF_OP_GRID_SAMPLER2D_BACKWARD, data, size);
}
