/* random.c - splitmix64 (random.h). */
#include "kernels/random.h"

uint64_t kb_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

uint64_t kb_splitmix64(uint64_t *state)
{
    *state += 0x9e3779b97f4a7c15ULL;
    return kb_mix64(*state);
}
