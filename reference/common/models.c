/* The model table: one entry per operator of REF_OPERATORS (reference.h), each defined in the
 * operator's folder as ref_model_<name>. Adding an operator adds its line there, nothing here. */
#include "ref_internal.h"

#define REF_MODEL_DECLARE_(E, name) extern const ref_model ref_model_##name;
REF_OPERATORS(REF_MODEL_DECLARE_)

#define REF_MODEL_ENTRY_(E, name) [REF_OP_##E] = &ref_model_##name,
static const ref_model *const models[REF_OP_COUNT] = {REF_OPERATORS(REF_MODEL_ENTRY_)};

#define REF_MODEL_NAME_(E, name) [REF_OP_##E] = #name,
static const char *const names[REF_OP_COUNT] = {REF_OPERATORS(REF_MODEL_NAME_)};

const ref_model *ref_model_of(ref_op op)
{
    return (unsigned)op < REF_OP_COUNT ? models[op] : NULL;
}

const char *ref_op_name(ref_op op)
{
    return (unsigned)op < REF_OP_COUNT ? names[op] : NULL;
}
