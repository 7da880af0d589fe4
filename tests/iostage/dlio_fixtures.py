#!/usr/bin/env python3
"""dlio_fixtures.py - DLIO-layout datasets written the way DLIO writes them,
with the libraries DLIO uses (numpy.savez / savez_compressed, h5py, and the
TFRecord Example encoding in plain Python: TensorFlow is not installed), for
tests/iostage/test_io_dlio_formats.c; and the reverse check that numpy, h5py and a
plain-Python TFRecord reader read what kbench writes.

  dlio_fixtures.py write OUT      datasets under OUT/<name>/train/..., and
                                  OUT/expect.txt describing them
  dlio_fixtures.py check DIR FORMAT FILES SAMPLES_PER_FILE
                                  read every file of DIR/train as DLIO does

Debian: python3-numpy python3-h5py.
"""
import io
import os
import shutil
import struct
import sys
import zipfile
import zlib

import h5py
import numpy as np


def padded(i, n):
    """DLIO's add_padding(i, len(str(n)))."""
    return str(i).rjust(len(str(n)), "0")


def dlio_path(root, prefix, i, n, subfolders, ext):
    """DataGenerator.generate's file_spec."""
    if subfolders > 1:
        return "%s/train/%s/%s_%s_of_%d.%s" % (
            root, padded(i % subfolders, subfolders), prefix, padded(i, n),
            n, ext)
    return "%s/train/%s_%s_of_%d.%s" % (root, prefix, padded(i, n), n, ext)


def make_dirs(root, subfolders):
    os.makedirs(root + "/train", exist_ok=True)
    for s in range(subfolders if subfolders > 1 else 0):
        os.makedirs(root + "/train/" + padded(s, subfolders), exist_ok=True)


# ---- TFRecord framing and tf.train.Example, written out ----

def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


CRC32C = _crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = CRC32C[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked(crc):
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def tfrecord(data):
    length = struct.pack("<Q", len(data))
    return (length + struct.pack("<I", masked(crc32c(length))) + data +
            struct.pack("<I", masked(crc32c(data))))


def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def field_len(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def example(image, size, packed=True):
    """Example{features{feature{'image': bytes_list, 'size': int64_list}}}."""
    ints = (field_len(1, varint(size)) if packed
            else varint(1 << 3 | 0) + varint(size))
    image_f = field_len(1, field_len(1, image))   # Feature.bytes_list
    size_f = field_len(3, ints)                   # Feature.int64_list
    feats = (field_len(1, field_len(1, b"image") + field_len(2, image_f)) +
             field_len(1, field_len(1, b"size") + field_len(2, size_f)))
    return field_len(1, feats)


def read_varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return v, i


def fields(b):
    """(number, wire type, value) of a message's fields."""
    i = 0
    while i < len(b):
        tag, i = read_varint(b, i)
        wt = tag & 7
        if wt == 0:
            v, i = read_varint(b, i)
        elif wt == 2:
            n, i = read_varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt in (1, 5):
            n = 8 if wt == 1 else 4
            v, i = b[i:i + n], i + n
        else:
            raise ValueError("wire type %d" % wt)
        yield tag >> 3, wt, v


def parse_example(data):
    """{'image': bytes, 'size': int}, as tf.io.parse_example reads them."""
    out = {}
    for f, _, feats in fields(data):
        for g, _, entry in (x for x in fields(feats) if f == 1):
            kv = {n: v for n, _, v in fields(entry) if g == 1}
            key, value = kv[1].decode(), kv[2]
            for kind, _, lst in fields(value):
                vals = [v for n, wt, v in fields(lst) if n == 1]
                if kind == 1:
                    out[key] = vals
                elif kind == 3:
                    ints = []
                    for n, wt, v in fields(lst):
                        if wt == 2:
                            j = 0
                            while j < len(v):
                                x, j = read_varint(v, j)
                                ints.append(x)
                        else:
                            ints.append(v)
                    out[key] = ints
    return out


def read_tfrecords(path):
    with open(path, "rb") as f:
        b = f.read()
    i, records = 0, []
    while i < len(b):
        (n,) = struct.unpack_from("<Q", b, i)
        (lc,) = struct.unpack_from("<I", b, i + 8)
        assert lc == masked(crc32c(b[i:i + 8])), "%s: length CRC" % path
        data = b[i + 12:i + 12 + n]
        (dc,) = struct.unpack_from("<I", b, i + 12 + n)
        assert dc == masked(crc32c(data)), "%s: data CRC" % path
        records.append(parse_example(data))
        i += 16 + n
    return records


# ---- zip64 everywhere: numpy's file with its central directory redone ----

def force_zip64_directory(path):
    """Rewrite the central directory with zip64 extra fields for sizes and
    offsets, and end the file with the zip64 end record and locator (what
    Python writes past 2 GiB), so the small fixture takes those paths."""
    import zipfile
    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
        start = z.start_dir
    with open(path, "rb") as f:
        body = f.read()[:start]
    cd = b""
    for zi in infos:
        name = zi.filename.encode()
        extra = struct.pack("<HHQQQ", 1, 24, zi.file_size, zi.compress_size,
                            zi.header_offset)
        cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x032D, 45, 0,
                          zi.compress_type, 0, 0x21, zi.CRC, 0xFFFFFFFF,
                          0xFFFFFFFF, len(name), len(extra), 0, 0, 0,
                          zi.external_attr, 0xFFFFFFFF) + name + extra
    end64 = struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0,
                        len(infos), len(infos), len(cd), start)
    locator = struct.pack("<IIQI", 0x07064B50, 0, start + len(cd), 1)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF,
                      0xFFFFFFFF, 0xFFFFFFFF, 0)
    with open(path, "wb") as f:
        f.write(body + cd + end64 + locator + end)


