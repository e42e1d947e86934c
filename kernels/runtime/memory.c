/* Device memory: host memory with guard zones on both sides, kept in a registry so that copies
 * can be checked against allocation bounds and misuse (double free, foreign pointer, a copy
 * larger than its destination) is reported instead of crashing. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime.h"

#define GUARD_BYTES 256
#define GUARD_BYTE 0xa5
#define FRESH_BYTE 0xcd /* fresh device memory is not zeroed on a real device: made visible */
#define ALIGNMENT 512 /* CANN device allocations are at least 512-byte aligned */
#define RECENTLY_FREED 256

typedef struct {
    unsigned char *base; /* start of the guard before */
    unsigned char *user;
    size_t size;
    size_t written; /* [written, size) still owes FRESH_BYTE (settle) */
} allocation;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static allocation *live;
static size_t nlive, cap;
static void *freed[RECENTLY_FREED]; /* ring of recently freed pointers */
static size_t freed_next;

/* Index of the allocation containing [p, p+bytes), or -1. Caller holds the lock. */
static long find(const void *p, size_t bytes)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < nlive; i++)
        if (c >= live[i].user && c <= live[i].user + live[i].size &&
            bytes <= (size_t)(live[i].user + live[i].size - c))
            return (long)i;
    return -1;
}

static bool guards_intact(const allocation *a)
{
    for (size_t i = 0; i < GUARD_BYTES; i++)
        if (a->base[i] != GUARD_BYTE || a->user[a->size + i] != GUARD_BYTE)
            return false;
    return true;
}

/* Every byte of a new allocation is written soon (its guards, then a copy from the host or the
 * fresh-memory pattern): its pages made present in one call rather than faulted in one at a
 * time, which costs about twice the CPU on a VM (tools/bench-fresh-pages). Hints: ignored
 * before Linux 5.14. */
static void prefault(void *p, size_t bytes)
{
    if (bytes < ((size_t)1 << 20)) return;
#ifdef MADV_HUGEPAGE /* whole 2 MiB pages in the aligned interior: about a sixth of the CPU */
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t ha = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t hb = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (hb > ha) (void)madvise((void *)ha, hb - ha, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
    const uintptr_t pg = 4096;
    uintptr_t a = ((uintptr_t)p + pg - 1) & ~(pg - 1), b = ((uintptr_t)p + bytes) & ~(pg - 1);
    if (b > a) (void)madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#endif
}

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    if (!devPtr) {
        emu_set_error("aclrtMalloc: devPtr is a null pointer");
        return ACL_ERROR_INVALID_PARAM;
    }
    if (size == 0 || size > ((size_t)1 << 40)) {
        emu_set_error("aclrtMalloc: size %zu is invalid (must be 1 .. 2^40 bytes)", size);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (policy < ACL_MEM_MALLOC_HUGE_FIRST || policy > ACL_MEM_MALLOC_NORMAL_ONLY) {
        emu_set_error("aclrtMalloc: policy %d is not an aclrtMemMallocPolicy", (int)policy);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (!emu_runtime_initialized()) {
        emu_set_error("aclrtMalloc: call aclInit and aclrtSetDevice first");
        return ACL_ERROR_UNINITIALIZE;
    }
    size_t total = ALIGNMENT + ((size + GUARD_BYTES + ALIGNMENT - 1) / ALIGNMENT) * ALIGNMENT;
    unsigned char *base = aligned_alloc(ALIGNMENT, total);
    if (!base) {
        emu_set_error("aclrtMalloc: out of memory for %zu bytes", size);
        return ACL_ERROR_BAD_ALLOC;
    }
    allocation a = {base + ALIGNMENT - GUARD_BYTES, base + ALIGNMENT, size, 0};
    prefault(base, total);
    memset(a.base, GUARD_BYTE, GUARD_BYTES);
    memset(a.user + size, GUARD_BYTE, GUARD_BYTES);
    pthread_mutex_lock(&lock);
    if (nlive == cap) {
        size_t ncap = cap ? 2 * cap : 64;
        allocation *n = realloc(live, ncap * sizeof *n);
        if (!n) {
            pthread_mutex_unlock(&lock);
            free(base);
            return ACL_ERROR_BAD_ALLOC;
        }
        live = n, cap = ncap;
    }
    live[nlive++] = a;
    for (size_t i = 0; i < RECENTLY_FREED; i++) /* reused address: not "recently freed" */
        if (freed[i] == a.user)
            freed[i] = NULL;
    pthread_mutex_unlock(&lock);
    *devPtr = a.user;
    return ACL_SUCCESS;
}

/* The fresh-memory pattern where an allocation still owes it. Written only when something may
 * read those bytes (a kernel, a copy from the device), so a host copy that covers an
 * allocation from its start, as uploads do, is the only pass over those bytes: what a reader
 * sees is the same as if the pattern had been written at aclrtMalloc. Caller holds the lock. */
static void settle(allocation *a)
{
    if (a->written < a->size) memset(a->user + a->written, FRESH_BYTE, a->size - a->written);
    a->written = a->size;
}

/* [p, p + bytes) of device memory is about to be read. */
static void settle_range(const void *p, size_t bytes)
{
    pthread_mutex_lock(&lock);
    long i = find(p, bytes);
    if (i >= 0) settle(&live[i]);
    pthread_mutex_unlock(&lock);
}

/* [p, p + bytes) of device memory is about to be written by a copy: a copy that continues the
 * written prefix extends it; one past it first settles the gap (and the rest). */
static void note_write(const void *p, size_t bytes)
{
    pthread_mutex_lock(&lock);
    long i = find(p, bytes);
    if (i >= 0) {
        allocation *a = &live[i];
        size_t off = (size_t)((const unsigned char *)p - a->user);
        if (off > a->written) settle(a);
        else if (off + bytes > a->written) a->written = off + bytes;
    }
    pthread_mutex_unlock(&lock);
}

void emu_device_memory_settle(void)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nlive; i++) settle(&live[i]);
    pthread_mutex_unlock(&lock);
}

