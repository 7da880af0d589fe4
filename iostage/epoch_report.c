/* epoch_report.c - the figures of one `kbench io run` epoch under their two
 * conventions (DLIO 2.0.0's definitions under DLIO's key names, kbench's
 * own under kb_ names), its table line and its io_epoch record. */
#include "iostage/epoch_report.h"
#include "drivers/stats.h"
#include "iostage/bitmap.h"
#include "iostage/compute_model.h"
#include "iostage/run_opts.h"
#include "iostage/profile.h"
#include "iostage/readers/direct.h"
#include "iostage/stage.h"
#include "iostage/record.h"
#include "iostage/checksum.h"
#include "iostage/formats/format.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#define DLIO "dlio-2.0.0"
#define KBENCH "kbench"

void kb_io_epoch_add_block(kb_io_epoch *e, const kb_io_block *b,
                           int64_t batch)
{
    /* DLIO's compute_metrics_train: the first step's compute is left out
     * of the numerator and its whole processing time out of the
     * denominator; the throughput's window keeps the first step */
    double window = b->end - b->start;
    double au = b->compute_rest > 0
                    ? 100 * b->compute_rest / (window - b->first_proc) : 0;
    double tput = window > 0 ? (double)(b->steps * batch) / window : 0;
    e->blocks++;
    e->block_steps += b->steps;
    e->dlio_window += window;
    e->dlio_first += b->first_proc;
    e->dlio_compute += b->compute_rest;
    e->dlio_au_steps += au * (double)b->steps;
    e->dlio_tput_steps += tput * (double)b->steps;
}


/* The q-quantile of the epoch's read latencies in ms (drivers/stats.c's
 * definition, linear between ranks); 0 when no read was timed. */
static double latency_ms(const kb_io_epoch *e, double q)
{
    return e->nlat ? kb_quantile(e->lat, (int64_t)e->nlat, q) * 1e3 : 0;
}

/* One figure of the record: its key, its convention, its value (NAN:
 * undefined, written as null). */
typedef struct {
    const char *key, *conv;
    double v;
} figure;

/* The figures the table line shows, by their place in figures()'s list. */
enum { F_AU, F_TPUT, F_MIB, F_KB_STEADY_SPS, F_KB_AU, F_KB_READ,
       F_KB_NOMINAL, F_KB_FIRST };
#define MAX_FIGURES 32

/* The epoch's figures into f (MAX_FIGURES); how many. */
static size_t figures(const kb_io_profile *p, const kb_io_epoch *e,
                      figure *f)
{
    double n = e->block_steps ? (double)e->block_steps : NAN;
    double tput = e->block_steps ? e->dlio_tput_steps / n : 0;
    bool steady = e->steps > 1 && e->steady > 0;
    double wall = e->wall > 0 ? e->wall : NAN;
    figure all[] = {
        {"train_au_percentage", DLIO, e->block_steps ? e->dlio_au_steps / n
                                                     : 0},
        {"train_throughput_samples_per_second", DLIO, tput},
        /* DLIO's "MB" is MiB: record_length / 1024 / 1024 */
        {"train_io_mean_MB_per_second", DLIO,
         tput * (double)p->sample_bytes / 1024 / 1024},
        {"kb_steady_samples_per_second", KBENCH,
         steady ? (double)e->steady_samples / e->steady : NAN},
        {"kb_au_percentage", KBENCH,
         steady ? 100 * e->steady_compute / e->steady : NAN},
        {"kb_read_MB_per_second", KBENCH, (double)e->bytes / 1e6 / wall},
        {"kb_nominal_MB_per_second", KBENCH,
         (double)e->samples * (double)p->sample_bytes / 1e6 / wall},
        {"kb_first_step_s", KBENCH, e->steps ? e->first_step : NAN},
        {"kb_steady_s", KBENCH, e->steady},
        {"dlio_blocks", DLIO, (double)e->blocks},
        {"dlio_window_s", DLIO, e->dlio_window},
        {"dlio_first_step_s", DLIO, e->dlio_first},
        {"dlio_compute_s", DLIO, e->dlio_compute},
        {"wall_s", KBENCH, e->wall},
        {"compute_s", KBENCH, e->compute_all},
        {"compute_wait_s", KBENCH, e->wait},
        {"checkpoint_stall_s", KBENCH, e->stall},
        {"read_latency_p50_ms", KBENCH,
         latency_ms(e, 0.50)},
        {"read_latency_p99_ms", KBENCH,
         latency_ms(e, 0.99)},
    };
    _Static_assert(sizeof all / sizeof all[0] <= MAX_FIGURES, "figures");
    memcpy(f, all, sizeof all);
    return sizeof all / sizeof all[0];
}

