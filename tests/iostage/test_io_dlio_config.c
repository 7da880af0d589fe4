/* test_io_dlio_config.c - DLIO 2.0.0's own workload YAMLs (tests/inputs/
 * dlio/, unchanged) into kbench profiles through dlio_keys.conf: the
 * numbers, the checkpoint plans, overrides in DLIO's Hydra forms, unknown
 * keys, bad values, warn and error keys, and `kbench io gen` end to end. */
#include "io_test_util.h"   /* first: it defines _GNU_SOURCE */
#include "capture.h"
#include "check.h"
#include "iostage/dlio/config.h"
#include "iostage/dlio/layout.h"
#include "iostage/formats/format.h"
#include "iostage/profile.h"
#include "iostage/stage.h"

#include <stdint.h>
#include <stdio.h>

static char dlio_err[KB_IO_ERRLEN], dlio_log[8192], folder[4096];

static const char *input(const char *name)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", KB_IO_DLIO_INPUTS, name);
    return path;
}

/* Load yaml (NULL: --dlio-layout alone) with the overrides up to NULL;
 * stderr into dlio_log, the message into dlio_err. */
static int load(const char *yaml, kb_io_profile *p, ...)
{
    char *ov[16];
    int n = 0;
    va_list ap;
    va_start(ap, p);
    for (char *a; n < 16 && (a = va_arg(ap, char *));)
        ov[n++] = a;
    va_end(ap);
    check_capture c;
    check_capture_begin(&c, 2);
    dlio_err[0] = folder[0] = '\0';
    int rc = kb_io_dlio_config_load(yaml, ov, n, p, folder, sizeof folder,
                                    dlio_err, sizeof dlio_err);
    check_capture_end(&c, dlio_log, sizeof dlio_log);
    fprintf(stderr, "[%s rc %d] %s%s%s", yaml ? yaml : "(no yaml)", rc,
            dlio_log, dlio_err, dlio_err[0] ? "\n" : "");
    return rc;
}

static bool has(const char *text, const char *what)
{
    return strstr(text, what) != NULL;
}

/* What the four configs of the issue make. */
static void test_unet3d(void)
{
    kb_io_profile p;
    CHECK(load(input("unet3d_h100.yaml"), &p, NULL) == 0);
    CHECK_STR(p.name, "unet3d");
    CHECK_STR(p.format, "dlio-npz");
    CHECK_STR(p.body, "random");
    CHECK_STR(p.decode, "parse");
    CHECK(p.files == 168 && p.samples_per_file == 1);
    CHECK(p.sample_bytes == 146600628 && p.sample_stddev == 68341808);
    CHECK(p.batch == 7 && p.readers == 4 && p.prefetch == 2);
    CHECK_NEAR(p.compute_seconds, 0.323, 1e-12);
    CHECK_NEAR(p.au_target, 90, 1e-12);
    CHECK(p.epochs == 5 && p.max_steps == 0 && p.drop_last);
    CHECK(p.seeded && p.seed == 123);
    CHECK(p.dlio.layout && p.dlio.subfolders == 0);
    CHECK_STR(p.dlio.prefix, "img");
    CHECK_STR(folder, "data/unet3d");   /* DLIO drops the trailing / */
    /* by epoch: first at the end of epoch 5, then every 2 */
    CHECK(p.checkpoint_bytes == 499153191);
    CHECK(p.ckpt.every_steps == 0 && p.ckpt.every_epochs == 2 &&
          p.ckpt.after_epoch == 5);
    CHECK(p.ckpt.optimizer_bytes == 0);
    CHECK(p.ckpt.layer_bytes == 17371 + 24740228);   /* DLIO's default */
    CHECK_STR(p.dlio.checkpoint_folder, "checkpoints/unet3d");
    /* warned: what cannot change the measurement; silent: what kbench
     * does the same (seeded shuffles) */
    CHECK(has(dlio_log, "unet3d_h100.yaml:3: framework = pytorch"));
    CHECK(has(dlio_log, "reader.data_loader = pytorch"));
    CHECK(has(dlio_log, "dataset.record_length_resize"));
    CHECK(!has(dlio_log, "sample_shuffle") && !has(dlio_log, "metric.au"));
}

