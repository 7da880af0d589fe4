#!/usr/bin/env python3
"""check-dumps-torch.py - kbench's --dump of every direction checked
against PyTorch, an oracle that shares no code with kbench.

    check-dumps-torch.py [--kbench PATH] [--backends omp,onednn,openblas]
                         [--dt f32,bf16] [--keep DIR]
    check-dumps-torch.py --dir DIR      # check dumps already written

Without --dir it runs `kbench run --dump` on the small odd shapes of CASES
(conv 2D and 3D with groups, stride, padding and dilation; bnorm 2D and
3D; GEMM with transposes, alpha and beta) in every direction, both
layouts and each --dt, on each backend; a backend that lacks a direction
SKIPS it and that is listed, not failed.  Then every output tensor of
every dumped case is recomputed in float64 from the dumped inputs:

  conv   torch.nn.functional.conv2d/conv3d forward, and torch.autograd
         with grad_output = diff_dst for diff_src, diff_wei, diff_bia;
  gemm   alpha * a @ b + beta * c;
  bnorm  forward with torch's batch_norm (training: batch statistics;
         inference: the given ones); backward with the explicit formula
         below.

Bnorm backward: kbench's BWD_D/BWD_DW take mean and var as the batch's
statistics (the training backward), but the dumped mean and var are
filled inputs, not src's statistics, so torch.autograd through
batch_norm(training=True), which recomputes the statistics from src,
does not apply to those data.  The dump is therefore checked with the
explicit float64 formula

    xhat = (x - mean) / sqrt(var + eps),  M = N * spatial
    diff_shift = sum(dd),  diff_scale = sum(dd * xhat)
    diff_src = scale / sqrt(var + eps) * (dd - diff_shift/M - xhat * diff_scale/M)

and the formula itself is checked against torch.autograd on every case:
on x' = src rescaled so that its batch mean and (biased) variance are the
given mean and var, autograd of batch_norm(x', training=True) must equal
the formula at x'.  When the dumped src does have the given statistics,
autograd is also compared with the dump directly.

Tolerance, per element: |got - ref| <= 2 eps_out |ref| + (L + 2) eps_acc m
+ 2 eps_in m, where m is the same computation over absolute values (the
sum of the magnitudes of the terms), L the longest sum behind the element,
eps_out the unit roundoff of the tensor's type, eps_acc that of the
accumulation (f32, f64 for f64) and eps_in that of --fpmath's inputs
(0 when strict).  A wrong index or a missed term is of the order of m; a
correct result is far below, and each tensor's check is shown to catch
its largest-magnitude element moved by 1 % of m.  Prints, per tensor, the
maximum absolute error and the maximum error over its tolerance, then
what kbench SKIPPED; exits 1 on a mismatch, a missed negative control or
an f32 case that no backend ran, 2 when kbench cannot be run.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

# (kind, descriptors, directions): small odd shapes.  Conv: padding,
# groups with stride and dilation, stride wider than the kernel with
# padding, depthwise with multiplier 2, pointwise; 3D with all of them.
CASES = [
    ("conv", ["mb2ic3oc5ih7iw9kh3kw3ph1pw1",
              "g2mb2ic4oc6ih9iw8kh3kw2sh2sw1ph1pw0dh1dw0",
              "mb1ic3oc4ih8kh3sh3ph2dh1",
              "g3mb2ic3oc6ih6iw7kh3kw3ph1pw1",
              "mb2ic4oc3ih5iw3kh1kw1",
              "mb2ic3oc4id5ih6iw5kd3kh2kw3sd2sh1sw2pd1ph1pw0dd1",
              "g2mb1ic4oc6id4ih5iw6kd2kh3kw2pd1ph1pw1"],
     ["FWD_B", "FWD_D", "BWD_D", "BWD_W", "BWD_WB"]),
    ("bnorm", ["mb3ic5ih4iw3", "mb2ic3id3ih4iw5eps0.001"],
     ["FWD_D", "FWD_I", "BWD_D", "BWD_DW"]),
    ("gemm", ["m7n5k9", "m6n4k3_ta_tb", "m5n7k6_taalpha0.5beta2"],
     ["FWD_D"]),
]
LAYOUTS = {"conv": ["nchw", "nhwc"], "bnorm": ["nchw", "nhwc"],
           "gemm": [None]}

EPS = {"f32": 2.0 ** -24, "f64": 2.0 ** -53, "bf16": 2.0 ** -8,
       "f16": 2.0 ** -11}
FPMATH_EPS = {"strict": 0.0, "tf32": 2.0 ** -11, "bf16": 2.0 ** -8,
              "any": 2.0 ** -8}


def run_kbench(kbench, outdir, kind, descs, direction, layout, dt, backends,
               errors):
    """One kbench run with --dump outdir; returns its case records (those
    written before a crash, which goes to errors)."""
    os.makedirs(outdir)
    records = os.path.join(outdir, "records.jsonl")
    cmd = [kbench, "run", "--quiet", "--reps", "1", "--min-time", "0",
           "--warmup", "0", "--dir", direction, "--dt", dt,
           "--backend", backends, "--dump", outdir, "--json", records]
    if layout:                          # nchw/nhwc serve 3D shapes too
        cmd += ["--layout", layout]
    for d in descs:
        cmd += ["--desc", d]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        sys.exit("check-dumps-torch: cannot run %s: %s" % (kbench, e))
    if r.returncode == 2:               # usage: this script is wrong
        sys.exit("check-dumps-torch: %s exited 2:\n%s"
                 % (" ".join(cmd), r.stderr))
    if r.returncode not in (0, 1):      # 1: some case FAILED kbench's check
        said = [l for l in r.stderr.splitlines()
                if l.strip() and not l.startswith("kbench: warning")]
        errors.append("ERROR kbench %s on %s %s %s %s%s" % (
            "killed by signal %d" % -r.returncode if r.returncode < 0
            else "exited %d" % r.returncode, kind, direction, layout, dt,
            ": " + said[-1] if said else ""))
    if not os.path.exists(records):
        return []
    cases = []
    with open(records) as f:
        for line in f:
            try:
                c = json.loads(line)
            except ValueError:          # the line a crash cut short
                continue
            if c.get("type") == "case":
                cases.append(c)
    return cases


def load(dumpdir, entry, name):
    return torch.from_numpy(
        np.load(os.path.join(dumpdir, entry["tensors"][name]["file"]))
        .astype(np.float64))


def conv_fn(ndims):
    return F.conv2d if ndims == 2 else F.conv3d


def conv_expect(entry, t):
    """{output name: (ref, magnitude, L)} for a conv case."""
    prm = entry["params"]
    direction = entry["dir"]
    wei_shape = entry["tensors"].get("wei", entry["tensors"].get("diff_wei"))["shape"]
    nd = len(wei_shape) - 2
    conv = conv_fn(nd)
    kw = dict(stride=prm["stride"], padding=prm["pad"],
              dilation=prm["dilation"], groups=prm["groups"])
    taps = int(np.prod(wei_shape[1:]))        # IC/G * taps

    def run(src, wei, bia):
        return conv(src, wei, bia, **kw)

    if direction.startswith("FWD"):
        src, wei = t["src"], t["wei"]
        bia = t.get("bia")
        ref = run(src, wei, bia)
        mag = run(src.abs(), wei.abs(), None if bia is None else bia.abs())
        return {"dst": (ref, mag, taps + 1)}

    dd = t["diff_dst"]
    spatial = int(np.prod(dd.shape[2:]))
    if direction == "BWD_D":
        wei = t["wei"]
        src_shape = entry["tensors"]["diff_src"]["shape"]
        out = {}
        for key, w, g in (("ref", wei, dd), ("mag", wei.abs(), dd.abs())):
            x = torch.zeros(src_shape, dtype=torch.float64, requires_grad=True)
            run(x, w, None).backward(g)
            out[key] = x.grad
        kg = wei.shape[0] // prm["groups"]
        return {"diff_src": (out["ref"], out["mag"],
                             kg * int(np.prod(wei.shape[2:])))}

    src = t["src"]
    res = {}
    for key, x, g in (("ref", src, dd), ("mag", src.abs(), dd.abs())):
        w = torch.zeros(wei_shape, dtype=torch.float64, requires_grad=True)
        b = torch.zeros(wei_shape[0], dtype=torch.float64, requires_grad=True)
        run(x, w, b).backward(g)
        res[key] = (w.grad, b.grad)
    n_terms = dd.shape[0] * spatial
    out = {"diff_wei": (res["ref"][0], res["mag"][0], n_terms)}
    if direction == "BWD_WB":
        out["diff_bia"] = (res["ref"][1], res["mag"][1], n_terms)
    return out


def gemm_expect(entry, t):
    prm = entry["params"]
    a, b = t["a"], t["b"]
    alpha, beta = prm["alpha"], prm["beta"]
    ref = alpha * (a @ b)
    mag = abs(alpha) * (a.abs() @ b.abs())
    if "c" in t:
        ref = ref + beta * t["c"]
        mag = mag + abs(beta) * t["c"].abs()
    return {"dst": (ref, mag, a.shape[1] + 1)}


def per_channel(v, ndim):
    return v.reshape([1, -1] + [1] * (ndim - 2))


def bnorm_backward_formula(x, mean, var, scale, dd, eps):
    """The training backward in float64: (diff_src, diff_scale, diff_shift,
    and their magnitudes)."""
    axes = [0] + list(range(2, x.ndim))
    m = x.numel() // x.shape[1]
    inv = per_channel(1.0 / torch.sqrt(var + eps), x.ndim)
    xhat = (x - per_channel(mean, x.ndim)) * inv
    d_shift = dd.sum(axes)
    d_scale = (dd * xhat).sum(axes)
    k = per_channel(scale, x.ndim) * inv
    d_src = k * (dd - per_channel(d_shift, x.ndim) / m
                 - xhat * per_channel(d_scale, x.ndim) / m)
    mag_shift = dd.abs().sum(axes)
    mag_scale = (dd * xhat).abs().sum(axes)
    mag_src = k.abs() * (dd.abs() + per_channel(mag_shift, x.ndim) / m
                         + xhat.abs() * per_channel(mag_scale, x.ndim) / m)
    return (d_src, mag_src), (d_scale, mag_scale), (d_shift, mag_shift)


def bnorm_autograd(x, scale, dd, eps):
    """torch.autograd through batch_norm(training=True): the gradients
    with respect to x, scale and shift, with src's own statistics."""
    x = x.clone().requires_grad_(True)
    w = scale.clone().requires_grad_(True)
    b = torch.zeros_like(scale, requires_grad=True)
    F.batch_norm(x, None, None, w, b, training=True, eps=eps).backward(dd)
    return x.grad, w.grad, b.grad


