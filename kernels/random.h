/* random.h - splitmix64 (Steele, Lea, Flood 2014), the one deterministic
 * generator of kbench: the reference fills and the I/O stage's datasets
 * and shuffles.  One add and a strong mix per output, good enough for
 * test data and trivially seeded, so every value depends only on its seed
 * (never on thread counts). */
#ifndef KB_RANDOM_H
#define KB_RANDOM_H

#include <stdint.h>

/* splitmix64's finaliser: a bijective mix of x. */
uint64_t kb_mix64(uint64_t x);

/* Advance *state and return its next output. */
uint64_t kb_splitmix64(uint64_t *state);

#endif
