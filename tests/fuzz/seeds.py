#!/usr/bin/env python3
"""seeds.py KBENCH OUT - the seed corpora of the fuzz targets, generated
(never committed): OUT/<target>/ for each target of tests/fuzz/fuzz.cmake.

- container files: `kbench io gen` of the tiny profiles of
  tests/inputs/io_profiles_test.conf; their manifests; the sample bodies inside
  them for the decoders (JPEG, cosmoflow's labels + gzip, the HDF5 image);
- io_epoch records of a two-rank `kbench io run`, for `kbench io merge`;
- DLIO's files: those of tests/iostage/dlio_fixtures.py (numpy, h5py, TFRecord
  Examples);
- descriptors and batch files: tests/inputs/*.txt, the model catalogs and
  the string literals of tests/kernels/test_descriptor.c and tests/kernels/test_batch.c;
- DLIO workload YAMLs: tests/inputs/dlio/, else DLIO's own configs where
  they are unpacked (KB_DLIO_SRC), else one written here;
- bitmaps: zlib streams of a few delivered-sample bitmaps as hex.
"""
import glob
import hashlib
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROFILES = os.path.join(ROOT, "tests", "inputs", "io_profiles_test.conf")
# profile -> its container's target and the decoder its bodies feed
GEN = {"resnet50": ("tfrecord", "jpeg"), "cosmoflow": ("tfrecord", "cosmo"),
       "unet3d": ("npz", None), "bert": ("tfrecord", None),
       "deepcam": ("hdf5", "hdf5")}
FILES_PER_PROFILE = 2   # seeds stay small: a few tens of KiB each


def put(out, target, data):
    """One seed, named by its hash as libFuzzer names corpus files."""
    if isinstance(data, str):
        data = data.encode()
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def tfrecords(data):
    """The payloads of a TFRecord file (framing unchecked: kbench wrote it)."""
    o = 0
    while o + 12 <= len(data):
        (n,) = struct.unpack_from("<Q", data, o)
        yield data[o + 12:o + 12 + n]
        o += 12 + n + 4


def kbench_files(kbench, out, tmp):
    env = dict(os.environ, KBENCH_IO_PROFILES=PROFILES)
    for prof, (fmt, dec) in GEN.items():
        d = os.path.join(tmp, prof)
        subprocess.run([kbench, "io", "gen", "--profile", prof, "--dir", d],
                       env=env, check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(d, "kbench-io.manifest"), "rb") as f:
            put(out, "manifest", f.read())
        files = sorted(p for p in glob.glob(os.path.join(d, "*"))
                       if not p.endswith(".manifest"))
        for path in files[:FILES_PER_PROFILE]:
            with open(path, "rb") as f:
                data = f.read()
            put(out, "format_" + fmt, data)
            if dec == "hdf5":
                put(out, "decode_hdf5", data)   # the decoder gets the image
            elif dec:
                for rec in list(tfrecords(data))[:3]:
                    put(out, "decode_" + dec, rec[24:])   # past the header


def merge_records(kbench, out, tmp):
    """io_epoch records of a two-rank run on the cosmoflow files, as one
    file (merges) and rank 0's alone (a rank missing).  cosmoflow because
    its decode keeps samples: see /work/notes/fuzz-findings.md F3."""
    env = dict(os.environ, KBENCH_IO_PROFILES=PROFILES)
    lines = b""
    for rank in (0, 1):
        json = os.path.join(tmp, "rank%d.jsonl" % rank)
        subprocess.run([kbench, "io", "run", "--profile", "cosmoflow",
                        "--dir", os.path.join(tmp, "cosmoflow"), "--quiet",
                        "--epochs", "2", "--rank", str(rank), "--ranks", "2",
                        "--json", json], env=env, check=True)
        with open(json, "rb") as f:
            lines += f.read()
        if rank == 0:
            put(out, "merge", lines)
    put(out, "merge", lines)


def dlio_files(out, tmp):
    """DLIO's own files as tests/iostage/dlio_fixtures.py writes them (numpy.savez,
    savez_compressed, zip64, h5py, TFRecord Examples): two of each set."""
    d = os.path.join(tmp, "dlio")
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "iostage",
                                                 "dlio_fixtures.py"),
                    "write", d], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(d, "expect.txt")) as f:
        sets = [line.split()[:2] for line in f]
    for name, fmt in sets:
        paths = sorted(glob.glob(os.path.join(d, name, "train", "**", "*.*"),
                                 recursive=True))
        for path in paths[:FILES_PER_PROFILE]:
            with open(path, "rb") as f:
                put(out, "format_" + fmt.replace("-", "_"), f.read())