/* GFLOP/s the model reached over all of the epoch's compute. */
static double model_gflops(const kb_io_model_info *m, const kb_io_epoch *e)
{
    return e->compute_all > 0
               ? (double)e->steps * m->flops / e->compute_all / 1e9 : 0;
}

/* With --direct, how this epoch's files were read, under the table line. */
static void print_direct(const kb_io_direct *dio, const kb_io_epoch *e)
{
    int64_t files = e->files_direct + e->files_buffered;
    if (!dio->at) {
        printf("  reads: direct, %" PRId64 " files with O_DIRECT\n", files);
        return;
    }
    char what[2 * KB_IO_ERRLEN];
    kb_io_direct_describe(dio, what, sizeof what);
    printf("  reads: %" PRId64 " of %" PRId64 " files with O_DIRECT, the rest "
           "buffered: %s\n", e->files_direct, files, what);
}

static double frac(int64_t part, int64_t whole)
{
    return whole > 0 ? (double)part / (double)whole : 0;
}

/* The table line and the lines under it that apply. */
static void print_epoch(const kb_io_run_opts *o, kb_io_model *model,
                        const kb_io_direct *dio, const kb_io_epoch *e,
                        const figure *f)
{
    printf("epoch %" PRId64 ": %" PRId64 " samples, %" PRId64 " steps in "
           "%.3f s  DLIO: AU %.1f %%  %.1f samples/s  %.1f MiB/s  kbench: "
           "steady %.1f samples/s  first step %.3f s  %.1f MB/s read (%.1f "
           "nominal)  lat p50 %.3f p99 %.3f ms  wait %.3f s  resident %.0f %%"
           "  CPU %.0f %%\n", e->epoch, e->samples, e->steps, e->wall,
           f[F_AU].v, f[F_TPUT].v, f[F_MIB].v,
           isnan(f[F_KB_STEADY_SPS].v) ? 0 : f[F_KB_STEADY_SPS].v,
           isnan(f[F_KB_FIRST].v) ? 0 : f[F_KB_FIRST].v, f[F_KB_READ].v,
           f[F_KB_NOMINAL].v, latency_ms(e, 0.50),
           latency_ms(e, 0.99), e->wait,
           100 * e->residency, e->cpu);
    if (o->rank.ranks > 1)
        printf("  rank %" PRId64 " of %" PRId64 " (%s): samples [%" PRId64
               ", %" PRId64 ") of %" PRId64 ", %" PRId64 " of %" PRId64
               " files\n", o->rank.rank, o->rank.ranks, o->rank.source,
               e->sample_lo, e->sample_hi, e->samples_total, e->files,
               e->files_total);
    if (o->skip_corrupt)
        printf("  skipped: %" PRId64 " of %" PRId64 " files (%.1f %%), %"
               PRId64 " of %" PRId64 " samples (%.1f %%); %" PRId64
               " samples dropped\n", e->skipped_files, e->files,
               100 * frac(e->skipped_files, e->files), e->skipped_samples,
               e->sample_hi - e->sample_lo,
               100 * frac(e->skipped_samples, e->sample_hi - e->sample_lo),
               e->holes);
    if (e->dropped_last)
        printf("  not delivered: %" PRId64 " samples of the partial last "
               "batch (drop_last)\n", e->dropped_last);
    if (e->not_reached)
        printf("  not delivered: %" PRId64 " samples not reached (step limit "
               "%" PRId64 ")\n", e->not_reached, e->steps_limit);
    if (o->ckpt.dir)
        printf("  checkpoints: the loop held %.3f s (outside both windows)\n",
               e->stall);
    if (o->direct)
        print_direct(dio, e);
    if (model && e->compute_all > 0) {
        kb_io_model_info m;
        kb_io_model_describe(model, &m);
        printf("  compute: %s on %s, %" PRId64 " steps, %.1f GFLOP/s\n",
               m.model, m.backend, e->steps, model_gflops(&m, e));
        if (m.copies)
            printf("  host to %s: %.1f MB of decoded batches in %.3f s "
                   "(%.2f GB/s), inside the steps\n", m.device,
                   (double)e->h2d_bytes / 1e6, e->h2d_s,
                   e->h2d_s > 0 ? (double)e->h2d_bytes / e->h2d_s / 1e9 : 0);
    }
}

