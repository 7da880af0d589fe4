/* test_io_dlio_formats.c - DLIO's datasets: the fixtures that numpy, h5py
 * and the Example encoding wrote (tests/iostage/dlio_fixtures.py, argv[1]) are
 * found by the layout scan and parsed with the right sample counts, ids
 * and bodies; damage is named with an offset; kbench's own DLIO-layout
 * output parses back and numpy/h5py read it (the script's check). */
#include "io_test_util.h"   /* first: it defines _GNU_SOURCE */
#include "check.h"
#include "iostage/dlio/example.h"
#include "iostage/dlio/layout.h"
#include "iostage/formats/format.h"
#include "iostage/gen.h"
#include "iostage/formats/tfrecord.h"
#include "iostage/profile.h"
#include "iostage/readers/engine.h"
#include "iostage/sample.h"
#include "iostage/stage.h"
#include "iostage/dlio/arrays.h"
#include "iostage/checksum.h"

#include <inttypes.h>
#include <stdio.h>
#include <sys/wait.h>

/* What a parse delivered. */
typedef struct {
    int64_t n;
    bool in_order;          /* ids 0, 1, 2, ... */
    uint32_t crc1;          /* CRC-32 of sample 1's body */
    size_t body1;
} seen;

static int see(void *ctx, const kb_io_sample *s)
{
    seen *v = ctx;
    if (s->id != (uint64_t)v->n)
        v->in_order = false;
    if (v->n == 1) {
        v->crc1 = kb_io_crc32(0, s->body, s->body_len);
        v->body1 = s->body_len;
    }
    v->n++;
    return 0;
}

static int parse(const kb_io_format *f, const uint8_t *b, size_t n, seen *v,
                 char *err)
{
    *v = (seen){.in_order = true};
    return f->parse(b, n, KB_IO_VERIFY_CRC, see, v, err, KB_IO_ERRLEN);
}

typedef struct {
    char name[32], format[32];
    int64_t files, spf, subfolders;
    uint32_t crc;
} fixture;

static const char *root;   /* FIXTURES: the directory dlio_fixtures.py wrote */

/* Scan (discovering everything), then parse every file of a fixture. */
static void one_fixture(const fixture *fx)
{
    char dir[1024], err[KB_IO_ERRLEN];
    snprintf(dir, sizeof dir, "%s/%s", root, fx->name);
    kb_io_profile p;
    memset(&p, 0, sizeof p);
    p.dlio.layout = true;
    int rc = kb_io_dlio_scan(dir, &p, err, sizeof err);
    if (rc)
        fprintf(stderr, "%s: %s\n", fx->name, err);
    CHECK(rc == 0);
    CHECK(p.files == fx->files && p.dlio.subfolders == fx->subfolders);
    CHECK_STR(p.format, fx->format);
    CHECK_STR(p.dlio.prefix, "img");
    /* the same again, now checking the files against a known profile */
    CHECK(kb_io_dlio_scan(dir, &p, err, sizeof err) == 0);
    kb_io_profile wrong = p;
    wrong.files = fx->files + 1;
    CHECK(kb_io_dlio_scan(dir, &wrong, err, sizeof err) == KB_IO_USAGE);
    CHECK(strstr(err, "stray") != NULL);
    const kb_io_format *f = kb_io_format_find(fx->format);
    CHECK(f && f->positional_ids && !f->missing);
    for (int64_t i = 0; f && i < p.files; i++) {
        char *path = kb_io_dlio_file_path(dir, &p, i);
        size_t n = 0;
        uint8_t *b = io_test_slurp(path, &n);
        CHECK(b != NULL);
        seen v;
        rc = parse(f, b, n, &v, err);
        if (rc)
            fprintf(stderr, "%s: %s\n", path, err);
        CHECK(rc == 0 && v.n == fx->spf && v.in_order);
        /* npz: the body is x, whole (the deflated fixture: compressed) */
        if (i == 0 && strcmp(fx->name, "npzc") != 0)
            CHECK(v.crc1 == fx->crc);
        free(b);
        free(path);
    }
}

/* The streaming walk of a TFRecord file, in pieces of every size, finds
 * what the whole-file walk finds. */
