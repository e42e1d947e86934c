/* aclIntArray and aclBoolArray: owned copies of the caller's values. */
#include <stdlib.h>
#include <string.h>

#include "nnopbase.h"

#define MAX_ARRAY ((uint64_t)1 << 20)

/* Allocates {magic, size, values[size]} with the values copied; NULL with a message on misuse. */
static void *create_array(const void *value, uint64_t size, size_t elem, uint32_t magic,
                          const char *api)
{
    if (!value && size) {
        emu_set_error("%s: value is a null pointer with size %llu", api, (unsigned long long)size);
        return NULL;
    }
    if (size > MAX_ARRAY) {
        emu_set_error("%s: size %llu is too large", api, (unsigned long long)size);
        return NULL;
    }
    /* Both array structs are {uint32_t magic; uint64_t size; T *values;}. */
    aclIntArray *a = calloc(1, sizeof(aclIntArray));
    void *values = calloc(size ? size : 1, elem);
    if (!a || !values) {
        free(a);
        free(values);
        emu_set_error("%s: out of memory", api);
        return NULL;
    }
    if (size)
        memcpy(values, value, size * elem);
    a->magic = magic;
    a->size = size;
    a->values = values;
    emu_registry_add(a, magic);
    return a;
}

static void release_array(void *p)
{
    aclIntArray *a = p;
    a->magic = EMU_MAGIC_DEAD;
    free(a->values);
    free(a);
}

aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size)
{
    return create_array(value, size, sizeof(int64_t), EMU_MAGIC_INTARRAY, "aclCreateIntArray");
}

aclnnStatus aclDestroyIntArray(const aclIntArray *array)
{
    return emu_destroy(array, EMU_MAGIC_INTARRAY, "aclDestroyIntArray", "aclIntArray",
                       release_array);
}

aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size)
{
    _Static_assert(sizeof(aclIntArray) == sizeof(aclBoolArray), "array layouts must match");
    return create_array(value, size, sizeof(bool), EMU_MAGIC_BOOLARRAY, "aclCreateBoolArray");
}

aclnnStatus aclDestroyBoolArray(const aclBoolArray *array)
{
    return emu_destroy(array, EMU_MAGIC_BOOLARRAY, "aclDestroyBoolArray", "aclBoolArray",
                       release_array);
}