def batch_stats(x):
    axes = [0] + list(range(2, x.ndim))
    return x.mean(axes), x.var(axes, unbiased=False)


NOTES = {"formula_vs_autograd": 0.0, "direct_autograd": 0, "cases": 0,
         "controls": 0, "controls_caught": 0}


def bnorm_check_formula(x, mean, var, scale, dd, eps):
    """Autograd against the formula on x' = x rescaled to have the given
    batch mean and var; returns the largest relative difference."""
    mu, v = batch_stats(x)
    z = (x - per_channel(mu, x.ndim)) / per_channel(torch.sqrt(v), x.ndim)
    xp = z * per_channel(torch.sqrt(var), x.ndim) + per_channel(mean, x.ndim)
    got = bnorm_autograd(xp, scale, dd, eps)
    want = bnorm_backward_formula(xp, mean, var, scale, dd, eps)
    worst = 0.0
    for g, (w, mag) in zip(got, want):
        worst = max(worst, float(((g - w).abs() / (mag + 1e-300)).max()))
    return worst


def bnorm_expect(entry, t):
    eps = entry["params"]["eps"]
    x = t["src"]
    axes = [0] + list(range(2, x.ndim))
    m = x.numel() // x.shape[1]
    direction = entry["dir"]
    if direction in ("FWD_D", "FWD_I"):
        scale, shift = t["scale"], t["shift"]
        if direction == "FWD_D":
            mean, var = batch_stats(x)
        else:
            mean, var = t["mean"], t["var"]
        ref = F.batch_norm(x, mean, var, scale, shift, training=False, eps=eps)
        inv = per_channel(1.0 / torch.sqrt(var + eps), x.ndim)
        sq = (x * x).mean(axes) + mean * mean
        mag = per_channel(scale.abs(), x.ndim) * inv * (
            x.abs() + per_channel(mean.abs() + x.abs().mean(axes), x.ndim)
            + ((x - per_channel(mean, x.ndim)) * inv).abs() * inv * inv
            * per_channel(sq, x.ndim)) + per_channel(shift.abs(), x.ndim)
        if direction == "FWD_I":
            return {"dst": (ref, mag, 4)}
        if "training" not in NOTES:
            # torch's own training forward must agree with the batch
            # statistics used above.
            got = F.batch_norm(x, None, None, scale, shift, training=True,
                               eps=eps)
            NOTES["training"] = float((got - ref).abs().max())
        return {"dst": (ref, mag, m + 2), "mean": (mean, x.abs().mean(axes), m),
                "var": (var, sq, m + 2)}

    mean, var, scale, dd = t["mean"], t["var"], t["scale"], t["diff_dst"]
    src_r, scale_r, shift_r = bnorm_backward_formula(x, mean, var, scale, dd,
                                                     eps)
    NOTES["cases"] += 1
    NOTES["formula_vs_autograd"] = max(
        NOTES["formula_vs_autograd"],
        bnorm_check_formula(x, mean, var, scale, dd, eps))
    mu, v = batch_stats(x)
    if torch.allclose(mu, mean, rtol=1e-6) and torch.allclose(v, var, rtol=1e-6):
        NOTES["direct_autograd"] += 1
        src_r = (bnorm_autograd(x, scale, dd, eps)[0], src_r[1])
    out = {"diff_src": (src_r[0], src_r[1], m + 4)}
    if direction == "BWD_DW":
        out["diff_scale"] = (scale_r[0], scale_r[1], m + 2)
        out["diff_shift"] = (shift_r[0], shift_r[1], m)
    return out