def c_literals(path):
    """The string literals of a C file, adjacent ones joined."""
    with open(path) as f:
        src = f.read()
    lits = []
    for m in re.finditer(r'(?:"(?:[^"\\\n]|\\.)*"\s*)+', src):
        parts = re.findall(r'"((?:[^"\\\n]|\\.)*)"', m.group(0))
        text = "".join(parts).encode().decode("unicode_escape")
        if text.strip():
            lits.append(text)
    return lits


def text_files(out):
    inputs = sorted(glob.glob(os.path.join(ROOT, "tests", "inputs", "*.txt")))
    catalogs = sorted(glob.glob(os.path.join(ROOT, "kernels", "catalog", "*")))
    for path in inputs + catalogs:
        with open(path) as f:
            text = f.read()
        put(out, "batch", text)
        for line in text.splitlines():
            word = line.split("#")[0].strip()
            if word and not word.startswith("--"):
                put(out, "descriptor", word.split()[0])
    for lit in c_literals(os.path.join(ROOT, "tests", "kernels", "test_descriptor.c")):
        if "%" not in lit and len(lit) < 200:
            put(out, "descriptor", lit)
    for lit in c_literals(os.path.join(ROOT, "tests", "kernels", "test_batch.c")):
        if "%" not in lit:
            put(out, "batch", lit)


MINIMAL_YAML = """model:
  name: unet3d
framework: pytorch
workflow:
  generate_data: False
  train: True
  checkpoint: True
dataset:
  data_folder: data/unet3d/
  format: npz
  num_files_train: 8
  num_samples_per_file: 1
  record_length: 4096
  record_length_stdev: 1024
reader:
  data_loader: pytorch
  batch_size: 4
  read_threads: 2
  file_shuffle: seed
  sample_shuffle: seed
train:
  epochs: 2
  computation_time: 0.001
checkpoint:
  checkpoint_folder: checkpoints/unet3d
  checkpoint_after_epoch: 1
  epochs_between_checkpoints: 1
  model_size: 4096
metric:
  au: 0.90
"""


def yaml_files(out):
    dirs = [os.path.join(ROOT, "tests", "inputs", "dlio"),
            os.path.join(os.environ.get("KB_DLIO_SRC", "/work/notes/dlio-src"),
                         "configs", "workload")]
    for d in dirs:
        paths = sorted(glob.glob(os.path.join(d, "*.yaml")))
        if paths:
            break
    for path in paths:
        with open(path, "rb") as f:
            put(out, "dlio_config", f.read())
    # the YAML, then NUL-separated key=value overrides
    put(out, "dlio_config", MINIMAL_YAML)
    put(out, "dlio_config", MINIMAL_YAML + "\0++workload.dataset."
        "num_files_train=2\0train.epochs=1")


def bitmaps(out):
    for lo, hi, pattern in ((0, 100, b"\xff"), (40, 1000, b"\x55"),
                            (7, 8, b"\x01"), (0, 0, b"")):
        n = (hi - lo + 7) // 8
        raw = bytearray((pattern * n)[:n])
        if (hi - lo) % 8:   # only ids [lo, hi) may be set
            raw[-1] &= (1 << ((hi - lo) % 8)) - 1
        put(out, "bitmap", struct.pack("<HH", lo, hi) +
            zlib.compress(bytes(raw), 9).hex().encode())


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: seeds.py KBENCH OUT")
    kbench, out = os.path.abspath(sys.argv[1]), sys.argv[2]
    shutil.rmtree(out, ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix="kb_fuzz_seeds") as tmp:
        kbench_files(kbench, out, tmp)
        merge_records(kbench, out, tmp)
        dlio_files(out, tmp)
    text_files(out)
    yaml_files(out)
    bitmaps(out)
    for d in sorted(os.listdir(out)):
        files = os.listdir(os.path.join(out, d))
        size = max(os.path.getsize(os.path.join(out, d, f)) for f in files)
        print("seeds: %-22s %4d files, largest %6d bytes"
              % (d, len(files), size))


if __name__ == "__main__":
    main()
