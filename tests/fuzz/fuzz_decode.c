/* fuzz_decode.c - libFuzzer target of one decoder (KB_FUZZ_DECODER) that
 * parses a sample's bytes: the input is the sample body, decoded to the
 * shape of the tiny profile KB_FUZZ_PROFILE. */
#include "iostage/decode/decoder.h"
#include "iostage/profile.h"
#include "iostage/sample.h"
#include "iostage/stage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static kb_io_profile profile;
static const kb_io_decoder *decoder;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    char err[KB_IO_ERRLEN];
    decoder = kb_io_decoder_find(KB_FUZZ_DECODER);
    if (!decoder || kb_io_profile_find(KB_FUZZ_PROFILES, KB_FUZZ_PROFILE,
                                       &profile, err, sizeof err)) {
        fprintf(stderr, "fuzz_decode: no decoder " KB_FUZZ_DECODER
                " or profile " KB_FUZZ_PROFILE ": %s\n", err);
        abort();
    }
    if (decoder->missing) {   /* scripts/fuzz.sh reports the line */
        printf("fuzz: skipped: decoder %s: %s\n", decoder->name,
               decoder->missing);
        exit(0);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t out_bytes = decoder->out_bytes(&profile);
    void *out = malloc(out_bytes ? out_bytes : 1);
    if (!out)
        abort();
    kb_io_scratch scratch = {0};
    kb_io_sample s = {7, data, size, 0};
    char err[KB_IO_ERRLEN] = "";
    int rc = decoder->decode(&profile, &s, size, out, &scratch, err,
                             sizeof err);
    /* a failure says why */
    if (rc && ((rc != KB_IO_CORRUPT && rc != KB_IO_ERROR) || !err[0]))
        abort();
    free(scratch.p);
    free(out);
    return 0;
}
