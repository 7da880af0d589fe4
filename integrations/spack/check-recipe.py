#!/usr/bin/env python3
"""check-recipe.py - does the Spack recipe match kbench's CMake?

    check-recipe.py RECIPE SOURCE-DIR [--install BUILD-DIR]

Imports RECIPE with the stand-in Spack modules in stub/ and checks, against
the CMake files under SOURCE-DIR:
- every switch CMake declares (option() or a CACHE variable named KB_WITH_*
  or KBENCH_*) is set by some variant: a backend variant's entry in
  BACKEND_OPTIONS, or a GPU target variant's (cuda_arch, amdgpu_target) in
  TARGET_OPTIONS; every variant, the mixins' (CudaPackage, ROCmPackage)
  included, is one of them, and every option they name exists;
- cmake_args() passes each backend option ON for +variant and OFF for
  ~variant, each target list with its backend variant on and not without
  it, and KB_NATIVE OFF; every backend variant has a dependency; every
  switch of backends/backends.txt (which backends an option builds, read
  by CMake and by the recipe's after-install check) is a variant's;
- the share/kbench directories the recipe's sanity check expects are the
  kb_data() directories CMake installs;
- the recipe's oneDNN versions are those backends/onednn/CMakeLists.txt
  builds against (its VERSION_LESS bounds).
--install BUILD-DIR also installs that build (cmake --install) into a
temporary prefix, checks every sanity path there and runs the recipe's
after-install backend check on it, with each variant on whose backends
the build has (printed), which must pass, and fail for a backend that was
not built.
Prints one line per failed check; exit 0 when all hold, 1 otherwise.
"""
import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SWITCH = re.compile(r"\b(?:option\s*\(\s*(KB_WITH_\w+|KBENCH_\w+)"
                    r"|set\s*\(\s*(KB_WITH_\w+|KBENCH_\w+)\s+[^)]*\bCACHE\b)")
KB_DATA = re.compile(r"^\s*kb_data\s*\(\s*(\w+)", re.M)
SKIP_DIRS = {".git", "build", "out"}  # build trees hold generated CMake
failures = []


def expect(ok, what):
    if not ok:
        failures.append(what)
    return ok


class Spec:
    """The part of a Spack spec the recipe reads: variants, satisfies()."""

    def __init__(self, variants):
        self.variants = variants

    def satisfies(self, constraint):
        sign, name = constraint[0], constraint[1:]
        return self.variants.get(name) is (sign == "+")


class Prefix(str):
    """An install prefix whose attributes are its subdirectories."""

    def __getattr__(self, name):
        return Prefix(os.path.join(self, name))


