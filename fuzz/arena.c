/* The shared poisoned arena of rejected calls (arena.h). */
#include "arena.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Data starts as aligned as an aclrtMalloc result, each tensor's storage followed by a guard
 * gap of the harness's size. */
#define ALIGN ((size_t)CTS_GUARD_BYTES)

static void *dev;              /* device arena */
static unsigned char *poison;  /* host image of its bytes: cts_poison_byte(i) */
static unsigned char *back;    /* scratch for the read back */
static size_t cap, used;
static size_t data_at[CTS_MAX_TENSORS];

static void die(const char *what, const cts_backend *b)
{
    fprintf(stderr, "fuzz setup: arena: %s: %s\n", what,
            b->aclGetRecentErrMsg ? b->aclGetRecentErrMsg() : "");
    abort();
}

static void grow(const cts_backend *b, size_t need)
{
    size_t n = cap ? cap : 64 * 1024;
    while (n < need) n *= 2;
    if (dev && b->aclrtFree(dev) != ACL_SUCCESS) die("aclrtFree (guard zone damaged?)", b);
    free(poison);
    free(back);
    poison = malloc(n);
    back = malloc(n);
    if (!poison || !back) die("out of host memory", b);
    if (b->aclrtMalloc(&dev, n, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) die("aclrtMalloc", b);
    for (size_t i = 0; i < n; i++) poison[i] = cts_poison_byte(i);
    if (b->aclrtMemcpy(dev, n, poison, n, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS)
        die("aclrtMemcpy", b);
    cap = n;
}

void fuzz_arena_place(const cts_backend *b, cts_dev_tensor *d, int n)
{
    size_t at = ALIGN;
    for (int i = 0; i < n; i++) {
        data_at[i] = at;
        at += (size_t)d[i].storage * d[i].esize + CTS_GUARD_BYTES;
        at = (at + ALIGN - 1) / ALIGN * ALIGN;
    }
    used = at;
    if (used > cap) grow(b, used);
    char err[512];
    for (int i = 0; i < n; i++)
        if (cts_dev_tensor_attach(b, &d[i], (unsigned char *)dev + data_at[i], err, sizeof err))
            die(err, b);
}

const char *fuzz_arena_damage(const cts_backend *b, const cts_dev_tensor *d, int n, char *msg,
                              size_t len)
{
    if (b->aclrtMemcpy(back, cap, dev, used, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS)
        die("aclrtMemcpy", b);
    if (memcmp(back, poison, used) == 0) return NULL;
    size_t i = 0;
    while (back[i] == poison[i]) i++;
    for (int k = 0; k < n; k++) {
        size_t lo = data_at[k], hi = lo + (size_t)d[k].storage * d[k].esize;
        if (i >= lo && i < hi) {
            bool out = d[k].t->is_output;
            snprintf(msg, len, "%s %s was written although the call failed (status model: "
                     "rejected): byte %zu of its storage, storage element %zu",
                     out ? "output" : "input", d[k].t->name, i - lo, (i - lo) / d[k].esize);
            return out ? "output-on-error" : "inputs";
        }
        if (i < lo || (i >= hi && i < hi + CTS_GUARD_BYTES)) {
            snprintf(msg, len, "write outside %s: the guard zone %s it (byte %zu of the arena) "
                     "was damaged by a failed call", d[k].t->name, i < lo ? "before" : "after", i);
            return "guards";
        }
    }
    snprintf(msg, len, "a failed call wrote byte %zu of the arena, between guard zones", i);
    return "guards";
}
