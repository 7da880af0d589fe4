/* main.c - the kbench program: everything lives in kb_main (cli.c), so
 * tests can drive the same code path in-process. */
#include "drivers/commands.h"

int main(int argc, char **argv)
{
    return kb_main(argc, argv);
}