EXPECT = {"conv2d": conv_expect, "conv3d": conv_expect, "gemm": gemm_expect,
          "bnorm": bnorm_expect}


def acc_eps(entry):
    return EPS["f64"] if entry["dtype"] == "f64" else EPS["f32"]


def check_entry(dumpdir, entry):
    """[(tensor, max_abs, max_ratio, ok)] for one manifest line."""
    tensors = entry["tensors"]
    inputs = {n: load(dumpdir, entry, n) for n, e in tensors.items()
              if e["role"] == "input"}
    expect = EXPECT[entry["kernel"]](entry, inputs)
    rows = []
    outputs = [n for n, e in tensors.items() if e["role"] == "output"]
    for name in sorted(set(outputs) | set(expect)):
        if name not in expect or name not in tensors:
            rows.append((name, float("nan"), float("inf"), False))
            continue
        ref, mag, length = expect[name]
        got = load(dumpdir, entry, name)
        if tuple(got.shape) != tuple(ref.shape):
            rows.append((name + " shape %s != %s" % (tuple(got.shape),
                                                     tuple(ref.shape)),
                         float("nan"), float("inf"), False))
            continue
        eps_out = EPS[tensors[name]["dtype"]]
        tol = (2 * eps_out * ref.abs() + (length + 2) * acc_eps(entry) * mag
               + 2 * FPMATH_EPS[entry["fpmath"]] * mag)
        diff = (got - ref).abs()
        finite = bool(torch.isfinite(got).all())
        ratio = torch.where(tol > 0, diff / torch.where(tol > 0, tol, 1.0),
                            torch.where(diff > 0, float("inf"), 0.0))
        max_abs = float(diff.max()) if finite else float("nan")
        max_ratio = float(ratio.max()) if finite else float("inf")
        rows.append((name, max_abs, max_ratio, finite and max_ratio <= 1.0))
        # Negative control: the element with the largest magnitude moved
        # by 1 % of it, about one term of a short sum, must fail.
        i = int(mag.argmax())
        bad = (got.flatten()[i] + 0.01 * mag.flatten()[i] - ref.flatten()[i]).abs()
        NOTES["controls"] += 1
        NOTES["controls_caught"] += bool(bad > tol.flatten()[i])
    return rows


