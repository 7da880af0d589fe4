/* writer.h - one checkpoint job at a time in the background
 * (ckpt_writer.c). */
#ifndef KB_IO_CHECKPOINT_WRITER_H
#define KB_IO_CHECKPOINT_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct kb_io_ckpt_writer kb_io_ckpt_writer;
typedef int (*kb_io_ckpt_job)(void *arg, char *err, size_t len);

/* Start the thread (signals blocked in it: SIGINT reaches the loop).  0 or
 * KB_IO_ERROR with a message. */
int kb_io_ckpt_writer_start(kb_io_ckpt_writer **w, char *err, size_t len);
/* Run fn(arg) on the thread; the writer must be idle (after a wait). */
void kb_io_ckpt_writer_post(kb_io_ckpt_writer *w, kb_io_ckpt_job fn,
                            void *arg);
/* Block until the writer is idle; the posted job's result (0 when none
 * was posted since the last wait) and its message. */
int kb_io_ckpt_writer_wait(kb_io_ckpt_writer *w, char *err, size_t len);
/* Wait, then stop and join the thread and free w (NULL allowed). */
void kb_io_ckpt_writer_stop(kb_io_ckpt_writer *w);

#endif
