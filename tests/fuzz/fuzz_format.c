/* fuzz_format.c - libFuzzer target of one container format's parser
 * (KB_FUZZ_FORMAT names it): the input is a file image, parsed whole and,
 * where the format streams, again in two pieces as a reader delivers it.
 * Both walks must deliver the same samples with the same result. */
#include "iostage/formats/format.h"
#include "iostage/sample.h"
#include "iostage/stage.h"
#include "iostage/checksum.h"

#include <stdlib.h>
#include <string.h>

#define MAX_SAMPLES 4096   /* a walk's record, for the comparison */

typedef struct {
    const uint8_t *lo, *hi;    /* the buffer the parser was given */
    size_t n;
    uint64_t id[MAX_SAMPLES], offset[MAX_SAMPLES];
    uint32_t crc[MAX_SAMPLES];
} walk;

/* Every sample lies inside the buffer; reading all its bytes lets ASan
 * see a body that runs past the file. */
static int on_sample(void *ctx, const kb_io_sample *s)
{
    walk *w = ctx;
    if (s->body < w->lo || s->body_len > (size_t)(w->hi - s->body))
        abort();
    uint32_t crc = kb_io_crc32c(0, s->body, s->body_len);
    if (w->n < MAX_SAMPLES) {
        w->id[w->n] = s->id;
        w->offset[w->n] = s->offset;
        w->crc[w->n] = crc;
    }
    w->n++;
    return 0;
}

/* A failure is KB_IO_CORRUPT naming the offset (or KB_IO_ERROR, out of
 * memory), never silent. */
static void check_result(int rc, const char *err)
{
    if (rc == 0)
        return;
    if ((rc != KB_IO_CORRUPT && rc != KB_IO_ERROR) || err[0] == '\0' ||
        (rc == KB_IO_CORRUPT && !strstr(err, "offset")))
        abort();
}

static void same_walk(const walk *a, const walk *b)
{
    if (a->n != b->n)
        abort();
    size_t n = a->n < MAX_SAMPLES ? a->n : MAX_SAMPLES;
    for (size_t i = 0; i < n; i++)
        if (a->id[i] != b->id[i] || a->offset[i] != b->offset[i] ||
            a->crc[i] != b->crc[i])
            abort();
}

static const kb_io_format *f;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    f = kb_io_format_find(KB_FUZZ_FORMAT);
    if (!f)
        abort();
    if (!f->parse) {   /* a placeholder: scripts/fuzz.sh reports the line */
        printf("fuzz: skipped: format %s has no parser (%s)\n", f->name,
               f->missing ? f->missing : "no reason given");
        exit(0);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static walk whole, parts;
    char err[KB_IO_ERRLEN] = "";
    memset(&whole, 0, sizeof whole);
    whole.lo = data;
    whole.hi = data + size;
    int rc = f->parse(data, size, KB_IO_VERIFY_CRC, on_sample, &whole, err, sizeof err);
    check_result(rc, err);
    if (!f->parse_part)
        return 0;
    /* The first piece ends where the last byte says, in a buffer of its
     * own size, so a read past what has arrived is caught too. */
    size_t cut = size ? (size_t)data[size - 1] * size / 256 : 0;
    uint8_t *first = malloc(cut ? cut : 1);
    if (!first)
        abort();
    memcpy(first, data, cut);
    memset(&parts, 0, sizeof parts);
    parts.lo = first;
    parts.hi = first + cut;
    size_t off = 0;
    char perr[KB_IO_ERRLEN] = "";
    int prc = f->parse_part(first, cut, &off, false, KB_IO_VERIFY_CRC, on_sample, &parts, perr,
                            sizeof perr);
    free(first);
    if (off > cut)
        abort();
    if (prc == 0) {
        parts.lo = data;
        parts.hi = data + size;
        prc = f->parse_part(data, size, &off, true, KB_IO_VERIFY_CRC, on_sample, &parts, perr,
                            sizeof perr);
    }
    check_result(prc, perr);
    /* A piece that is not final stops before an incomplete record, so
     * the two walks see the same records and fail at the same one. */
    if (prc != rc)
        abort();
    same_walk(&whole, &parts);
    return 0;
}