static void test_tfrecord_parts(void)
{
    kb_io_profile p;
    memset(&p, 0, sizeof p);
    char dir[1024], err[KB_IO_ERRLEN];
    snprintf(dir, sizeof dir, "%s/tfrecord", root);
    CHECK(kb_io_dlio_scan(dir, &p, err, sizeof err) == 0);
    char *path = kb_io_dlio_file_path(dir, &p, 1);
    size_t n = 0;
    uint8_t *b = io_test_slurp(path, &n);
    const kb_io_format *f = &kb_io_format_dlio_tfrecord;
    CHECK(b && f->parse_part);
    for (size_t step = 7; b && step <= n; step += 13) {
        seen v = {.in_order = true};
        size_t off = 0;
        int rc = 0;
        for (size_t ready = step; ready < n && !rc; ready += step)
            rc = f->parse_part(b, ready, &off, false, KB_IO_VERIFY_CRC, see,
                               &v, err, sizeof err);
        if (!rc)
            rc = f->parse_part(b, n, &off, true, KB_IO_VERIFY_CRC, see, &v,
                               err, sizeof err);
        CHECK(rc == 0 && v.n == 4 && v.in_order && off == n);
    }
    free(b);
    free(path);
}

/* A copy of file 0 of fixture `name`, changed by the caller. */
static uint8_t *fixture_file(const char *name, size_t *n)
{
    char dir[1024], err[KB_IO_ERRLEN];
    snprintf(dir, sizeof dir, "%s/%s", root, name);
    kb_io_profile p;
    memset(&p, 0, sizeof p);
    if (kb_io_dlio_scan(dir, &p, err, sizeof err))
        return NULL;
    char *path = kb_io_dlio_file_path(dir, &p, 0);
    uint8_t *b = io_test_slurp(path, n);
    free(path);
    return b;
}

static uint64_t le(const uint8_t *s, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes; i-- > 0;)
        v = v << 8 | s[i];
    return v;
}

/* rc is KB_IO_CORRUPT and err starts with "offset N:" and holds `what`. */
static bool named(int rc, const char *err, const char *what)
{
    uint64_t off;
    bool ok = rc == KB_IO_CORRUPT && sscanf(err, "offset %" SCNu64 ":", &off)
                                          == 1 && strstr(err, what);
    if (!ok)
        fprintf(stderr, "rc %d, err '%s', expected '%s'\n", rc, err, what);
    else if (*what)     /* the targeted cases, not the sweeps: in the log */
        fprintf(stderr, "named: %s\n", err);
    return ok;
}