def load_recipe(path):
    """The recipe module and the directives its class body called."""
    sys.dont_write_bytecode = True  # no __pycache__ left in the checkout
    sys.path.insert(0, os.path.join(HERE, "stub"))
    from spack import package as stub
    spec = importlib.util.spec_from_file_location("kbench_recipe", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, stub.DIRECTIVES


def cmake_files(source):
    for root, dirs, files in os.walk(source):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for name in files:
            if name == "CMakeLists.txt" or name.endswith(".cmake"):
                yield os.path.join(root, name)


def scan_cmake(source):
    """The backend switches and kb_data() directories CMake declares."""
    switches, data_dirs = {}, set()
    for path in cmake_files(source):
        with open(path, encoding="utf-8") as f:
            text = "\n".join(line.split("#", 1)[0] for line in f)
        for m in SWITCH.finditer(text):
            switches[m.group(1) or m.group(2)] = os.path.relpath(path, source)
        data_dirs.update(KB_DATA.findall(text))
    return switches, data_dirs


def package_class(module):
    (cls,) = [v for v in vars(module).values()
              if isinstance(v, type) and v.__module__ == module.__name__]
    return cls


def backend_table(path):
    """{backend: switch} of a backends.txt."""
    table = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.split("#")[0].split()
            if fields:
                table[fields[0]] = fields[1]
    return table


def check_variants(module, directives, switches, table):
    options, targets = module.BACKEND_OPTIONS, module.TARGET_OPTIONS
    variants = {a[0] for d, a, _ in directives if d == "variant"}
    for v in list(options) + list(targets):
        expect(v in variants, f"no variant {v!r}")
    for b, switch in sorted(table.items()):
        expect(switch == "-" or switch in options.values(),
               f"backend {b!r}'s switch {switch} (backends/backends.txt) "
               "is no variant's (BACKEND_OPTIONS)")
    for v in sorted(variants - set(options) - set(targets)):
        expect(False, f"variant {v!r} sets no CMake option "
               "(BACKEND_OPTIONS, TARGET_OPTIONS)")
    for v in sorted((set(options) | set(targets)) - variants):
        expect(False, f"{v!r} is mapped to a CMake option but is no variant")
    by_option = {opt: v for v, opt in options.items()}
    by_option.update({opt: v for v, (_, opt) in targets.items()})
    for opt, where in sorted(switches.items()):
        expect(opt in by_option, f"CMake option {opt} ({where}) has no variant")
    for opt, v in sorted(by_option.items()):
        # CMAKE_* are CMake's own (CMAKE_CUDA_ARCHITECTURES)
        expect(opt in switches or opt.startswith("CMAKE_"),
               f"variant {v!r} sets {opt}, which no CMake file declares")
    for v, (backend, _) in sorted(targets.items()):
        expect(backend in options,
               f"target variant {v!r} serves {backend!r}, no backend variant")
    needs = {kw.get("when") for d, _, kw in directives if d == "depends_on"}
    for v in sorted(options):
        expect(f"+{v}" in needs, f"variant {v!r} has no depends_on(when='+{v}')")


ONEDNN_RANGE = re.compile(r"dnnl_VERSION\s+VERSION_LESS\s+([\d.]+)\s+OR\s+NOT\s+"
                          r"dnnl_VERSION\s+VERSION_LESS\s+(\d+)\b")


def check_onednn_versions(module, directives, source):
    """KB_WITH_ONEDNN's variant depends on versions LOW:TOP where CMake
    skips a dnnl_VERSION below LOW or from TOP+1 on."""
    bounds = []
    for path in cmake_files(source):
        with open(path, encoding="utf-8") as f:
            bounds += ONEDNN_RANGE.findall(f.read())
    if not expect(len(bounds) == 1, f"oneDNN version bounds in {source}'s "
                  f"CMake: {bounds}, expected one pair"):
        return
    want = f"{bounds[0][0]}:{int(bounds[0][1]) - 1}"
    variant = {o: v for v, o in module.BACKEND_OPTIONS.items()}.get("KB_WITH_ONEDNN")
    given = [a[0] for d, a, kw in directives
             if d == "depends_on" and a and kw.get("when") == f"+{variant}"]
    expect([g.partition("@")[2] for g in given] == [want],
           f"the recipe's +{variant} depends on {given}, CMake builds against "
           f"@{want}")


def check_cmake_args(module):
    cls = package_class(module)
    targets = module.TARGET_OPTIONS
    for on in (True, False):
        spec = Spec(dict({v: on for v in module.BACKEND_OPTIONS},
                         cuda_arch=("80", "90"), amdgpu_target=("gfx90a",)))
        try:
            args = cls(spec).cmake_args()
        except KeyError as e:
            expect(False, f"cmake_args() reads undeclared variant {e}")
            continue
        expect("-DKB_NATIVE:BOOL=OFF" in args, "cmake_args() leaves KB_NATIVE on")
        state = "ON" if on else "OFF"
        for v, opt in module.BACKEND_OPTIONS.items():
            expect(f"-D{opt}:BOOL={state}" in args,
                   f"cmake_args() for {'+' if on else '~'}{v} lacks "
                   f"-D{opt}:BOOL={state}: {args}")
        for v, (backend, opt) in targets.items():
            given = [a for a in args if a.startswith(f"-D{opt}:")]
            want = [f"-D{opt}:STRING={';'.join(spec.variants[v])}"] if on else []
            expect(given == want, f"cmake_args() for "
                   f"{'+' if on else '~'}{backend} passes {given} for {v}, "
                   f"expected {want}")


def check_data_dirs(module, data_dirs):
    cls = package_class(module)
    share = {d.split("/", 2)[2] for d in cls.sanity_check_is_dir
             if d.startswith("share/kbench/")}
    expect(share == data_dirs, "sanity_check_is_dir has share/kbench/"
           f"{sorted(share)}, CMake installs kb_data() {sorted(data_dirs)}")


def check_install(module, build_dir):
    """Installs build_dir and runs the recipe's checks on the install."""
    cls = package_class(module)
    with tempfile.TemporaryDirectory(prefix="kbench-spack-") as tmp:
        prefix = Prefix(tmp)
        subprocess.run(["cmake", "--install", build_dir, "--prefix", prefix],
                       check=True, stdout=subprocess.DEVNULL)
        for rel in cls.sanity_check_is_file:
            expect(os.path.isfile(os.path.join(prefix, rel)),
                   f"installed prefix lacks the file {rel}")
        for rel in cls.sanity_check_is_dir:
            path = os.path.join(prefix, rel)
            expect(os.path.isdir(path) and os.listdir(path),
                   f"installed prefix lacks the directory {rel} or it is empty")
        listing = subprocess.run(
            [os.path.join(prefix, "bin", "kbench"), "list", "backends",
             "--json"], check=True, text=True, stdout=subprocess.PIPE).stdout
        built = {b["name"] for b in json.loads(listing)}
        table_path = os.path.join(prefix, "share", "kbench", "backends",
                                  "backends.txt")
        table = backend_table(table_path)
        live = {v: all(b in built for b, s in table.items() if s == opt)
                for v, opt in module.BACKEND_OPTIONS.items()}
        print("check-recipe: install check with "
              + " ".join(("+" if on else "~") + v for v, on in live.items()))
        try:
            cls(Spec(live), prefix).check_backends()
        except module.InstallError as e:
            expect(False, f"check_backends() on {build_dir}'s install: {e}")
        # and it catches a backend that was asked for but not built
        with open(table_path, "a", encoding="utf-8") as f:
            f.write("nosuch KB_WITH_NOSUCH cpu\n")
        module.BACKEND_OPTIONS["nosuch"] = "KB_WITH_NOSUCH"
        try:
            cls(Spec(dict(live, nosuch=True)), prefix).check_backends()
            expect(False, "check_backends() passed a backend not built")
        except module.InstallError as e:
            expect("nosuch" in str(e), f"check_backends() said {e}")
        finally:
            del module.BACKEND_OPTIONS["nosuch"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("recipe")
    p.add_argument("source")
    p.add_argument("--install", metavar="BUILD-DIR")
    args = p.parse_args()
    module, directives = load_recipe(args.recipe)
    switches, data_dirs = scan_cmake(args.source)
    expect(switches, f"no backend option found in {args.source}'s CMake")
    table = backend_table(os.path.join(args.source, "backends",
                                       "backends.txt"))
    check_variants(module, directives, switches, table)
    check_onednn_versions(module, directives, args.source)
    check_cmake_args(module)
    check_data_dirs(module, data_dirs)
    if args.install:
        check_install(module, args.install)
    for f in failures:
        print(f"check-recipe: FAIL {f}")
    print(f"check-recipe: {args.recipe}: BACKEND_OPTIONS "
          f"{sorted(module.BACKEND_OPTIONS)}, TARGET_OPTIONS "
          f"{sorted(module.TARGET_OPTIONS)}, CMake options "
          f"{sorted(switches)}: {len(failures)} failure(s)"
          + (f", installed {args.install}" if args.install else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
