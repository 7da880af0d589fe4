/* fuzz_bitmap.c - libFuzzer target of the delivered-sample bitmap decoder
 * (kb_io_bitmap_decode), which reads other ranks' records in `kbench io
 * merge`: the first four bytes choose the id range, the rest is the text. */
#include "fuzz_file.h"   /* first: it defines _GNU_SOURCE */
#include "iostage/bitmap.h"
#include "iostage/stage.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    /* ranges up to 64 Ki ids keep an execution fast; lo > hi included */
    int64_t lo = data[0] | data[1] << 8, hi = data[2] | data[3] << 8;
    char *text = fuzz_cstring(data + 4, size - 4);
    uint8_t *bits = calloc((size_t)(hi > lo ? hi : lo) / 8 + 1, 1);
    if (!bits)
        abort();
    char err[KB_IO_ERRLEN] = "";
    int rc = kb_io_bitmap_decode(text, lo, hi, bits, err, sizeof err);
    if (rc && ((rc != KB_IO_CORRUPT && rc != KB_IO_ERROR) || !err[0]))
        abort();
    /* what decodes encodes back to the same bits */
    if (rc == 0 && hi > lo) {
        char *again = kb_io_bitmap_encode(bits, lo, hi);
        uint8_t *bits2 = calloc((size_t)hi / 8 + 1, 1);
        if (!again || !bits2 ||
            kb_io_bitmap_decode(again, lo, hi, bits2, err, sizeof err) ||
            memcmp(bits, bits2, (size_t)hi / 8 + 1) != 0)
            abort();
        free(again);
        free(bits2);
    }
    free(text);
    free(bits);
    return 0;
}
