/* libFuzzer target: any bytes → one aclnnAvgPool2dBackward call with every oracle (run_call.c). */
#include "fuzz_call.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_one_input(REF_OP_AVGPOOL2D_BACKWARD, data, size);
}
