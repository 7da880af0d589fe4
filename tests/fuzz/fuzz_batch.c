/* fuzz_batch.c - libFuzzer target of the batch-file parser
 * (kb_batch_parse): the input is a batch file's text. */
#include "fuzz_file.h"   /* first: it defines _GNU_SOURCE */
#include "kernels/batch.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstring(data, size);
    kb_settings s;
    kb_settings_default(&s);
    kb_problem_list l = {0};
    char err[512] = "";
    int rc = kb_batch_parse(text, "fuzz.txt", &s, &l, err, sizeof err);
    /* an error names the place and appends nothing */
    if (rc && (!strstr(err, "fuzz.txt:") || l.n != 0))
        abort();
    kb_problem_list_free(&l);
    free(text);
    return 0;
}
