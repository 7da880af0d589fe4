/* test_io_corrupt.c - damaged datasets: a flipped byte, a truncated file
 * (mid-record and at a record boundary), a wrong TFRecord CRC, damaged
 * NPZ and HDF5 files.  Each must fail with exit code 1 and a message
 * naming the file and the offset, or be counted and skipped with
 * --skip-corrupt; a file whose only damage a checksum would catch is read
 * whole with --verify none. */
#include "io_test_util.h"   /* first: it defines _GNU_SOURCE */
#include "check.h"
#include "iostage/sample.h"

#include <cjson/cJSON.h>
#include <stdio.h>

static const char *profiles = KB_IO_TEST_PROFILES;
static char err[8192];
static char *root;   /* a temporary directory, made in main */

/* Generate profile `name` into root/tag; the path of its file `file`. */
static void gen(const char *root, const char *tag, const char *name,
                int file, char *dir, char *path, size_t len)
{
    snprintf(dir, len, "%s/%s", root, tag);
    CHECK(io_test_cmd(NULL, 0, "gen", "--profiles", profiles, "--profile",
                      name, "--dir", dir, "--threads", "2", NULL) == 0);
    const char *ext = strcmp(name, "unet3d") == 0   ? "npz"
                      : strcmp(name, "deepcam") == 0 ? "h5"
                                                     : "tfrecord";
    snprintf(path, len, "%s/%s_%06d.%s", dir, name, file, ext);
}

/* Run one epoch; returns the exit code, stderr in err. */
static int run(const char *name, const char *dir, const char *extra,
               const char *json)
{
    return io_test_cmd(err, sizeof err, "run", "--profiles", profiles,
                       "--profile", name, "--dir", dir, "--quiet", "--json",
                       json, extra, NULL);
}

/* The last record of a JSON Lines file (NULL when there is none). */
static cJSON *last_record(const char *json)
{
    int n;
    cJSON **recs = io_test_jsonl(json, &n);
    cJSON *o = n > 0 ? recs[n - 1] : NULL;
    if (n > 0)
        recs[n - 1] = NULL;
    io_test_jsonl_free(recs, n);
    return o;
}

/* With --verify none the damage checksums find is not looked for: the run
 * succeeds, delivers all `samples`, skips nothing, and says which it was. */
static void read_unverified(const char *name, const char *dir,
                            const char *json, double samples)
{
    CHECK(run(name, dir, "--verify=none", json) == 0);
    cJSON *o = last_record(json);
    CHECK(o != NULL);
    if (!o)
        return;
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(o, "verify")), "none");
    CHECK(cJSON_GetStringValue(cJSON_GetObjectItem(o, "checksums")) != NULL);
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(o, "samples")) == samples);
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(o, "skipped_files")) == 0);
    cJSON_Delete(o);
}

static void test_flipped_byte(void)
{
    char dir[600], path[700], json[700];
    gen(root, "flip", "bert", 1, dir, path, sizeof dir);
    snprintf(json, sizeof json, "%s/flip.jsonl", root);
    CHECK(io_test_flip(path, 1000, 0x01) == 0);
    CHECK(run("bert", dir, NULL, json) == 1);
    CHECK(strstr(err, "bert_000001.tfrecord") != NULL);
    CHECK(strstr(err, "offset ") != NULL);
    CHECK(strstr(err, "CRC mismatch") != NULL);
    /* skipped: the other two files' 100 samples, exactly once */
    CHECK(run("bert", dir, "--skip-corrupt", json) == 0);
    size_t n;
    char *text = (char *)io_test_slurp(json, &n);
    cJSON *o = text ? cJSON_ParseWithLength(text, n) : NULL;
    CHECK(o != NULL);
    if (o) {
        CHECK(cJSON_GetObjectItem(o, "skipped_files")->valuedouble == 1);
        CHECK(cJSON_GetObjectItem(o, "samples")->valuedouble == 100);
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(o, "verify")),
                  "crc");
        cJSON_Delete(o);
    }
    free(text);
    /* the flip hit a sample id: unverified, the ids still prove the
     * damage (a sample delivered twice) */
    CHECK(run("bert", dir, "--verify=none", json) == 1);
    CHECK(strstr(err, "delivered twice") != NULL);
    /* undone, and the last record's last body byte flipped instead (the
     * file ends with that record's 4-byte data CRC): only checksums see
     * it */
    CHECK(io_test_flip(path, 1000, 0x01) == 0);
    size_t fn = 0;
    free(io_test_slurp(path, &fn));
    CHECK(io_test_flip(path, (long)fn - 5, 0x01) == 0);
    CHECK(run("bert", dir, NULL, json) == 1);
    CHECK(strstr(err, "record data CRC mismatch") != NULL);
    read_unverified("bert", dir, json, 150);
    /* and crc, given explicitly, refuses it again */
    CHECK(run("bert", dir, "--verify=crc", json) == 1);
    CHECK(strstr(err, "CRC mismatch") != NULL);
    CHECK(run("bert", dir, "--verify=md5", json) == 2);
    CHECK(strstr(err, "--verify 'md5': expected one of crc, none") != NULL);
}

