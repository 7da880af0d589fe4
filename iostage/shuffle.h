/* shuffle.h - seeded shuffles of files and samples (shuffle.c). */
#ifndef KB_IO_SHUFFLE_H
#define KB_IO_SHUFFLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Seed of epoch e (and of file f within it). */
uint64_t kb_io_epoch_seed(uint64_t seed, int64_t epoch, int64_t file);
/* Fisher-Yates over the n elements of `size` bytes at a. */
void kb_io_shuffle(void *a, size_t n, size_t size, uint64_t seed);

#endif