aclError aclrtFree(void *devPtr)
{
    if (!devPtr) {
        emu_set_error("aclrtFree: devPtr is a null pointer");
        return ACL_ERROR_INVALID_PARAM;
    }
    pthread_mutex_lock(&lock);
    long i = -1;
    for (size_t k = 0; k < nlive; k++)
        if (live[k].user == devPtr)
            i = (long)k;
    if (i < 0) {
        bool twice = false;
        for (size_t k = 0; k < RECENTLY_FREED; k++)
            twice |= freed[k] == devPtr;
        pthread_mutex_unlock(&lock);
        if (twice)
            emu_set_error("aclrtFree: %p was already freed (double free)", devPtr);
        else
            emu_set_error("aclrtFree: %p was not returned by aclrtMalloc (foreign pointer)", devPtr);
        return ACL_ERROR_INVALID_PARAM;
    }
    allocation a = live[i];
    live[i] = live[--nlive];
    freed[freed_next++ % RECENTLY_FREED] = devPtr;
    pthread_mutex_unlock(&lock);
    bool intact = guards_intact(&a);
    free(a.base - (ALIGNMENT - GUARD_BYTES));
    if (!intact) {
        emu_set_error("aclrtFree: the guard zone of the %zu-byte allocation at %p was overwritten "
                      "(out-of-bounds write)", a.size, devPtr);
        return ACL_ERROR_RT_MEMORY_FREE;
    }
    return ACL_SUCCESS;
}

/* The allocation table goes with the library (dlclose); allocations a caller never freed stay
 * allocated, so leak checkers still see them. */
__attribute__((destructor)) static void table_unload(void)
{
    free(live);
    live = NULL;
    nlive = cap = 0;
}

bool emu_is_device_range(const void *p, size_t bytes)
{
    pthread_mutex_lock(&lock);
    bool ok = find(p, bytes) >= 0;
    pthread_mutex_unlock(&lock);
    return ok;
}

size_t emu_live_device_bytes(void)
{
    size_t total = 0;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nlive; i++)
        total += live[i].size;
    pthread_mutex_unlock(&lock);
    return total;
}

int emu_check_guards(void)
{
    int bad = 0;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nlive; i++)
        if (!guards_intact(&live[i])) {
            bad++;
            emu_set_error("guard zone of the %zu-byte allocation at %p was overwritten",
                          live[i].size, (void *)live[i].user);
        }
    pthread_mutex_unlock(&lock);
    return bad;
}

static const char *const KIND_NAMES[] = {"HOST_TO_HOST", "HOST_TO_DEVICE", "DEVICE_TO_HOST",
                                         "DEVICE_TO_DEVICE"};

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                     aclrtMemcpyKind kind)
{
    if (!dst || !src) {
        emu_set_error("aclrtMemcpy: %s is a null pointer", dst ? "src" : "dst");
        return ACL_ERROR_INVALID_PARAM;
    }
    if (kind < ACL_MEMCPY_HOST_TO_HOST || kind > ACL_MEMCPY_DEVICE_TO_DEVICE) {
        emu_set_error("aclrtMemcpy: kind %d is not an aclrtMemcpyKind (0..3)", (int)kind);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (count > destMax) {
        emu_set_error("aclrtMemcpy: count %zu exceeds destMax %zu", count, destMax);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (count == 0)
        return ACL_SUCCESS;
    bool dst_dev = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
    bool src_dev = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
    if (dst_dev && !emu_is_device_range(dst, count)) {
        emu_set_error("aclrtMemcpy %s: dst [%p, +%zu) is not inside one device allocation",
                      KIND_NAMES[kind], dst, count);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (src_dev && !emu_is_device_range(src, count)) {
        emu_set_error("aclrtMemcpy %s: src [%p, +%zu) is not inside one device allocation",
                      KIND_NAMES[kind], src, count);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (!dst_dev && emu_is_device_range(dst, 1)) {
        emu_set_error("aclrtMemcpy %s: dst %p is device memory", KIND_NAMES[kind], dst);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (!src_dev && emu_is_device_range(src, 1)) {
        emu_set_error("aclrtMemcpy %s: src %p is device memory", KIND_NAMES[kind], src);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (src_dev) settle_range(src, count);
    if (dst_dev) note_write(dst, count);
    memmove(dst, src, count);
    return ACL_SUCCESS;
}
