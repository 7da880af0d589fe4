/* ckpt_writer.c - the asynchronous checkpointer's thread: runs one posted
 * job at a time (the files of one checkpoint) while the training loop goes
 * on, and hands back its result when the loop waits for it. */
#include "iostage/checkpoint/writer.h"
#include "iostage/stage.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kb_io_ckpt_writer {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;        /* a job posted, one finished, or stop */
    kb_io_ckpt_job fn;        /* the job posted and not yet finished */
    void *arg;
    bool busy, stop;
    int rc;                   /* of the last finished job */
    char err[KB_IO_ERRLEN];
};

static void *writer_main(void *p)
{
    kb_io_ckpt_writer *w = p;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->busy && !w->stop)
            pthread_cond_wait(&w->cv, &w->mu);
        if (!w->busy)
            break;
        pthread_mutex_unlock(&w->mu);
        char err[KB_IO_ERRLEN] = "";
        int rc = w->fn(w->arg, err, sizeof err);
        pthread_mutex_lock(&w->mu);
        w->rc = rc;
        memcpy(w->err, err, sizeof err);
        w->busy = false;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

int kb_io_ckpt_writer_start(kb_io_ckpt_writer **out, char *err, size_t len)
{
    kb_io_ckpt_writer *w = calloc(1, sizeof *w);
    *out = NULL;
    if (!w) {
        snprintf(err, len, "out of memory for the checkpoint writer");
        return KB_IO_ERROR;
    }
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    /* the thread inherits a mask that blocks SIGINT/SIGTERM, so the
     * handler always runs on the loop's thread and interrupts its sleep */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&w->thread, NULL, writer_main, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        snprintf(err, len, "pthread_create of the checkpoint writer failed: "
                 "%s", strerror(rc));
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        free(w);
        return KB_IO_ERROR;
    }
    *out = w;
    return 0;
}

void kb_io_ckpt_writer_post(kb_io_ckpt_writer *w, kb_io_ckpt_job fn,
                            void *arg)
{
    pthread_mutex_lock(&w->mu);
    w->fn = fn;
    w->arg = arg;
    w->busy = true;
    w->rc = 0;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

int kb_io_ckpt_writer_wait(kb_io_ckpt_writer *w, char *err, size_t len)
{
    pthread_mutex_lock(&w->mu);
    while (w->busy)
        pthread_cond_wait(&w->cv, &w->mu);
    int rc = w->rc;
    if (rc)
        snprintf(err, len, "%s", w->err);
    w->rc = 0;   /* reported once */
    pthread_mutex_unlock(&w->mu);
    return rc;
}

void kb_io_ckpt_writer_stop(kb_io_ckpt_writer *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->stop = true;   /* a job in flight is finished first */
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
}
