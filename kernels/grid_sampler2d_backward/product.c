/* What each product's aclnnGridSampler2DBackward accepts (the documents' "Applicable Products"
 * and their per-product dtype rules, spec/003): the operator's part of a product profile, kept
 * here rather than in the shared emu_profile. */
#include <string.h>

#include "grid_sampler2d_backward.h"

static const struct {
    const char *id;
    gs_product p;
} PRODUCTS[] = {
    {"ascend910", {.supported = true, .bf16_double = false}},
    {"ascend910b", {.supported = true, .bf16_double = true}},
    {"ascend910_93", {.supported = true, .bf16_double = true}},
    {"ascend310p", {.supported = false}},
    {"ascend310b", {.supported = false}},
    {"ascend950", {.supported = true, .bf16_double = true}},
};

const gs_product *gs_product_of(const emu_profile *prof)
{
    static const gs_product none = {.supported = false};
    for (size_t i = 0; i < sizeof PRODUCTS / sizeof PRODUCTS[0]; i++)
        if (strcmp(PRODUCTS[i].id, prof->id) == 0) return &PRODUCTS[i].p;
    return &none;
}
