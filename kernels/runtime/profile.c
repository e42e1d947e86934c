/* The six product profiles of spec/facts.md §2 and the contract switches of docs/contract.md.
 * The profile is chosen at aclInit from $ACLCTS_SOC (default ascend910b) or from an
 * "aclcts_soc" entry in the aclInit config file, and stays fixed until aclFinalize. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

/* The documents' switches (docs/contract.md): every profile starts from them; ACLNN_EMU_SPEC and
 * the single ACLNN_EMU_* switches change them at aclInit (apply_switches). */
#define DOC_CONTRACT                                                                           \
    .hf32_bits = 11, .empty_tensor = EMU_EMPTY_INVALID,                                       \
    .null_output_mask = EMU_NULL_MASK_NULLPTR, .cube_math_type_code = ACLNN_ERR_PARAM_INVALID, \
    .empty_stride = EMU_EMPTY_STRIDE_INVALID, .contract = EMU_CONTRACT_DOC

static const emu_profile PROFILES[] = {
    {.id = "ascend910", .soc_name = "Ascend910A",
     .product = "Atlas training products", .family = EMU_FAMILY_TRAINING_INFERENCE,
     DOC_CONTRACT},
    {.id = "ascend910b", .soc_name = "Ascend910B3",
     .product = "Atlas A2 training/inference products", .family = EMU_FAMILY_A2_A3,
     DOC_CONTRACT},
    {.id = "ascend910_93", .soc_name = "Ascend910_9391",
     .product = "Atlas A3 training/inference products", .family = EMU_FAMILY_A2_A3,
     DOC_CONTRACT},
    {.id = "ascend310p", .soc_name = "Ascend310P3",
     .product = "Atlas inference products", .family = EMU_FAMILY_TRAINING_INFERENCE,
     DOC_CONTRACT},
    {.id = "ascend310b", .soc_name = "Ascend310B1",
     .product = "Atlas 200I/500 A2 inference products", .family = EMU_FAMILY_A2_INFER_310B,
     DOC_CONTRACT},
    {.id = "ascend950", .soc_name = "Ascend950PR_9599",
     .product = "Ascend 950PR/Ascend 950DT", .family = EMU_FAMILY_950,
     DOC_CONTRACT},
};

/* The SoC versions real devices report (aclrtGetSocName), per profile; ACLCTS_SOC may name one
 * of them instead of a profile id, and the device then reports that version. */
static const struct { const char *version, *id; } SOC_VERSIONS[] = {
    {"Ascend910A", "ascend910"},          {"Ascend910ProA", "ascend910"},
    {"Ascend910PremiumA", "ascend910"},   {"Ascend910ProB", "ascend910"},
    {"Ascend910B1", "ascend910b"},        {"Ascend910B2", "ascend910b"},
    {"Ascend910B2C", "ascend910b"},       {"Ascend910B3", "ascend910b"},
    {"Ascend910B4", "ascend910b"},        {"Ascend910B4-1", "ascend910b"},
    {"Ascend910_9391", "ascend910_93"},   {"Ascend910_9392", "ascend910_93"},
    {"Ascend910_9381", "ascend910_93"},   {"Ascend910_9382", "ascend910_93"},
    {"Ascend910_9372", "ascend910_93"},   {"Ascend910_9362", "ascend910_93"},
    {"Ascend310P1", "ascend310p"},        {"Ascend310P3", "ascend310p"},
    {"Ascend310P5", "ascend310p"},        {"Ascend310P7", "ascend310p"},
    {"Ascend310B1", "ascend310b"},        {"Ascend310B2", "ascend310b"},
    {"Ascend310B3", "ascend310b"},        {"Ascend310B4", "ascend310b"},
    {"Ascend950PR_9599", "ascend950"},    {"Ascend950PR_9589", "ascend950"},
    {"Ascend950DT_9591", "ascend950"},    {"Ascend950DT_9582", "ascend950"},
};

/* The profile ACLCTS_SOC names, as a profile id or a SoC version (*version set for the latter). */
static const emu_profile *profile_of(const char *name, const char **version)
{
    *version = NULL;
    const emu_profile *p = emu_profile_find(name);
    for (size_t i = 0; !p && i < sizeof SOC_VERSIONS / sizeof SOC_VERSIONS[0]; i++)
        if (strcmp(name, SOC_VERSIONS[i].version) == 0) {
            *version = SOC_VERSIONS[i].version;
            p = emu_profile_find(SOC_VERSIONS[i].id);
        }
    return p;
}

static emu_profile current;
static bool loaded;

const emu_profile *emu_profile_find(const char *id)
{
    for (size_t i = 0; i < sizeof PROFILES / sizeof PROFILES[0]; i++)
        if (id && strcmp(PROFILES[i].id, id) == 0)
            return &PROFILES[i];
    return NULL;
}

/* Value of `"aclcts_soc": "<id>"` in a JSON-ish config file, copied into buf; false if absent. */
static bool config_soc(const char *path, char *buf, size_t len)
{
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f)
        return false;
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *k = strstr(text, "\"aclcts_soc\"");
    if (!k || !(k = strchr(k + 12, ':')) || !(k = strchr(k, '"')))
        return false;
    const char *end = strchr(k + 1, '"');
    if (!end || (size_t)(end - k - 1) >= len)
        return false;
    memcpy(buf, k + 1, (size_t)(end - k - 1));
    buf[end - k - 1] = '\0';
    return true;
}

/* One switch: env var value must be one of the two names. */
static bool read_switch(const char *var, const char *a, const char *b, int *out)
{
    const char *v = getenv(var);
    if (!v || !*v)
        return true;
    if (strcmp(v, a) == 0)
        *out = 0;
    else if (strcmp(v, b) == 0)
        *out = 1;
    else {
        emu_set_error("%s=%s is not valid: expected %s or %s", var, v, a, b);
        return false;
    }
    return true;
}