def check_dir(dumpdir, out):
    """Check every manifest line under dumpdir; returns (passed, failed)."""
    passed = failed = 0
    manifest = os.path.join(dumpdir, "manifest.jsonl")
    if not os.path.exists(manifest):    # kbench stopped before any case
        return 0, 0
    with open(manifest) as f:
        entries = [json.loads(line) for line in f]
    for e in entries:
        for name, max_abs, ratio, ok in check_entry(dumpdir, e):
            passed += ok
            failed += not ok
            out.append("%-4s %-8s %-6s %-6s %-5s %-6s %-10s %-58s "
                       "max_abs=%-9.3g max_err/tol=%.3g"
                       % ("PASS" if ok else "FAIL", e["backend"], e["kernel"],
                          e["dir"], e["layout"], e["dtype"], name, e["desc"],
                          max_abs, ratio))
    return passed, failed


def run_cases(args, root, skipped, uncovered, errors):
    """Every case of CASES through kbench into a folder of root each;
    returns the folders.  SKIPPED cases go to skipped, f32 cases that no
    backend ran to uncovered."""
    dirs = []
    for kind, descs, directions in CASES:
        for direction in directions:
            for layout in LAYOUTS[kind]:
                for dt in args.dt.split(","):
                    if kind == "bnorm" and ":" in dt:
                        continue        # one type for src and dst
                    sub = os.path.join(root, "%s_%s_%s_%s" % (
                        kind, direction, layout or "rm", dt.replace(":", "-")))
                    cases = run_kbench(args.kbench, sub, kind, descs,
                                       direction, layout, dt, args.backends,
                                       errors)
                    for c in cases:
                        if c["status"] == "SKIPPED":
                            skipped.append("SKIP %-8s %-6s %-6s %-5s %-6s %s: %s"
                                           % (c["backend"], c["kernel"],
                                              c["dir"], c["layout"],
                                              c["dtype"], c["desc"],
                                              c.get("reason", "")))
                    ran = {c["desc"] for c in cases if c["status"] != "SKIPPED"}
                    uncovered += ["%s %s %s" % (c["desc"], c["dir"], c["layout"])
                                  for c in cases
                                  if c["desc"] not in ran and dt == "f32"]
                    dirs.append(sub)
    return dirs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kbench", default="build/default/kbench")
    ap.add_argument("--backends", default="omp,onednn,openblas")
    ap.add_argument("--dt", default="f32,bf16")
    ap.add_argument("--dir", help="check the dumps already in DIR (and its "
                    "subfolders holding a manifest.jsonl)")
    ap.add_argument("--keep", help="write the dumps here instead of a "
                    "temporary folder, and keep them")
    args = ap.parse_args()
    torch.set_num_threads(2)
    out, skipped, uncovered, errors = [], [], [], []
    passed = failed = 0
    root = None
    try:
        if args.dir:
            dirs = sorted(d for d, _, files in os.walk(args.dir)
                          if "manifest.jsonl" in files)
        else:
            root = args.keep or tempfile.mkdtemp(prefix="kb_torch_")
            if args.keep:
                shutil.rmtree(root, ignore_errors=True)
            dirs = run_cases(args, root, skipped, uncovered, errors)
        for d in dirs:
            p, f = check_dir(d, out)
            passed += p
            failed += f
    finally:
        if root and not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return report(out + errors, skipped, uncovered, passed, failed + len(errors))