static void test_damage(void)
{
    char err[KB_IO_ERRLEN];
    seen v;
    size_t n = 0;
    uint8_t *b = fixture_file("npz", &n);
    const kb_io_format *npz = &kb_io_format_dlio_npz;
    CHECK(b != NULL);
    if (b) {
        /* x.npy's first data byte: 30 + 5 + 20 + 128 (its .npy header) */
        b[183] ^= 1;
        CHECK(named(parse(npz, b, n, &v, err), err, "CRC-32"));
        CHECK(strncmp(err, "offset 55:", 10) == 0);
        b[183] ^= 1;
        CHECK(named(parse(npz, b, n - 1, &v, err), err, "end-of-central"));
        /* the zip64 field of x.npy's local header: its uncompressed size */
        b[39] ^= 4;
        CHECK(named(parse(npz, b, n, &v, err), err, "zip64 uncompressed"));
        CHECK(strncmp(err, "offset 39:", 10) == 0);
        b[39] ^= 4;
        CHECK(parse(npz, b, n, &v, err) == 0 && v.n == 3);
        /* every other single-byte change and truncation fails cleanly */
        for (size_t i = 0; i < n; i++) {
            b[i] ^= 0x41;
            int rc = parse(npz, b, n, &v, err);
            CHECK(rc == 0 || named(rc, err, ""));
            b[i] ^= 0x41;
            rc = parse(npz, b, i, &v, err);
            CHECK(named(rc, err, ""));
        }
        free(b);
    }
    /* the zip64 end record and central zip64 fields */
    b = fixture_file("npz64", &n);
    CHECK(b != NULL);
    if (b) {
        CHECK(parse(npz, b, n, &v, err) == 0 && v.n == 3);
        /* the locator's pointer to the zip64 end record */
        size_t loc = n - 22 - 20;
        b[loc + 8] ^= 1;
        CHECK(named(parse(npz, b, n, &v, err), err, "zip64"));
        b[loc + 8] ^= 1;
        /* first central entry: its zip64 local header offset (the 3rd
         * value of the extra, after name x.npy) */
        size_t cd = (size_t)le(b + n - 22 - 20 - 56 + 48, 8);
        b[cd + 46 + 5 + 4 + 16] ^= 2;
        CHECK(named(parse(npz, b, n, &v, err), err, "local header"));
        b[cd + 46 + 5 + 4 + 16] ^= 2;
        for (size_t i = 0; i < n; i++) {
            b[i] ^= 0x80;
            int rc = parse(npz, b, n, &v, err);
            CHECK(rc == 0 || named(rc, err, ""));
            b[i] ^= 0x80;
        }
        free(b);
    }
    /* deflate: a damaged stream, or a damaged CRC */
    b = fixture_file("npzc", &n);
    CHECK(b != NULL);
    if (b) {
        CHECK(parse(npz, b, n, &v, err) == 0 && v.n == 2);
        for (size_t i = 0; i < n; i++) {
            b[i] ^= 0x10;
            int rc = parse(npz, b, n, &v, err);
            CHECK(rc == 0 || named(rc, err, ""));
            b[i] ^= 0x10;
        }
        b[60] ^= 0xff;      /* inside x.npy's deflate stream */
        CHECK(named(parse(npz, b, n, &v, err), err, "x.npy"));
        free(b);
    }
    const kb_io_format *tf = &kb_io_format_dlio_tfrecord;
    b = fixture_file("tfrecord", &n);
    CHECK(b != NULL);
    if (b) {
        size_t rec = n / 4;
        b[rec + 20] ^= 1;
        CHECK(named(parse(tf, b, n, &v, err), err, "CRC"));
        CHECK(strstr(err, "offset ") == err && (size_t)strtoull(err + 7,
                                                    NULL, 10) == rec);
        b[rec + 20] ^= 1;
        CHECK(named(parse(tf, b, n - 5, &v, err), err, "truncated"));
        for (size_t i = 0; i < n; i++) {
            b[i] ^= 0x04;
            int rc = parse(tf, b, n, &v, err);
            CHECK(rc == 0 || named(rc, err, ""));
            b[i] ^= 0x04;
        }
        free(b);
    }
    /* Example payloads, framed correctly but wrong inside */
    {
        uint8_t img[3] = {1, 2, 3}, ex[64], frame[96];
        size_t m = kb_example_put(ex, img, 3, 9);
        kb_example e;
        CHECK(kb_example_parse(ex, m, 0, &e, err, sizeof err) == 0 &&
              e.image_len == 3 && e.size == 9 && !memcmp(e.image, img, 3));
        for (size_t cut = 0; cut < m; cut++)
            CHECK(named(kb_example_parse(ex, cut, 100, &e, err, sizeof err),
                        err, ""));
        ex[0] = 0x0b;       /* field 1 as a group: wire type 3 */
        CHECK(named(kb_example_parse(ex, m, 0, &e, err, sizeof err), err,
                    "wire type 3"));
        ex[0] = 0x0a;
        kb_io_tfrecord_put(frame, ex, m);
        CHECK(parse(tf, frame, m + 16, &v, err) == 0 && v.n == 1);
        uint8_t big[16] = {0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                           0xff, 0xff, 0xff, 0x01};
        CHECK(named(kb_example_parse(big, 12, 0, &e, err, sizeof err), err,
                    "varint"));
    }
    const kb_io_format *h5 = &kb_io_format_dlio_hdf5;
    b = h5->missing ? NULL : fixture_file("hdf5", &n);
    CHECK(b != NULL || h5->missing);
    if (b) {
        CHECK(named(parse(h5, b, n - 100, &v, err), err, "libhdf5"));
        b[1] ^= 1;
        CHECK(named(parse(h5, b, n, &v, err), err, "HDF5 signature"));
        free(b);
        b = fixture_file("hdf5_chunked", &n);
        CHECK(b && named(parse(h5, b, n, &v, err), err, "chunked"));
        free(b);
    }
}

/* Run dlio_fixtures.py check on a kbench dataset: numpy, h5py and the
 * plain-Python TFRecord reader read it as DLIO does. */
static int python_check(const char *dir, const kb_io_profile *p)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' '%s' check '%s' %s %" PRId64 " %" PRId64,
             KB_IO_PYTHON3, KB_IO_DLIO_SCRIPT, dir, p->format, p->files,
             p->samples_per_file);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* kbench io gen in DLIO's layout, then everything read back. */
