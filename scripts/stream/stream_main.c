/* stream_main.c - main() for HPCC 1.5.0's STREAM/stream.c run as a single
 * process (see hpcc.h in this folder for the MPI/HPCC stand-ins).
 *
 * HPCC itself drives HPCC_Stream() from its MPI launcher; here one process
 * calls it once, as rank 0 of a one-rank "world", and prints its report on
 * stdout.  Threads come from OpenMP (OMP_NUM_THREADS and friends), the
 * array size from -DSTREAM_ARRAY_SIZE.  scripts/stream-compare.sh builds it:
 *
 *   cc -O3 -march=native -fopenmp -DSTREAM_ARRAY_SIZE=N -I scripts/stream \
 *      STREAM/stream.c scripts/stream/stream_main.c -o stream -lm
 *
 * Exit status: 0 when the run completed and the solution validated, 1 when
 * HPCC_Stream() failed (no memory, no output) or the check failed, so a
 * script can trust the rates it parses only after a zero status. */
#include <hpcc.h>

#include <unistd.h> /* close() */

/* Copy the report HPCC_Stream() left in PATH to stdout, then remove it. */
static int copy_report(const char *path)
{
    char buf[4096];
    size_t n;
    FILE *f = fopen(path, "r");

    if (f == NULL) {
        perror(path);
        return -1;
    }
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        fwrite(buf, 1, n, stdout);
    fclose(f);
    remove(path);
    return fflush(stdout) == 0 ? 0 : -1;
}

int main(void)
{
    HPCC_Params params;
    double copy = 0.0, scale = 0.0, add = 0.0, triad = 0.0;
    int failure = 1; /* stays set unless the validation ran and passed */
    const char *tmpdir = getenv("TMPDIR");
    int fd, rc;

    memset(&params, 0, sizeof(params));
    /* HPCC_Stream() fopen()s outFname in append mode and fclose()s it.
     * Handing it "/dev/stdout" would reopen a redirected stdout as a second
     * open file with its own offset, so its lines and ours could overwrite
     * each other; a private file copied to stdout afterwards can't. */
    if (tmpdir == NULL || *tmpdir == '\0')
        tmpdir = "/tmp";
    if (snprintf(params.outFname, sizeof(params.outFname),
                 "%s/hpcc-stream-XXXXXX", tmpdir) >= (int)sizeof(params.outFname)) {
        fprintf(stderr, "stream: TMPDIR is too long\n");
        return 1;
    }
    fd = mkstemp(params.outFname);
    if (fd < 0) {
        perror(params.outFname);
        return 1;
    }
    close(fd);

    rc = HPCC_Stream(&params, 1, MPI_COMM_WORLD, 0, &copy, &scale, &add,
                     &triad, &failure);
    if (copy_report(params.outFname) != 0)
        return 1;
    if (rc != 0) {
        fprintf(stderr, "stream: HPCC_Stream() failed (%d)\n", rc);
        return 1;
    }
    if (failure) {
        fprintf(stderr, "stream: the solution did not validate\n");
        return 1;
    }
    return 0;
}
