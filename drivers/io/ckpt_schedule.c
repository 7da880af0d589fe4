/* ckpt_schedule.c - STUB until the checkpoint helper writes it. */
#include "io_internal.h"

int kb_io_ckpt_sched_open(const kb_io_ckpt_opts *o, kb_io_ckpt_sched **s,
                          char *err, size_t len)
{
    *s = NULL;
    if (o->plan.every_steps || o->plan.every_epochs) {
        snprintf(err, len, "checkpoint schedule not implemented yet");
        return KB_IO_USAGE;
    }
    return 0;
}

int kb_io_ckpt_sched_step(kb_io_ckpt_sched *s, int64_t epoch, int64_t step,
                          bool last, double *stall, char *err, size_t len)
{
    (void)s, (void)epoch, (void)step, (void)last, (void)err, (void)len;
    *stall = 0;
    return 0;
}

int kb_io_ckpt_sched_close(kb_io_ckpt_sched *s, FILE *json, double *stall,
                           char *err, size_t len)
{
    (void)s, (void)json, (void)err, (void)len;
    *stall = 0;
    return 0;
}