static void test_truncated(void)
{
    char dir[600], path[700], json[700];
    gen(root, "trunc", "bert", 2, dir, path, sizeof dir);
    snprintf(json, sizeof json, "%s/trunc.jsonl", root);
    size_t n;
    uint8_t *b = io_test_slurp(path, &n);
    CHECK(b != NULL && truncate(path, (off_t)(n - 10)) == 0);
    CHECK(run("bert", dir, NULL, json) == 1);
    CHECK(strstr(err, "bert_000002.tfrecord") != NULL);
    CHECK(strstr(err, "truncated") != NULL);
    /* cut exactly after the first record: framing is intact */
    uint64_t first = 0;
    for (int i = 0; b && i < 8; i++)
        first |= (uint64_t)b[i] << (8 * i);
    CHECK(truncate(path, (off_t)(first + 16)) == 0);
    CHECK(run("bert", dir, NULL, json) == 1);
    CHECK(strstr(err, "holds 1 samples, expected 50") != NULL);
    free(b);
}

static void test_wrong_crc(void)
{
    char dir[600], path[700], json[700];
    gen(root, "crc", "cosmoflow", 3, dir, path, sizeof dir);
    snprintf(json, sizeof json, "%s/crc.jsonl", root);
    size_t n = 0;
    uint8_t *b = io_test_slurp(path, &n);
    CHECK(b != NULL);
    /* the data CRC is the file's last 4 bytes (one record a file) */
    CHECK(io_test_flip(path, (long)n - 2, 0x80) == 0);
    CHECK(run("cosmoflow", dir, NULL, json) == 1);
    CHECK(strstr(err, "cosmoflow_000003.tfrecord: offset 0: record data "
                      "CRC mismatch") != NULL);
    /* the length CRC too */
    CHECK(io_test_flip(path, (long)n - 2, 0x80) == 0);
    CHECK(io_test_flip(path, 9, 0x04) == 0);
    CHECK(run("cosmoflow", dir, NULL, json) == 1);
    CHECK(strstr(err, "record length CRC mismatch") != NULL);
    read_unverified("cosmoflow", dir, json, 6);
    free(b);
}

static void test_npz(void)
{
    char dir[600], path[700], json[700];
    snprintf(json, sizeof json, "%s/other.jsonl", root);
    gen(root, "npz", "unet3d", 4, dir, path, sizeof dir);
    CHECK(io_test_flip(path, 5000, 0x20) == 0);
    CHECK(run("unet3d", dir, NULL, json) == 1);
    CHECK(strstr(err, "unet3d_000004.npz") != NULL);
    CHECK(strstr(err, "zip CRC-32 mismatch in x.npy") != NULL);
    read_unverified("unet3d", dir, json, 5);
}

static void test_hdf5(void)
{
#ifndef KB_IO_HAVE_HDF5
    CHECK_SKIP("built without libhdf5: deepcam's HDF5 files cannot be read");
#endif
    char dir[600], path[700], json[700];
    snprintf(json, sizeof json, "%s/other.jsonl", root);
    gen(root, "h5", "deepcam", 0, dir, path, sizeof dir);
    size_t n;
    uint8_t *b = io_test_slurp(path, &n);
    CHECK(b != NULL);
    uint64_t off = 0;
    for (int i = 0; b && i < 8; i++)
        off |= (uint64_t)b[KB_IO_HDR_BYTES + i] << (8 * i);
    CHECK(off > 512 && off < n);
    CHECK(io_test_flip(path, (long)off + 100, 0x01) == 0);
    CHECK(run("deepcam", dir, "--decode=none", json) == 1);
    CHECK(strstr(err, "deepcam_000000.h5") != NULL);
    CHECK(strstr(err, "checksum mismatch") != NULL);
    free(b);
}

static const check_test tests[] = {
    CHECK_TEST(flipped_byte), CHECK_TEST(truncated), CHECK_TEST(wrong_crc),
    CHECK_TEST(npz), CHECK_TEST(hdf5), CHECK_END};

int main(int argc, char **argv)
{
    root = io_test_mkdtemp();
    int status = check_main(argc, argv, tests);
    io_test_rmtree(root);
    free(root);
    return status;
}
