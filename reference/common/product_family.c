/* ref_product_family: which of the documents' product groups a product belongs to (facts §2). */
#include "ref_internal.h"

ref_family ref_product_family(ref_product p)
{
    switch (p) {
    case REF_PRODUCT_ASCEND910:
    case REF_PRODUCT_ASCEND310P: return REF_FAMILY_TRAIN_INFER;
    case REF_PRODUCT_ASCEND910B:
    case REF_PRODUCT_ASCEND910_93: return REF_FAMILY_A2A3;
    case REF_PRODUCT_ASCEND950: return REF_FAMILY_950;
    case REF_PRODUCT_ASCEND310B: return REF_FAMILY_200I_500A2;
    case REF_PRODUCT_COUNT: break;
    }
    return REF_FAMILY_UNKNOWN;
}