static aclError apply_switches(emu_profile *p)
{
    const char *spec = getenv("ACLNN_EMU_SPEC");
    if (spec && *spec) {
        static const struct { const char *name; emu_contract c; } names[] = {
            {"doc", EMU_CONTRACT_DOC},          {"vendor", EMU_CONTRACT_VENDOR_9_2},
            {"vendor@9.0", EMU_CONTRACT_VENDOR_9_0}, {"vendor-old", EMU_CONTRACT_VENDOR_8_5},
            {"vendor@8.5", EMU_CONTRACT_VENDOR_8_5}, {"vendor@9.1", EMU_CONTRACT_VENDOR_9_1},
            {"vendor@9.2", EMU_CONTRACT_VENDOR_9_2},
        };
        size_t i = 0;
        while (i < sizeof names / sizeof names[0] && strcmp(spec, names[i].name) != 0)
            i++;
        if (i == sizeof names / sizeof names[0]) {
            emu_set_error("ACLNN_EMU_SPEC=%s is not valid: expected doc, vendor or vendor-old "
                          "(also vendor@9.2, vendor@9.1, vendor@9.0, vendor@8.5)", spec);
            return ACL_ERROR_INVALID_PARAM;
        }
        p->contract = names[i].c;
        if (p->contract != EMU_CONTRACT_DOC) {
            p->empty_tensor = EMU_EMPTY_SUCCESS;
            p->null_output_mask = EMU_NULL_MASK_SUCCESS;
            p->empty_stride = EMU_EMPTY_STRIDE_KERNEL;
        }
        if (p->contract == EMU_CONTRACT_VENDOR_8_5)
            p->cube_math_type_code = ACLNN_ERR_PARAM_NULLPTR;
    }
    int v;
    v = p->empty_tensor == EMU_EMPTY_SUCCESS;
    if (!read_switch("ACLNN_EMU_EMPTY_TENSOR", "invalid", "success", &v))
        return ACL_ERROR_INVALID_PARAM;
    p->empty_tensor = v ? EMU_EMPTY_SUCCESS : EMU_EMPTY_INVALID;
    v = p->null_output_mask == EMU_NULL_MASK_SUCCESS;
    if (!read_switch("ACLNN_EMU_NULL_MASK", "nullptr", "success", &v))
        return ACL_ERROR_INVALID_PARAM;
    p->null_output_mask = v ? EMU_NULL_MASK_SUCCESS : EMU_NULL_MASK_NULLPTR;
    v = p->empty_stride == EMU_EMPTY_STRIDE_KERNEL;
    if (!read_switch("ACLNN_EMU_EMPTY_STRIDE", "invalid", "kernel", &v))
        return ACL_ERROR_INVALID_PARAM;
    p->empty_stride = v ? EMU_EMPTY_STRIDE_KERNEL : EMU_EMPTY_STRIDE_INVALID;
    v = p->cube_math_type_code == ACLNN_ERR_PARAM_NULLPTR;
    if (!read_switch("ACLNN_EMU_CUBE_MATH_CODE", "161002", "161001", &v))
        return ACL_ERROR_INVALID_PARAM;
    p->cube_math_type_code = v ? ACLNN_ERR_PARAM_NULLPTR : ACLNN_ERR_PARAM_INVALID;
    v = p->nonfinite_grid_clamp;
    if (!read_switch("ACLNN_EMU_NONFINITE_GRID", "out", "clamp", &v))
        return ACL_ERROR_INVALID_PARAM;
    p->nonfinite_grid_clamp = v;
    const char *bits = getenv("ACLNN_EMU_HF32_BITS");
    if (bits && *bits) {
        char *end;
        long b = strtol(bits, &end, 10);
        if (*end || b < 2 || b > 24) {
            emu_set_error("ACLNN_EMU_HF32_BITS=%s is not valid: expected 2..24", bits);
            return ACL_ERROR_INVALID_PARAM;
        }
        p->hf32_bits = (int)b;
    }
    return ACL_SUCCESS;
}

aclError emu_profile_load(const char *config_path)
{
    char id[64];
    const char *env = getenv("ACLCTS_SOC");
    if (config_soc(config_path, id, sizeof id))
        env = id;
    else if (!env || !*env)
        env = "ascend910b";
    const char *version;
    const emu_profile *p = profile_of(env, &version);
    if (!p) {
        char ids[256];
        size_t n = 0, count = sizeof PROFILES / sizeof PROFILES[0];
        for (size_t i = 0; i < count && n < sizeof ids; i++)
            n += (size_t)snprintf(ids + n, sizeof ids - n, "%s%s", i == 0 ? "" : i + 1 < count
                                  ? ", " : " or ", PROFILES[i].id);
        emu_set_error("ACLCTS_SOC=%s names no product profile: expected %s, or a SoC version "
                      "such as Ascend910B3, Ascend910_9391, Ascend310P3 or Ascend950PR_9599",
                      env, ids);
        return ACL_ERROR_INVALID_PARAM;
    }
    emu_profile next = *p;
    if (version)
        next.soc_name = version;
    aclError rc = apply_switches(&next);
    if (rc != ACL_SUCCESS)
        return rc;
    current = next;
    loaded = true;
    return ACL_SUCCESS;
}

const emu_profile *emu_profile_current(void)
{
    if (!loaded && emu_profile_load(NULL) != ACL_SUCCESS)
        current = *emu_profile_find("ascend910b"), loaded = true;
    return &current;
}

const char *aclrtGetSocName(void) { return emu_profile_current()->soc_name; }