/* The consumer's description: the sleep, or the model on its backend
 * with the GFLOP/s it reached.  0, or -1 out of memory. */
static int add_compute(const kb_io_run_opts *o, kb_io_model *model,
                       const kb_io_epoch *e, cJSON *r)
{
    if (!model) {
        return !cJSON_AddStringToObject(r, "compute", "sleep") ||
               !cJSON_AddNumberToObject(r, "compute_sleep_s",
                                        o->compute_sleep) ? -1 : 0;
    }
    kb_io_model_info m;
    kb_io_model_describe(model, &m);
    return !cJSON_AddStringToObject(r, "compute", "backend") ||
           !cJSON_AddStringToObject(r, "compute_backend", m.backend) ||
           !cJSON_AddStringToObject(r, "compute_model", m.model) ||
           !cJSON_AddNumberToObject(r, "compute_layers", (double)m.layers) ||
           !cJSON_AddNumberToObject(r, "compute_layers_unsupported",
                                    (double)m.skipped) ||
           !cJSON_AddBoolToObject(r, "compute_fed", m.fed) ||
           !cJSON_AddNumberToObject(r, "compute_gflop_per_step",
                                    m.flops / 1e9) ||
           !cJSON_AddNumberToObject(r, "compute_gflops",
                                    model_gflops(&m, e)) ||
           (m.copies &&
            (!cJSON_AddNumberToObject(r, "compute_h2d_bytes",
                                      (double)e->h2d_bytes) ||
             !cJSON_AddNumberToObject(r, "compute_h2d_s", e->h2d_s))) ? -1 : 0;
}

/* The figures and the conventions object.  0, or -1 out of memory. */
static int add_figures(const figure *f, size_t n, cJSON *r)
{
    cJSON *conv = cJSON_AddObjectToObject(r, "conventions");
    if (!conv)
        return -1;
    for (size_t i = 0; i < n; i++) {
        cJSON *v = isfinite(f[i].v) ? cJSON_CreateNumber(f[i].v)
                                    : cJSON_CreateNull();
        if (!v || !cJSON_AddItemToObject(r, f[i].key, v) ||
            !cJSON_AddStringToObject(conv, f[i].key, f[i].conv))
            return -1;
    }
    return 0;
}