static void gen(const char *format, int64_t subfolders)
{
    char *dir = io_test_mkdtemp(), err[KB_IO_ERRLEN];
    kb_io_profile p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "dlio");
    snprintf(p.format, sizeof p.format, "%s", format);
    p.files = 12;
    p.samples_per_file = 3;
    p.sample_bytes = 90;            /* dimension int(sqrt(90)) = 9 */
    p.sample_stddev = 19;           /* dimension_stdev 1: dims vary */
    p.dlio.layout = true;
    p.dlio.subfolders = subfolders;
    snprintf(p.dlio.prefix, sizeof p.dlio.prefix, "img");
    kb_io_gen_opts o = {.dir = dir, .scale = 0.25, .seed = 5, .threads = 2};
    int rc = kb_io_gen(&p, &o, err, sizeof err);
    if (rc)
        fprintf(stderr, "gen %s: %s\n", format, err);
    CHECK(rc == 0);
    /* the count after --scale is in the names; no kbench manifest */
    kb_io_profile q;
    memset(&q, 0, sizeof q);
    CHECK(kb_io_dlio_scan(dir, &q, err, sizeof err) == 0);
    CHECK(q.files == 3 && q.dlio.subfolders == (subfolders > 1 ? subfolders
                                                                : 0));
    CHECK_STR(q.format, format);
    char manifest[1024];
    snprintf(manifest, sizeof manifest, "%s/kbench-io.manifest", dir);
    CHECK(access(manifest, F_OK) != 0);
    q.samples_per_file = p.samples_per_file;
    const kb_io_format *f = kb_io_format_find(format);
    for (int64_t i = 0; i < q.files; i++) {
        char *path = kb_io_dlio_file_path(dir, &q, i);
        size_t n = 0;
        uint8_t *b = io_test_slurp(path, &n);
        seen v;
        rc = b ? parse(f, b, n, &v, err) : -1;
        if (rc)
            fprintf(stderr, "%s: %s\n", path, rc > -1 ? err : "unreadable");
        CHECK(rc == 0 && v.n == 3 && v.in_order);
        free(b);
        free(path);
    }
    CHECK(python_check(dir, &q) == 0);
    /* a missing file and a stray one are named */
    char *path = kb_io_dlio_file_path(dir, &q, 1), moved[1100];
    snprintf(moved, sizeof moved, "%s/train/stray.%s", dir,
             f->ext);
    if (subfolders <= 1) {
        CHECK(rename(path, moved) == 0);
        CHECK(kb_io_dlio_scan(dir, &q, err, sizeof err) == KB_IO_USAGE);
        CHECK(strstr(err, "stray.") != NULL);
        CHECK(unlink(moved) == 0);
    } else {
        /* file 1 in subfolder 0 is not where DLIO keeps it */
        snprintf(moved, sizeof moved, "%s/train/0/img_1_of_3.%s", dir,
                 f->ext);
        CHECK(rename(path, moved) == 0);
        CHECK(kb_io_dlio_scan(dir, &q, err, sizeof err) == KB_IO_USAGE);
        CHECK(strstr(err, moved) != NULL && strstr(err, path) != NULL);
        CHECK(unlink(moved) == 0);
    }
    CHECK(kb_io_dlio_scan(dir, &q, err, sizeof err) == KB_IO_USAGE);
    CHECK(strstr(err, path) != NULL && strstr(err, "missing") != NULL);
    free(path);
    io_test_rmtree(dir);
    free(dir);
}

/* The layout's names: DLIO's padding of the file index and subfolder. */
static void test_names(void)
{
    kb_io_profile p;
    memset(&p, 0, sizeof p);
    snprintf(p.format, sizeof p.format, "dlio-npz");
    p.files = 168;
    char *s = kb_io_dlio_file_path("/d", &p, 7);
    CHECK_STR(s, "/d/train/img_007_of_168.npz");
    free(s);
    p.dlio.subfolders = 12;
    snprintf(p.dlio.prefix, sizeof p.dlio.prefix, "my_data");
    s = kb_io_dlio_file_path("/d", &p, 25);
    CHECK_STR(s, "/d/train/01/my_data_025_of_168.npz");
    free(s);
    p.sample_bytes = 146600628;     /* unet3d: dimension 12107 */
    CHECK(kb_io_dlio_dimension(&p) == 12107);
    uint64_t d1, d2;
    kb_io_dlio_dims(&p, 1, 0, &d1, &d2);
    CHECK(d1 == 12107 && d2 == 12107);
}