static void test_bert(void)
{
    kb_io_profile p;
    CHECK(load(input("bert_v100.yaml"), &p, NULL) == 0);
    CHECK_STR(p.name, "bert");
    CHECK_STR(p.format, "dlio-tfrecord");
    CHECK(p.files == 500 && p.samples_per_file == 313532);
    CHECK(p.sample_bytes == 2500 && p.sample_stddev == 0);
    CHECK(p.batch == 48 && p.readers == 1);
    CHECK_NEAR(p.compute_seconds, 0.968, 1e-12);
    CHECK_NEAR(p.au_target, 90, 1e-12);   /* DLIO's default au 0.90 */
    CHECK(p.epochs == 1 && p.max_steps == 1000);
    CHECK_STR(p.dlio.prefix, "part");
    CHECK_STR(folder, "data/bert");
    /* every 250 steps, 4,034,713,312 bytes of model */
    CHECK(p.checkpoint_bytes == 4034713312);
    CHECK(p.ckpt.every_steps == 250 && p.ckpt.every_epochs == 0);
    CHECK(p.ckpt.layer_bytes == 24757599);
    CHECK_STR(p.dlio.checkpoint_folder, "checkpoints/bert");
    CHECK(has(dlio_log, "train.seed_change_epoch = False"));
    CHECK(has(dlio_log, "reader.transfer_size = 262144"));
}

static void test_resnet50_cosmoflow(void)
{
    kb_io_profile p;
    CHECK(load(input("resnet50_h100.yaml"), &p, NULL) == 0);
    CHECK_STR(p.format, "dlio-tfrecord");
    CHECK(p.files == 1024 && p.samples_per_file == 1251);
    CHECK(p.sample_bytes == 114660);   /* 114660.07, rounded */
    CHECK(p.batch == 400 && p.readers == 8 && p.epochs == 5);
    CHECK_NEAR(p.compute_seconds, 0.224, 1e-12);
    CHECK_NEAR(p.au_target, 90, 1e-12);
    /* no workflow.checkpoint: no plan, no model bytes */
    CHECK(p.checkpoint_bytes == 0 && p.ckpt.every_steps == 0 &&
          p.ckpt.every_epochs == 0 && !p.dlio.checkpoint_folder[0]);

    CHECK(load(input("cosmoflow_h100.yaml"), &p, NULL) == 0);
    CHECK_STR(p.name, "cosmoflow");
    CHECK_STR(p.format, "dlio-tfrecord");
    CHECK(p.files == 524288 && p.samples_per_file == 1);
    CHECK(p.sample_bytes == 2828486 && p.sample_stddev == 71311);
    CHECK(p.batch == 1 && p.readers == 4 && p.epochs == 5);
    CHECK_NEAR(p.compute_seconds, 0.00350, 1e-12);
    CHECK_NEAR(p.au_target, 70, 1e-12);
    CHECK(has(dlio_log, "reader.shuffle_size = 2"));
}

/* Every file DLIO 2.0.0 ships is read to the end of its keys: none has a
 * key the table lacks; those kbench cannot run say why. */