/* The counts, as numbers, from a table. */
static int add_counts(const kb_io_epoch *e, cJSON *r)
{
    int64_t shard = e->sample_hi - e->sample_lo;
    const struct {
        const char *key;
        double v;
    } c[] = {
        {"files", (double)e->files},
        {"files_total", (double)e->files_total},
        {"samples", (double)e->samples},
        {"steps", (double)e->steps},
        {"steps_limit", (double)e->steps_limit},
        {"samples_total", (double)e->samples_total},
        {"sample_lo", (double)e->sample_lo},
        {"sample_hi", (double)e->sample_hi},
        {"skipped_files", (double)e->skipped_files},
        {"skipped_samples", (double)e->skipped_samples},
        {"skipped_files_fraction", frac(e->skipped_files, e->files)},
        {"skipped_samples_fraction", frac(e->skipped_samples, shard)},
        {"dropped_samples", (double)e->holes},
        {"dropped_last_samples", (double)e->dropped_last},
        {"not_reached_samples", (double)e->not_reached},
        {"bytes_read", (double)e->bytes},
        {"read_requests", (double)e->nlat},
        {"residency_before", e->residency},
        {"cpu_percent", e->cpu},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        if (!cJSON_AddNumberToObject(r, c[i].key, c[i].v))
            return -1;
    return 0;
}

/* The io_epoch record.  NULL when out of memory. */
static cJSON *record(const kb_io_profile *p, const kb_io_run_opts *o,
                     kb_io_model *model, const kb_io_direct *dio,
                     const kb_io_epoch *e, const figure *f, size_t nf)
{
    cJSON *r = kb_io_record_new("io_epoch", o->prov);
    char *bitmap = kb_io_bitmap_encode(e->bits, 0, e->samples_total);
    bool ok = r && bitmap &&
        cJSON_AddStringToObject(r, "profile", p->name) &&
        cJSON_AddNumberToObject(r, "epoch", (double)e->epoch) &&
        cJSON_AddStringToObject(r, "engine", o->engine->name) &&
        cJSON_AddStringToObject(r, "decode", o->decoder->name) &&
        cJSON_AddStringToObject(r, "verify", o->verify == KB_IO_VERIFY_CRC
                                                 ? "crc" : "none") &&
        cJSON_AddStringToObject(r, "checksums", kb_io_checksum_impl()) &&
        cJSON_AddNumberToObject(r, "readers", (double)o->readers) &&
        cJSON_AddNumberToObject(r, "batch", (double)o->batch) &&
        cJSON_AddNumberToObject(r, "prefetch", (double)o->prefetch) &&
        cJSON_AddBoolToObject(r, "drop_last", p->drop_last) &&
        cJSON_AddNumberToObject(r, "max_steps", (double)p->max_steps) &&
        cJSON_AddBoolToObject(r, "direct_asked", o->direct) &&
        cJSON_AddBoolToObject(r, "direct", o->direct && !e->files_buffered) &&
        cJSON_AddNumberToObject(r, "files_direct", (double)e->files_direct) &&
        cJSON_AddNumberToObject(r, "files_buffered",
                                (double)e->files_buffered) &&
        !kb_io_direct_json(dio, "direct", "buffered", r) &&
        cJSON_AddBoolToObject(r, "cold", o->cold) &&
        cJSON_AddNumberToObject(r, "au_target_percentage", p->au_target) &&
        !add_figures(f, nf, r) && !add_compute(o, model, e, r) &&
        !add_counts(e, r) &&
        cJSON_AddNumberToObject(r, "rank", (double)o->rank.rank) &&
        cJSON_AddNumberToObject(r, "ranks", (double)o->rank.ranks) &&
        cJSON_AddStringToObject(r, "rank_source", o->rank.source) &&
        cJSON_AddStringToObject(r, "delivered_bitmap", bitmap) &&
        cJSON_AddBoolToObject(r, "exactly_once", true);
    free(bitmap);
    if (!ok) {
        cJSON_Delete(r);
        return NULL;
    }
    return r;
}

int kb_io_epoch_report(const kb_io_profile *p, const kb_io_run_opts *o,
                       kb_io_model *model, const kb_io_direct *dio,
                       kb_io_epoch *e, FILE *json, char *err, size_t len)
{
    figure f[MAX_FIGURES];
    size_t nf = figures(p, e, f);
    if (!o->quiet)
        print_epoch(o, model, dio, e, f);
    if (!json)
        return 0;
    cJSON *r = record(p, o, model, dio, e, f, nf);
    char *s = r ? cJSON_PrintUnformatted(r) : NULL;
    cJSON_Delete(r);
    if (!s) {
        snprintf(err, len, "out of memory for a JSON record");
        return KB_IO_ERROR;
    }
    int bad = fprintf(json, "%s\n", s) < 0 || fflush(json) != 0;
    cJSON_free(s);
    if (bad) {
        snprintf(err, len, "cannot write %s: %s", o->json, strerror(errno));
        return KB_IO_ERROR;
    }
    return 0;
}
