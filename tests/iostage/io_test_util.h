/* io_test_util.h - helpers for the I/O stage tests: scratch directories,
 * running `kbench io` with an argument list, capturing its stderr or
 * stdout, whether O_DIRECT works here, and reading/patching files. */
#ifndef KB_IO_TEST_UTIL_H
#define KB_IO_TEST_UTIL_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "capture.h"
#include "drivers/common/options.h"
#include "drivers/commands.h"
#include "iostage/decode/decoder.h"
#include "iostage/record.h"
#include "iostage/stage.h"

/* Whether the engine can run here.  io_uring needs the kernel's
 * io_uring_setup, which seccomp may forbid and qemu-user (7.2) does not
 * emulate: kbench io then refuses the engine with that reason, and the
 * tests of the engine leave it out, saying so, rather than fail. */
static inline bool io_test_engine_usable(const char *engine)
{
    if (strcmp(engine, "io_uring") != 0)
        return true;
    uint32_t params[30] = {0};   /* struct io_uring_params, 120 bytes */
    long fd = syscall(SYS_io_uring_setup, 1, params);
    if (fd >= 0) {
        close((int)fd);
        return true;
    }
    if (errno != ENOSYS && errno != EPERM)
        return true;
    fprintf(stderr, "io_uring left out: io_uring_setup: %s\n", strerror(errno));
    return false;
}

/* A fresh directory under $TMPDIR (or /tmp); exits the test on failure. */
static inline char *io_test_mkdtemp(void)
{
    const char *base = getenv("TMPDIR");
    static char path[512];
    snprintf(path, sizeof path, "%s/kbio.XXXXXX", base ? base : "/tmp");
    if (!mkdtemp(path)) {
        perror("mkdtemp");
        exit(3);
    }
    return strdup(path);
}

static int rm_entry(const char *p, const struct stat *s, int f, struct FTW *w)
{
    (void)s, (void)f, (void)w;
    return remove(p);
}

static inline void io_test_rmtree(const char *dir)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Run kb_verb_main(&kb_verb_io, NULL, argc, argv); what it writes to fd (1 or 2) goes to buf
 * when buf is given, and is copied to stderr for the test log. */
static inline int io_test_run(int fd, char *buf, size_t len, int argc,
                              char **argv)
{
    check_capture c;
    if (buf)
        check_capture_begin(&c, fd);
    int rc = kb_verb_main(&kb_verb_io, NULL, argc, argv);
    if (buf) {
        check_capture_end(&c, buf, len);
        fputs(buf, stderr);   /* keep it in the test log */
    }
    return rc;
}

/* In a sub-test of check.h: skip, saying why, in a build without
 * libjpeg-turbo (resnet50's samples are JPEGs; iostage/decode/decoder.h). */
#define IO_TEST_SKIP_WITHOUT_JPEG()                                         \
    do {                                                                    \
        if (kb_io_decode_jpeg.missing)                                      \
            CHECK_SKIP("%s: resnet50's JPEGs cannot be made or decoded",    \
                       kb_io_decode_jpeg.missing);                          \
    } while (0)

/* argv for kbench io: "io", then ap's arguments up to NULL; the count. */
static inline int io_test_argv(char **argv, va_list ap)
{
    int argc = 0;
    argv[argc++] = "io";
    for (char *a; argc < 63 && (a = va_arg(ap, char *));)
        argv[argc++] = a;
    argv[argc] = NULL;
    return argc;
}

/* Run kb_verb_main(&kb_verb_io, NULL, "io", args..., NULL); stderr goes to errbuf when given. */
static inline int io_test_cmd(char *errbuf, size_t errlen, ...)
{
    char *argv[64];
    va_list ap;
    va_start(ap, errlen);
    int argc = io_test_argv(argv, ap);
    va_end(ap);
    return io_test_run(2, errbuf, errlen, argc, argv);
}

/* The same, stdout into outbuf. */
static inline int io_test_cmd_out(char *outbuf, size_t outlen, ...)
{
    char *argv[64];
    va_list ap;
    va_start(ap, outlen);
    int argc = io_test_argv(argv, ap);
    va_end(ap);
    return io_test_run(1, outbuf, outlen, argc, argv);
}

