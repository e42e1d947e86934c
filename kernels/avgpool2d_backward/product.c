/* What each product's aclnnAvgPool2dBackward accepts (the documents' "Applicable Products" and
 * their per-product dtype and divisorOverride rules, spec/000): the operator's part of a product
 * profile, kept here rather than in the shared emu_profile. */
#include <string.h>

#include "avgpool2d_backward.h"

static const struct {
    const char *id;
    avgpool_product p;
} PRODUCTS[] = {
    {"ascend910", {.supported = true, .bf16 = false, .divisor_range_checked = true}},
    {"ascend910b", {.supported = true, .bf16 = true, .divisor_range_checked = false}},
    {"ascend910_93", {.supported = true, .bf16 = true, .divisor_range_checked = false}},
    {"ascend310p", {.supported = true, .bf16 = false, .divisor_range_checked = true}},
    {"ascend310b", {.supported = false}},
    {"ascend950", {.supported = true, .bf16 = true, .divisor_range_checked = false}},
};

const avgpool_product *avgpool_product_of(const emu_profile *prof)
{
    static const avgpool_product none = {.supported = false};
    for (size_t i = 0; i < sizeof PRODUCTS / sizeof PRODUCTS[0]; i++)
        if (strcmp(PRODUCTS[i].id, prof->id) == 0) return &PRODUCTS[i].p;
    return &none;
}
