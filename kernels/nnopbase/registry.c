/* Live-object registry: an open-addressing hash set of (pointer, magic). */
#include <pthread.h>
#include <stdlib.h>

#include "nnopbase.h"

typedef struct {
    const void *p; /* NULL = empty, TOMBSTONE = deleted */
    uint32_t magic;
} slot;

static const char tombstone_byte;
#define TOMBSTONE ((const void *)&tombstone_byte)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static slot *table;
static size_t capacity, used; /* used counts live + tombstones */

static size_t hash(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x;
}

static void grow(void)
{
    size_t ncap = capacity ? capacity * 2 : 1024;
    slot *n = calloc(ncap, sizeof *n);
    if (!n)
        abort(); /* the emulated runtime cannot continue without its registry */
    size_t live = 0;
    for (size_t i = 0; i < capacity; i++)
        if (table[i].p && table[i].p != TOMBSTONE) {
            size_t j = hash(table[i].p) & (ncap - 1);
            while (n[j].p)
                j = (j + 1) & (ncap - 1);
            n[j] = table[i];
            live++;
        }
    free(table);
    table = n, capacity = ncap, used = live;
}

void emu_registry_add(const void *p, uint32_t magic)
{
    pthread_mutex_lock(&lock);
    if ((used + 1) * 2 > capacity)
        grow();
    size_t j = hash(p) & (capacity - 1);
    while (table[j].p && table[j].p != TOMBSTONE)
        j = (j + 1) & (capacity - 1);
    if (!table[j].p)
        used++;
    table[j].p = p;
    table[j].magic = magic;
    pthread_mutex_unlock(&lock);
}

/* Slot index of p, or -1. Caller holds the lock. */
static long lookup(const void *p)
{
    if (!capacity)
        return -1;
    size_t j = hash(p) & (capacity - 1);
    while (table[j].p) {
        if (table[j].p == p)
            return (long)j;
        j = (j + 1) & (capacity - 1);
    }
    return -1;
}

bool emu_registry_has(const void *p, uint32_t magic)
{
    if (!p)
        return false;
    pthread_mutex_lock(&lock);
    long j = lookup(p);
    bool ok = j >= 0 && table[j].magic == magic;
    pthread_mutex_unlock(&lock);
    return ok;
}

bool emu_registry_remove(const void *p, uint32_t magic)
{
    if (!p)
        return false;
    pthread_mutex_lock(&lock);
    long j = lookup(p);
    bool ok = j >= 0 && table[j].magic == magic;
    if (ok)
        table[j].p = TOMBSTONE;
    pthread_mutex_unlock(&lock);
    return ok;
}

/* The registry goes with the library: freed when it is unloaded (dlclose by a harness), so
 * leak checkers report only what callers leaked. */
__attribute__((destructor)) static void registry_unload(void)
{
    free(table);
    table = NULL;
    capacity = used = 0;
}

aclnnStatus emu_destroy(const void *p, uint32_t magic, const char *api, const char *what,
                        void (*release)(void *))
{
    if (!p) {
        emu_set_error("%s: %s is a null pointer", api, what);
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    if (!emu_registry_remove(p, magic)) {
        emu_set_error("%s: %p is not a live %s (destroyed twice, or never created)", api, p, what);
        return ACLNN_ERR_PARAM_INVALID;
    }
    release((void *)p);
    return ACLNN_SUCCESS;
}