def report(out, skipped, uncovered, passed, failed):
    """Print the results and notes; returns the exit status."""
    print("\n".join(out))
    if skipped:
        print("\nSKIPPED by kbench (no dump to check):")
        print("\n".join(sorted(set(skipped))))
    if uncovered:
        print("\nf32 cases that no backend ran:")
        print("\n".join(sorted(set(uncovered))))
    print("\nbnorm backward: explicit float64 formula checked against the "
          "dumps; the formula against torch.autograd(batch_norm, "
          "training=True) on rescaled data in %d cases, max difference over "
          "magnitude %.3g; autograd on the dumped data itself in %d cases "
          "(where src's batch statistics are the given mean/var)"
          % (NOTES["cases"], NOTES["formula_vs_autograd"],
             NOTES["direct_autograd"]))
    if "training" in NOTES:
        print("bnorm FWD_D: torch batch_norm(training=True) against the "
              "batch statistics used: max |difference| %.3g"
              % NOTES["training"])
    print("negative controls (one element moved by 1 %% of its magnitude): "
          "%d of %d caught" % (NOTES["controls_caught"], NOTES["controls"]))
    formula_ok = NOTES["formula_vs_autograd"] <= 1e-12
    controls_ok = NOTES["controls_caught"] == NOTES["controls"]
    print("torch %s: %d tensors passed, %d failed" % (torch.__version__,
                                                      passed, failed))
    if failed or not formula_ok or not controls_ok or uncovered or passed == 0:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
