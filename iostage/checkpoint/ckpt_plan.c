/* ckpt_plan.c - DLIO's checkpoint plan as plain functions: when a
 * checkpoint is due, which bytes of a state each rank writes, and the
 * bytes of the state itself (a seeded pattern, stamped by each step). */
#include "iostage/checkpoint/plan.h"
#include "iostage/profile.h"
#include "iostage/rank.h"
#include "iostage/sample.h"
#include "kernels/random.h"

#include <string.h>

const char *const kb_io_ckpt_kind_name[KB_IO_CKPT_KINDS] = {
    "model", "optimizer", "layers"};

void kb_io_ckpt_state_fill(uint8_t *buf, size_t n, uint64_t seed,
                           kb_io_ckpt_kind kind, int64_t rank)
{
    /* rank 0's model is the plain verb's pattern */
    kb_io_fill_random(buf, n, kb_mix64(seed + 0xc4c4 +
                                       ((uint64_t)kind << 40) +
                                       (uint64_t)rank));
}

void kb_io_ckpt_state_stamp(uint8_t *buf, size_t n, int64_t epoch,
                            int64_t step)
{
    uint8_t b[16];
    for (int i = 0; i < 8; i++) {
        b[i] = (uint8_t)((uint64_t)epoch >> 8 * i);
        b[8 + i] = (uint8_t)((uint64_t)step >> 8 * i);
    }
    memcpy(buf, b, n < sizeof b ? n : sizeof b);
}

bool kb_io_ckpt_due(const kb_io_ckpt_plan *p, int64_t epoch, int64_t step,
                    bool last)
{
    /* DLIO: next_checkpoint_step starts at steps_between each epoch and
     * grows by it; the epoch's overall_step counts from 1 */
    if (p->every_steps > 0)
        return step % p->every_steps == 0;
    if (p->every_epochs <= 0 || !last)
        return false;
    /* next_checkpoint_epoch starts at checkpoint_after_epoch and grows by
     * epochs_between at each checkpoint, at the end of an epoch */
    int64_t first = p->after_epoch > 0 ? p->after_epoch : 1;
    return epoch >= first && (epoch - first) % p->every_epochs == 0;
}

void kb_io_ckpt_share(uint64_t total, const kb_io_rank *r, bool sharded,
                      uint64_t *lo, uint64_t *n)
{
    if (!sharded) {
        *lo = 0;
        *n = r->rank == 0 ? total : 0;
        return;
    }
    uint64_t base = total / (uint64_t)r->ranks;
    *lo = base * (uint64_t)r->rank;
    *n = r->rank == r->ranks - 1 ? total - *lo : base;
}