/* End to end: `kbench io run --dlio-layout` over a fixture delivers every
 * sample exactly once, each epoch (DLIO's partial last batch kept, so
 * all of them count), streaming TFRecords as they arrive in 4 KiB reads. */
static void run_engine(const fixture *fx, const char *engine)
{
    if (!io_test_engine_usable(engine))
        return;
    char dir[1024], json[1100], err[4096];
    snprintf(dir, sizeof dir, "%s/%s", root, fx->name);
    char *tmp = io_test_mkdtemp();
    snprintf(json, sizeof json, "%s/run.jsonl", tmp);
    int rc = io_test_cmd(err, sizeof err, "run", "--dlio-layout", "--dir", dir,
                         "--batch", "2", "--drop-last", "no", "--epochs", "2",
                         "--readers", "2", "--chunk", "4096", "--engine",
                         engine, "--json", json, "--quiet", NULL);
    CHECK(rc == 0);
    int n, epochs = 0;
    cJSON **recs = io_test_jsonl(json, &n);
    for (int i = 0; i < n; i++) {
        cJSON *once = cJSON_GetObjectItem(recs[i], "exactly_once");
        cJSON *got = cJSON_GetObjectItem(recs[i], "samples");
        if (!once)
            continue;
        epochs++;
        CHECK(cJSON_IsTrue(once));
        CHECK(cJSON_IsNumber(got) &&
              got->valuedouble == (double)(fx->files * fx->spf));
    }
    if (epochs != 2)
        fprintf(stderr, "%s, %s: %d epoch records in %s\n", fx->name,
                engine, epochs, json);
    CHECK(epochs == 2);
    io_test_jsonl_free(recs, n);
    io_test_rmtree(tmp);
    free(tmp);
}

static void run_fixture(const fixture *fx)
{
    run_engine(fx, "pread");
    run_engine(fx, "mmap");
    if (!kb_io_engine_uring.missing)
        run_engine(fx, "io_uring");
}

/* Each fixture that expect.txt lists (and this build can read) handed to
 * fn; at least 4 of them. */
static void each_fixture(void (*fn)(const fixture *))
{
    char path[1024], line[256];
    snprintf(path, sizeof path, "%s/expect.txt", root);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    int sets = 0;
    while (f && fgets(line, sizeof line, f)) {
        fixture fx;
        CHECK(sscanf(line, "%31s %31s %" SCNd64 " %" SCNd64 " %" SCNd64 " %x",
                     fx.name, fx.format, &fx.files, &fx.spf, &fx.subfolders,
                     &fx.crc) == 6);
        /* without libhdf5 the format says why */
        if (!strcmp(fx.format, "dlio-hdf5") && kb_io_format_dlio_hdf5.missing)
            continue;
        fn(&fx);
        sets++;
    }
    if (f)
        fclose(f);
    CHECK(sets >= 4);
}

/* every fixture scanned and parsed */
static void test_fixtures(void) { each_fixture(one_fixture); }

/* --run: kbench io run over every fixture, on each engine */
static void test_run(void) { each_fixture(run_fixture); }

static void test_gen_npz(void) { gen("dlio-npz", 0); }
static void test_gen_tfrecord(void) { gen("dlio-tfrecord", 3); }
static void test_gen_hdf5(void)
{
    if (kb_io_format_dlio_hdf5.missing)
        CHECK_SKIP("built without libhdf5");
    gen("dlio-hdf5", 0);
}

/* without --run, and with it (ctest test_io_dlio_run) */
static const check_test tests[] = {
    CHECK_TEST(fixtures), CHECK_TEST(names), CHECK_TEST(tfrecord_parts),
    CHECK_TEST(damage), CHECK_TEST(gen_npz), CHECK_TEST(gen_tfrecord),
    CHECK_TEST(gen_hdf5), CHECK_END};
static const check_test run_tests[] = {CHECK_TEST(run), CHECK_END};

/* test_io_dlio_formats FIXTURES [--run] [-- SUB-TEST...] */
int main(int argc, char **argv)
{
    int own = check_nargs(argc, argv);
    bool run = own == 2 && !strcmp(argv[2], "--run");
    if (own != 1 && !run) {
        fprintf(stderr, "usage: %s FIXTURES [--run] [-- SUB-TEST...] (FIXTURES "
                "from dlio_fixtures.py write; --run: kbench io run over "
                "them)\n", argv[0]);
        return 2;
    }
    root = argv[1];
    return check_main_args(argc, argv, own, run ? run_tests : tests);
}