/* Whether dir's filesystem takes an aligned O_DIRECT write and read (some
 * refuse O_DIRECT outright: tmpfs before Linux 6.6). */
static inline bool io_test_direct_works(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/direct-probe", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, 0644);
    void *b = NULL;
    bool ok = fd >= 0 && posix_memalign(&b, KB_IO_ALIGN, KB_IO_ALIGN) == 0;
    if (ok) {
        memset(b, 1, KB_IO_ALIGN);
        ok = pwrite(fd, b, KB_IO_ALIGN, 0) == KB_IO_ALIGN &&
             pread(fd, b, KB_IO_ALIGN, 0) == KB_IO_ALIGN;
    }
    free(b);
    if (fd >= 0)
        close(fd);
    unlink(path);
    return ok;
}

/* Whole file into a malloc'd buffer; NULL on failure. */
static inline uint8_t *io_test_slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    rewind(f);
    uint8_t *b = malloc(sz > 0 ? (size_t)sz : 1);
    if (b && fread(b, 1, (size_t)sz, f) != (size_t)sz) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *n = (size_t)sz;
    return b;
}

/* The records of a JSON Lines file, parsed (NULL for a line that does not
 * parse); *n gets how many lines, -1 when the file cannot be read.  Free
 * with io_test_jsonl_free. */
static inline cJSON **io_test_jsonl(const char *path, int *n)
{
    size_t len;
    char *text = (char *)io_test_slurp(path, &len);
    char *t = text ? realloc(text, len + 1) : NULL;
    *n = -1;
    if (!t) {
        free(text);
        return NULL;
    }
    t[len] = '\0';
    cJSON **recs = NULL;
    int count = 0;
    for (char *line = strtok(t, "\n"); line; line = strtok(NULL, "\n")) {
        cJSON **more = realloc(recs, (size_t)(count + 1) * sizeof *recs);
        if (!more)
            break;
        recs = more;
        recs[count++] = cJSON_Parse(line);
    }
    free(t);
    *n = count;
    return recs;
}

static inline void io_test_jsonl_free(cJSON **recs, int n)
{
    for (int i = 0; i < n; i++)
        cJSON_Delete(recs[i]);
    free(recs);
}

/* Whether r starts as every io record must (results/SCHEMA.md): its type,
 * the io schema and the run's provenance (host, commit, compiler, CPU,
 * command line); says on stderr what is wrong. */
static inline bool io_test_head_ok(const cJSON *r, const char *type)
{
    static const char *const prov[] = {
        "host", "git_commit", "compiler", "cpu_model", "kbench_version",
        "date", "build_type", "libraries", "command_line", "affinity"};
    const char *t = cJSON_GetStringValue(cJSON_GetObjectItem(r, "type"));
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(r, "schema"));
    if (!t || strcmp(t, type) || !s || strcmp(s, KB_IO_SCHEMA) ||
        cJSON_GetObjectItem(r, "record")) {
        fprintf(stderr, "record type %s schema %s, expected %s %s\n",
                t ? t : "(none)", s ? s : "(none)", type, KB_IO_SCHEMA);
        return false;
    }
    for (size_t i = 0; i < sizeof prov / sizeof prov[0]; i++) {
        const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(r, prov[i]));
        if (!v || !*v) {
            fprintf(stderr, "%s record: no provenance field %s\n", type,
                    prov[i]);
            return false;
        }
    }
    if (!cJSON_IsObject(cJSON_GetObjectItem(r, "cpu_id")) ||
        !cJSON_IsNumber(cJSON_GetObjectItem(r, "threads")) ||
        strncmp(cJSON_GetStringValue(cJSON_GetObjectItem(r, "command_line")),
                "kbench", 6)) {
        fprintf(stderr, "%s record: cpu_id, threads or command_line wrong\n",
                type);
        return false;
    }
    return true;
}

/* XOR one byte of a file at offset. */
static inline int io_test_flip(const char *path, long off, uint8_t mask)
{
    int fd = open(path, O_RDWR);
    uint8_t b = 0;
    int ok = fd >= 0 && pread(fd, &b, 1, off) == 1;
    b ^= mask;
    ok = ok && pwrite(fd, &b, 1, off) == 1;
    if (fd >= 0)
        close(fd);
    return ok ? 0 : -1;
}

#endif
