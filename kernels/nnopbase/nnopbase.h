/* Private to libnnopbase: the registry of live objects. Every handle a caller passes in is
 * looked up here before it is dereferenced, so destroyed or foreign handles are reported. */
#ifndef ACLCTS_KERNELS_NNOPBASE_H_
#define ACLCTS_KERNELS_NNOPBASE_H_

#include "emu.h"

void emu_registry_add(const void *p, uint32_t magic);
/* Removes p if it is live with that magic; false otherwise. */
bool emu_registry_remove(const void *p, uint32_t magic);
bool emu_registry_has(const void *p, uint32_t magic);

/* Shared destroy for every handle type: NULL → 161001, not live → 161002. */
aclnnStatus emu_destroy(const void *p, uint32_t magic, const char *api, const char *what,
                        void (*release)(void *));

#endif
