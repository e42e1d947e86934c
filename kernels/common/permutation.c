/* emu_permutation: the seeded order of the operators' non-deterministic kernels
 * (ACLNN_EMU_SHUFFLE). Built into libopapi. */
#include <stdlib.h>

#include "emu.h"

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int64_t *emu_permutation(int64_t count, uint64_t seed)
{
    int64_t *order = malloc((size_t)(count > 0 ? count : 1) * sizeof *order);
    if (order == NULL)
        return NULL;
    for (int64_t i = 0; i < count; i++)
        order[i] = i;
    uint64_t state = seed;
    for (int64_t i = count - 1; i > 0; i--) { /* Fisher-Yates */
        int64_t j = (int64_t)(splitmix64(&state) % (uint64_t)(i + 1));
        int64_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    return order;
}
