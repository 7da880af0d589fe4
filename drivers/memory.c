/* memory.c - memory needed by a case and memory available (memory.h). */
#include "drivers/memory.h"

#include "kernels/tensors.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

/* MemAvailable in bytes from /proc/meminfo.  Returns 0, or -1 when the
 * file or the line is missing (old kernels, non-Linux). */
static int meminfo_available(uint64_t *bytes)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return -1;
    char line[256];
    int rc = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long long kib;
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
            if (kib <= UINT64_MAX / 1024) {
                *bytes = (uint64_t)kib * 1024;
                rc = 0;
            }
            break;
        }
    }
    fclose(f);
    return rc;
}

int kb_memory_available(uint64_t *bytes)
{
    if (meminfo_available(bytes) == 0)
        return 0;
    long pages = sysconf(_SC_AVPHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0 ||
        (uint64_t)pages > UINT64_MAX / (uint64_t)page)
        return -1;
    *bytes = (uint64_t)pages * (uint64_t)page;
    return 0;
}

/* a += b; returns -1 on overflow (a unchanged). */
static int add_u64(uint64_t *a, uint64_t b)
{
    if (b > UINT64_MAX - *a)
        return -1;
    *a += b;
    return 0;
}

/* Bytes of one tensor; -1 on overflow.  Shapes come from users. */
static int arg_bytes(const kb_arg_info *a, uint64_t *bytes)
{
    uint64_t e = kb_dtype_size(a->dt);
    if (a->nelems < 0 || (uint64_t)a->nelems > UINT64_MAX / e)
        return -1;
    *bytes = (uint64_t)a->nelems * e;
    return 0;
}

/* Which tensors sum_bytes counts. */
typedef enum { OUTPUT_ARGS, INOUT_ARGS } arg_set;

static bool in_set(const kb_arg_info *a, arg_set set)
{
    switch (set) {
    case OUTPUT_ARGS: return a->is_output;
    case INOUT_ARGS: return a->is_input && a->is_output;
    }
    return false;
}

/* Sum the bytes of p's tensors in `set`.  Returns 0, or -1 on overflow
 * (including a tensor whose element count overflowed, nelems < 0). */
static int sum_bytes(const kb_problem *p, arg_set set, uint64_t *sum)
{
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(p, info);
    *sum = 0;
    for (int a = 0; a < KB_ARG_MAX; a++) {
        if (!info[a].used || !in_set(&info[a], set))
            continue;
        uint64_t b;
        if (arg_bytes(&info[a], &b) != 0 || add_u64(sum, b) != 0)
            return -1;
    }
    return 0;
}

int kb_inout_bytes(const kb_problem *p, uint64_t *bytes)
{
    return sum_bytes(p, INOUT_ARGS, bytes);
}

int kb_case_bytes(const kb_problem *p, const kb_backend *b, uint64_t *bytes)
{
    /* kb_problem_tensor_bytes saturates at SIZE_MAX when a user's absurd
     * shape overflows. */
    size_t tensors = kb_problem_tensor_bytes(p);
    uint64_t total = tensors, inout, outs;
    if (tensors == SIZE_MAX || kb_inout_bytes(p, &inout) != 0 ||
        add_u64(&total, inout) != 0)
        return -1;
    /* The reference writes its result into buffers of its own: count
     * output-sized memory for it, as the peak of either check (the
     * in/out copy above lives through both; nothing else is added). */
    if (sum_bytes(p, OUTPUT_ARGS, &outs) != 0 || add_u64(&total, outs) != 0)
        return -1;
    if (b->extra_bytes && add_u64(&total, b->extra_bytes(p)) != 0)
        return -1;
    *bytes = total;
    return 0;
}

/* The verdict of both checks: 0 when `need` fits in `available`, else -1
 * with the numbers in err.  overflow: the size did not fit in 64 bits.
 * `what` names the memory ("" for host RAM), `free` what it has left. */
static int refuse_unless_fits(bool overflow, uint64_t need,
                              uint64_t available, const kb_backend *b,
                              const char *desc, const char *what,
                              const char *free, char *err, size_t len)
{
    if (overflow) {
        snprintf(err, len, "%s on %s: its size in bytes overflows 64 bits",
                 desc, b->name);
        return -1;
    }
    if (need <= available)
        return 0;
    snprintf(err, len,
             "%s on %s needs %" PRIu64 " bytes (%.2f GiB)%s, %" PRIu64
             " %s (%.2f GiB)",
             desc, b->name, need, (double)need / GIB, what, available, free,
             (double)available / GIB);
    return -1;
}

int kb_memory_check(const kb_problem *p, const kb_backend *b,
                    uint64_t available, const char *desc, char *err,
                    size_t len)
{
    uint64_t need = 0;
    bool overflow = kb_case_bytes(p, b, &need) != 0;
    return refuse_unless_fits(overflow, need, available, b, desc, "",
                              "available", err, len);
}

int kb_device_memory_check(const kb_problem *p, const kb_backend *b,
                           uint64_t available, const char *desc, char *err,
                           size_t len)
{
    size_t need = b->device_bytes(p);
    return refuse_unless_fits(need == SIZE_MAX, need, available, b, desc,
                              " of device memory", "free on the device",
                              err, len);
}
