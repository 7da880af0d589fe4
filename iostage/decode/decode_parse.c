/* decode_parse.c - the decode of parse-only workloads (bert, unet3d) and of
 * --decode none: the container's parser has already framed and verified
 * the record, so nothing is left to do and nothing is kept. */
#include "iostage/decode/decoder.h"
#include "iostage/profile.h"
#include "iostage/sample.h"

static size_t parse_out_bytes(const kb_io_profile *p)
{
    (void)p;
    return 0;
}

static int parse_decode(const kb_io_profile *p, const kb_io_sample *s,
                        uint64_t rng, void *out, kb_io_scratch *scratch,
                        char *err, size_t len)
{
    (void)p, (void)s, (void)rng, (void)out, (void)scratch, (void)err,
        (void)len;
    return 0;
}

const kb_io_decoder kb_io_decode_parse = {
    .name = "parse",
    .body_unused = true,
    .out_bytes = parse_out_bytes,
    .decode = parse_decode,
};