# ---- the datasets ----

def write_npz(root, n, spf, subfolders, compressed=False, zip64=False):
    make_dirs(root, subfolders)
    crcs = []
    for i in range(n):
        x = np.random.randint(255, size=(5 + i % 3, 7, spf), dtype=np.uint8)
        path = dlio_path(root, "img", i, n, subfolders, "npz")
        save = np.savez_compressed if compressed else np.savez
        save(path, x=x, y=[0] * spf)
        if zip64:
            force_zip64_directory(path)
        assert np.load(path)["x"].shape == x.shape
        crcs.append(zlib.crc32(x.tobytes()))
    return crcs


def write_tfrecord(root, n, spf, subfolders):
    make_dirs(root, subfolders)
    crcs = []
    dim = 48    # 4 records of 48 x 47 bytes: more than one 4 KiB read
    for i in range(n):
        with open(dlio_path(root, "img", i, n, subfolders, "tfrecord"),
                  "wb") as f:
            for k in range(spf):
                image = np.random.randint(255, size=(dim, dim - 1),
                                          dtype=np.uint8).tobytes()
                f.write(tfrecord(example(image, dim, packed=i % 2 == 0)))
                crcs.append(zlib.crc32(image))
    return crcs


def write_hdf5(root, n, spf, subfolders):
    make_dirs(root, subfolders)
    crcs = []
    for i in range(n):
        records = np.random.randint(255, size=(spf, 4, 6 + i), dtype=np.uint8)
        with h5py.File(dlio_path(root, "img", i, n, subfolders, "hdf5"),
                       "w") as hf:
            dset = hf.create_dataset("records", (spf, 4, 6 + i),
                                     dtype=np.uint8)
            dset[0:spf] = records
            hf.create_dataset("labels", data=[0] * spf)
        crcs.extend(zlib.crc32(r.tobytes()) for r in records)
    return crcs


