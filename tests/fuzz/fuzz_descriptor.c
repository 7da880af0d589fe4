/* fuzz_descriptor.c - libFuzzer target of the descriptor parser
 * (kb_problem_parse): the input is one descriptor.  What parses must
 * format back to text that parses to the same canonical form. */
#include "fuzz_file.h"   /* first: it defines _GNU_SOURCE */
#include "kernels/problem.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstring(data, size);
    kb_settings s;
    kb_settings_default(&s);
    kb_problem p, q;
    char err[512] = "", a[512], b[512];
    if (kb_problem_parse(text, &s, &p, err, sizeof err) == 0) {
        int n = kb_problem_format(&p, a, sizeof a);
        if (n <= 0 || (size_t)n >= sizeof a ||
            kb_problem_parse(a, &s, &q, err, sizeof err) != 0)
            abort();
        kb_problem_format(&q, b, sizeof b);
        if (strcmp(a, b) != 0)
            abort();
    } else if (!err[0]) {
        abort();   /* a rejection names the token */
    }
    free(text);
    return 0;
}