static void test_all_shipped(void)
{
    static const struct { const char *file, *fails; } cases[] = {
        {"bert_v100.yaml", NULL}, {"cosmoflow_a100.yaml", NULL},
        {"cosmoflow_h100.yaml", NULL}, {"cosmoflow_v100.yaml", NULL},
        {"resnet50_a100.yaml", NULL}, {"resnet50_h100.yaml", NULL},
        {"resnet50_tf.yaml", NULL}, {"resnet50_v100.yaml", NULL},
        {"unet3d_a100.yaml", NULL}, {"unet3d_h100.yaml", NULL},
        {"unet3d_v100.yaml", NULL},
        {"default.yaml", "workflow.evaluation = True"},
        {"dlrm.yaml", "dataset.format 'indexed_binary'"},
        {"megatron_deepspeed.yaml", "checkpoint.type = all_ranks"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kb_io_profile p;
        int rc = load(input(cases[i].file), &p, NULL);
        CHECK(rc == (cases[i].fails ? KB_IO_USAGE : 0));
        CHECK(!has(dlio_err, "unknown DLIO key"));
        if (cases[i].fails)
            CHECK(has(dlio_err, cases[i].fails));
    }
    /* dlrm's keys DLIO itself ignores are warned about, by line */
    kb_io_profile p;
    load(input("dlrm.yaml"), &p, NULL);
    CHECK(has(dlio_log, "dlrm.yaml:8: workflow.do_eval = True"));
}

/* DLIO's override forms, the short one and data_reader for reader. */
static void test_overrides(void)
{
    kb_io_profile p;
    CHECK(load(input("unet3d_h100.yaml"), &p,
               "++workload.dataset.num_files_train=8",
               "workload.reader.batch_size=4", "dataset.record_length=4096",
               "+workload.train.epochs=2", "checkpoint.model_size=1000",
               "dataset.data_folder=/scratch/u/", NULL) == 0);
    CHECK(p.files == 8 && p.batch == 4 && p.sample_bytes == 4096 &&
          p.epochs == 2 && p.checkpoint_bytes == 1000);
    CHECK_STR(folder, "/scratch/u");
    /* the last of two overrides wins; an alias names the same key */
    CHECK(load(input("unet3d_h100.yaml"), &p, "reader.batch_size=4",
               "data_reader.batch_size=3", NULL) == 0);
    CHECK(p.batch == 3);
    /* storage_root joins a relative data folder, as os.path.join */
    CHECK(load(input("unet3d_h100.yaml"), &p, "storage.storage_root=/mnt/",
               NULL) == 0);
    CHECK_STR(folder, "/mnt/data/unet3d");
    /* the checkpoint plan's other keys */
    CHECK(load(input("unet3d_h100.yaml"), &p,
               "checkpoint.optimization_groups=[10, 20, 0]",
               "checkpoint.layer_parameters=[5]", "checkpoint.num_layers=2",
               "checkpoint.tensor_parallelism=2", NULL) == 0);
    CHECK(p.ckpt.optimizer_bytes == 90 && p.ckpt.layer_bytes == 20);
    CHECK(load(input("bert_v100.yaml"), &p,
               "checkpoint.steps_between_checkpoints=0", NULL) == 0);
    CHECK(p.ckpt.every_steps == 0 && p.ckpt.every_epochs == 0);
    CHECK(load(input("unet3d_h100.yaml"), &p, "workflow.checkpoint=false",
               NULL) == 0);
    CHECK(p.checkpoint_bytes == 0 && p.ckpt.every_epochs == 0 &&
          !p.dlio.checkpoint_folder[0]);
    CHECK(has(dlio_log, "checkpoint.* not used"));
    /* 0 threads and 0 prefetch are read as 1, with a note */
    CHECK(load(input("unet3d_h100.yaml"), &p, "reader.read_threads=0",
               "reader.prefetch_size=0", NULL) == 0);
    CHECK(p.readers == 1 && p.prefetch == 1);
    CHECK(has(dlio_log, "reader.read_threads 0"));
    CHECK(has(dlio_log, "reader.prefetch_size 0"));
    CHECK(load(input("unet3d_h100.yaml"), &p, "dataset.format=hdf5",
               "reader.sample_shuffle=random", NULL) == 0);
    CHECK_STR(p.format, "dlio-hdf5");
}

/* --dlio-layout alone: DLIO's defaults, the dataset's shape left to the
 * scan of its files unless an override gives it. */
static void test_layout_only(void)
{
    kb_io_profile p;
    CHECK(load(NULL, &p, NULL) == 0);
    CHECK(p.dlio.layout && p.files == 0 && p.samples_per_file == 0);
    CHECK(!p.format[0] && !p.dlio.prefix[0]);
    CHECK(p.batch == 1 && p.readers == 1 && p.sample_bytes == 65536);
    CHECK_NEAR(p.au_target, 90, 1e-12);
    CHECK(p.checkpoint_bytes == 0);
    CHECK(load(NULL, &p, "dataset.num_files_train=4",
               "dataset.format=npz", NULL) == 0);
    CHECK(p.files == 4);
    CHECK_STR(p.format, "dlio-npz");
}

/* A scratch YAML holding text; its path. */
static char *dir;   /* a temporary directory, made in main */

static const char *scratch(const char *dir, const char *text)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/w.yaml", dir);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_refusals(void)
{
    kb_io_profile p;
    char where[1100];
    /* unknown keys: in the file by line, in an override by name */
    const char *y = scratch(dir, "model: x\ndataset:\n  num_files_trian: 3\n");
    CHECK(load(y, &p, NULL) == KB_IO_USAGE);
    snprintf(where, sizeof where, "%s:3: unknown DLIO key "
             "'dataset.num_files_trian'", y);
    CHECK(has(dlio_err, where));
    CHECK(load(input("unet3d_h100.yaml"), &p, "reader.batchsize=4", NULL) ==
          KB_IO_USAGE);
    CHECK(has(dlio_err, "unknown DLIO key 'reader.batchsize'"));
    CHECK(load(input("unet3d_h100.yaml"), &p, "~dataset.format", NULL) ==
          KB_IO_USAGE);
    /* bad values: file, line, key, value and what was expected */
    y = scratch(dir, "dataset:\n num_files_train: 2.5\n");
    CHECK(load(y, &p, NULL) == KB_IO_USAGE);
    snprintf(where, sizeof where, "%s:2: dataset.num_files_train: '2.5': "
             "expected an integer >= 1", y);
    CHECK(has(dlio_err, where));
    y = scratch(dir, "dataset:\n num_files_train: '8'\n");
    CHECK(load(y, &p, NULL) == KB_IO_USAGE);
    CHECK(has(dlio_err, "(quoted, a string)"));
    y = scratch(dir, "reader:\n  batch_size:\n");
    CHECK(load(y, &p, NULL) == KB_IO_USAGE);
    CHECK(has(dlio_err, "reader.batch_size: '': expected an integer >= 1"));
    CHECK(load(input("unet3d_h100.yaml"), &p, "metric.au=90", NULL) ==
          KB_IO_USAGE);
    CHECK(has(dlio_err, "metric.au: '90': expected a number in [0, 1]"));
    CHECK(load(input("unet3d_h100.yaml"), &p, "workflow.checkpoint=maybe",
               NULL) == KB_IO_USAGE);
    CHECK(has(dlio_err, "workflow.checkpoint: 'maybe': expected true or "
                        "false"));
    CHECK(load(input("unet3d_h100.yaml"), &p, "dataset.format=jpeg", NULL) ==
          KB_IO_USAGE);
    CHECK(has(dlio_err, "dataset.format 'jpeg': kbench reads DLIO's npz, "
                        "tfrecord and hdf5"));
    y = scratch(dir, "train:\n  epochs: 2\ntrain:\n  epochs: 3\n");
    CHECK(load(y, &p, NULL) == KB_IO_USAGE);
    CHECK(has(dlio_err, "train.epochs set twice"));
    y = scratch(dir, "dataset: [1, 2\n");
    CHECK(load(y, &p, NULL) == KB_IO_USAGE);
    CHECK(has(dlio_err, "not YAML"));
    y = scratch(dir, "reader:\n  batch_size:\n    x: 1\n");
    CHECK(load(y, &p, NULL) == KB_IO_USAGE);
    CHECK(has(dlio_err, "reader.batch_size: expected a value, got a "
                        "mapping"));
    /* error keys, conditional on the value as the table says */
    CHECK(load(input("unet3d_h100.yaml"), &p,
               "train.computation_time_stdev=0.1", NULL) == KB_IO_USAGE);
    CHECK(has(dlio_err, "train.computation_time_stdev = 0.1: not "
                        "implemented by kbench, and it would change the "
                        "measurement"));
    CHECK(load(input("unet3d_h100.yaml"), &p,
               "train.computation_time_stdev=0", NULL) == 0);
    CHECK(load(input("unet3d_h100.yaml"), &p, "reader.sample_shuffle=off",
               NULL) == KB_IO_USAGE);
    CHECK(has(dlio_err, "reader.sample_shuffle = off"));
    CHECK(load(input("unet3d_h100.yaml"), &p, "workflow.evaluation=true",
               NULL) == KB_IO_USAGE);
    CHECK(load(input("unet3d_h100.yaml"), &p, "workflow.evaluation=false",
               NULL) == 0);
    CHECK(load(input("unet3d_h100.yaml"), &p,
               "reader.reader_classname=my.Reader", NULL) == KB_IO_USAGE);
    /* compression: DLIO 2.0.0 ignores it for npz (a warning), kbench
     * cannot match it for HDF5 (an error) */
    CHECK(load(input("unet3d_h100.yaml"), &p, "dataset.compression=gzip",
               NULL) == 0);
    CHECK(has(dlio_log, "warning: override 'dataset.compression=gzip': "
                        "dataset.compression = gzip"));
    CHECK(load(input("unet3d_h100.yaml"), &p, "dataset.format=hdf5",
               "dataset.compression=gzip", NULL) == KB_IO_USAGE);
    CHECK(has(dlio_err, "dataset.compression = gzip"));
    /* a warn key warns and loads */
    CHECK(load(input("unet3d_h100.yaml"), &p, "reader.computation_threads=8",
               "hydra.run.dir=/tmp/x", NULL) == 0);
    CHECK(has(dlio_log, "warning: override 'reader.computation_threads=8': "
                        "reader.computation_threads = 8"));
    CHECK(has(dlio_log, "hydra.run.dir = /tmp/x"));
    /* an empty file is DLIO's defaults */
    y = scratch(dir, "");
    CHECK(load(y, &p, NULL) == 0);
    CHECK(p.files == 8 && p.batch == 1);
    CHECK_STR(p.format, "dlio-tfrecord");
}

/* kbench io gen from a DLIO YAML, made small by overrides. */
static void test_gen(void)
{
    const kb_io_format *f = kb_io_format_find("dlio-npz");
    if (!f || f->missing) {
        fprintf(stderr, "gen skipped: dlio-npz %s\n",
                f ? f->missing : "absent");
        return;
    }
    char ds[1100], err[4096];
    snprintf(ds, sizeof ds, "%s/ds", dir);
    CHECK(io_test_cmd(err, sizeof err, "gen", "--dlio-config",
                      input("unet3d_h100.yaml"), "dataset.num_files_train=2",
                      "dataset.record_length=4096",
                      /* else unet3d's stdev of 68 MB makes sides of ~500k */
                      "dataset.record_length_stdev=0", "--dir", ds,
                      NULL) == 0);
    kb_io_profile p;
    CHECK(load(input("unet3d_h100.yaml"), &p, "dataset.num_files_train=2",
               "dataset.record_length=4096", "dataset.record_length_stdev=0",
               NULL) == 0);
    for (int64_t i = 0; i < 2; i++) {
        char *path = kb_io_dlio_file_path(ds, &p, i);
        struct stat st;
        CHECK(path && stat(path, &st) == 0 && st.st_size > 4096);
        free(path);
    }
}

/* kbench io checkpoint from bert's plan: the checkpoint folder is made
 * (as DLIO makes it) and is --dir's default. */
static void test_checkpoint_verb(void)
{
    char ck[1100], opt[1200], err[4096];
    snprintf(ck, sizeof ck, "%s/ck/bert", dir);
    snprintf(opt, sizeof opt, "checkpoint.checkpoint_folder=%s/", ck);
    CHECK(io_test_cmd(err, sizeof err, "checkpoint", "--dlio-config",
                      input("bert_v100.yaml"), opt,
                      "checkpoint.model_size=4096",
                      "train.computation_time=0",
                      "train.total_training_steps=500", NULL) == 0);
    struct stat st;
    CHECK(stat(ck, &st) == 0 && S_ISDIR(st.st_mode));
    /* without workflow.checkpoint there is no folder to default to */
    CHECK(io_test_cmd(err, sizeof err, "checkpoint", "--dlio-config",
                      input("resnet50_h100.yaml"), NULL) == 2);
    CHECK(has(err, "--dir is required"));
}

static const check_test tests[] = {
    CHECK_TEST(unet3d), CHECK_TEST(bert), CHECK_TEST(resnet50_cosmoflow),
    CHECK_TEST(all_shipped), CHECK_TEST(overrides), CHECK_TEST(layout_only),
    CHECK_TEST(refusals), CHECK_TEST(gen), CHECK_TEST(checkpoint_verb),
    CHECK_END};

int main(int argc, char **argv)
{
    dir = io_test_mkdtemp();
    int status = check_main(argc, argv, tests);
    io_test_rmtree(dir);
    free(dir);
    return status;
}