def write_all(out):
    shutil.rmtree(out, ignore_errors=True)
    np.random.seed(10)
    lines = []
    sets = [("npz", "dlio-npz", 4, 3, 0, lambda r: write_npz(r, 4, 3, 0)),
            ("npzc", "dlio-npz", 10, 2, 3,
             lambda r: write_npz(r, 10, 2, 3, compressed=True)),
            ("npz64", "dlio-npz", 2, 3, 0,
             lambda r: write_npz(r, 2, 3, 0, zip64=True)),
            ("tfrecord", "dlio-tfrecord", 3, 4, 2,
             lambda r: write_tfrecord(r, 3, 4, 2)),
            ("hdf5", "dlio-hdf5", 3, 3, 0, lambda r: write_hdf5(r, 3, 3, 0))]
    for name, fmt, n, spf, sub, write in sets:
        crcs = write(out + "/" + name)
        # the CRC-32 of file 0's sample 1 body (npz: the whole x array)
        crc = crcs[0] if fmt == "dlio-npz" else crcs[1]
        lines.append("%s %s %d %d %d %08x\n" % (name, fmt, n, spf, sub, crc))
    with open(out + "/expect.txt", "w") as f:
        f.writelines(lines)
    # DLIO's enable_chunking with gzip: refused by name, not in expect.txt
    root = out + "/hdf5_chunked"
    make_dirs(root, 0)
    with h5py.File(dlio_path(root, "img", 0, 1, 0, "hdf5"), "w") as hf:
        hf.create_dataset("records", data=np.zeros((2, 4, 4), np.uint8),
                          chunks=(1, 4, 4), compression="gzip")


# ---- reading kbench's datasets as DLIO's readers do ----

ZIP64_VERSION = 45  # APPNOTE 4.5: "version needed" of a zip64 entry


def as_zip64_marked(data):
    """data (an .npz as Python 3.11's zipfile writes it for np.savez, which
    forces zip64) as newer zipfiles write the same archive: every entry
    says version 4.5 where 3.11 says 2.0 (the local header's version
    needed, the central directory's version made by and needed), and its
    local header leaves both sizes to the zip64 extra field (0xFFFFFFFF).
    Nothing else changed (CPython gh-103861, Python 3.12; Debian 13)."""
    out = bytearray(data)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        start = z.start_dir
        for info in z.infolist():
            local = info.header_offset
            out[local + 4] = ZIP64_VERSION
            out[local + 18:local + 26] = b"\xff" * 8
    at = start
    while out[at:at + 4] == b"PK\x01\x02":
        out[at + 4] = out[at + 6] = ZIP64_VERSION
        name, extra, comment = struct.unpack_from("<HHH", out, at + 28)
        at += 46 + name + extra + comment
    return bytes(out)


def check(root, fmt, files, spf):
    paths = sorted(os.path.join(d, f) for d, _, fs in os.walk(root + "/train")
                   for f in fs)
    assert len(paths) == files, "%d files, expected %d" % (len(paths), files)
    for p in paths:
        if fmt == "dlio-npz":
            z = np.load(p)
            x, y = z["x"], z["y"]
            assert x.dtype == np.uint8 and x.ndim == 3, (p, x.dtype, x.shape)
            assert x.shape[-1] == spf and y.shape == (spf,), (p, x.shape)
            # byte for byte what np.savez writes for the same arrays (on
            # Python 3.11; a newer zipfile marks zip64 entries otherwise)
            again = io.BytesIO()
            np.savez(again, x=x, y=y)
            want = again.getvalue()
            with open(p, "rb") as f:
                got = f.read()
            if want[4] == ZIP64_VERSION:
                got = as_zip64_marked(got)
            assert got == want, "%s: not numpy's" % p
            print("%s: x %s y %s" % (p, x.shape, y.shape))
        elif fmt == "dlio-hdf5":
            with h5py.File(p, "r") as hf:
                r, lab = hf["records"], hf["labels"]
                assert r.dtype == np.uint8 and r.shape[0] == spf, (p, r.shape)
                assert lab.shape == (spf,), (p, lab.shape)
                assert r[spf - 1].nbytes == r.shape[1] * r.shape[2]
                print("%s: records %s labels %s" % (p, r.shape, lab.shape))
        else:
            recs = read_tfrecords(p)
            assert len(recs) == spf, (p, len(recs))
            for r in recs:
                assert len(r["image"]) == 1 and len(r["size"]) == 1, (p, r)
            print("%s: %d Examples, image %d bytes, size %d" % (
                p, len(recs), len(recs[0]["image"][0]), recs[0]["size"][0]))
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "write":
        write_all(argv[2])
        return 0
    if len(argv) == 6 and argv[1] == "check":
        return check(argv[2], argv[3], int(argv[4]), int(argv[5]))
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
