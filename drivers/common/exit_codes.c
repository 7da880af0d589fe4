/* exit_codes.c - the exit-code table every verb's --help ends with
 * (exit_codes.h). */
#include "drivers/common/exit_codes.h"

void kb_print_exit_codes(FILE *out)
{
    fputs("Exit codes:\n"
          "  0    every case ran and validated (SKIPPED and MISTRUSTED cases\n"
          "       allowed: MISTRUSTED, measured over 10 % above its roof\n"
          "       with --peaks, does not change the exit code, as in benchdnn)\n"
          "  1    a validation failed (some case FAILED)\n"
          "  2    usage or input error: bad option, descriptor, batch file,\n"
          "       shape, unknown model/backend/kernel, a problem too large\n"
          "       for memory\n"
          "  3    setup or runtime error: a backend or library failed (some\n"
          "       case ERROR), results could not be written\n"
          "  130, 143  interrupted by SIGINT or SIGTERM (128 + signal); every\n"
          "       case finished before the signal is in the outputs\n"
          "  When several apply, the highest of 1 and 3 wins.\n",
          out);
}
