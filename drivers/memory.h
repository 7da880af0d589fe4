/* memory.h - how much memory a case needs, and whether the machine has it.
 *
 * Checked for every problem x backend before anything runs, so a run
 * never dies half-way through for lack of memory. */
#ifndef KB_MEMORY_H
#define KB_MEMORY_H

#include "backends/backend.h"
#include "kernels/problem.h"

#include <stddef.h>
#include <stdint.h>

/* Bytes available for new allocations: MemAvailable from /proc/meminfo,
 * else sysconf's available pages times the page size.  Returns 0, or -1
 * when neither source answers. */
int kb_memory_available(uint64_t *bytes);

/* Bytes one case of p on backend b needs at its peak: the host tensors,
 * the copies the driver keeps (the initial content of tensors that are
 * both input and output, held for the whole case since it is restored
 * before the checked last timed repetition, and an output-sized buffer
 * for the reference result during each of the two checks), and b's
 * extra_bytes.  Returns 0, or -1 when
 * the sum overflows 64 bits (a shape no machine can hold). */
int kb_case_bytes(const kb_problem *p, const kb_backend *b, uint64_t *bytes);

/* Bytes of the tensors of p that are both read and written (GEMM's dst
 * when beta != 0): what the driver copies before the first run.
 * Returns 0, or -1 on overflow. */
int kb_inout_bytes(const kb_problem *p, uint64_t *bytes);

/* Refuse p on b when it needs more than `available` bytes.  Returns 0
 * when it fits, or -1 with "DESC on BACKEND needs N bytes (X GiB), Y
 * available" in err (`desc` names the problem). */
int kb_memory_check(const kb_problem *p, const kb_backend *b,
                    uint64_t available, const char *desc, char *err,
                    size_t len);

/* The same for device memory: b->device_bytes(p) against the `available`
 * free bytes its device reported.  Returns 0 when it fits, or -1 with
 * "DESC on BACKEND needs N bytes (X GiB) of device memory, Y free" in
 * err. */
int kb_device_memory_check(const kb_problem *p, const kb_backend *b,
                           uint64_t available, const char *desc, char *err,
                           size_t len);

#endif
