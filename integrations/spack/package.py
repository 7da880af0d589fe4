# integrations/spack/package.py - Spack (1.x) recipe for kbench: one variant
# per backend switch and per GPU target list, mapped to kbench's CMake.
#
# kbench has no public repository yet: put this file in a site package
# repository as packages/kbench/package.py and build a clone with
#   spack develop --path /path/to/kbench kbench@=main && spack install
# (or add `git = "<your clone's URL>"` below).  docs/integrations/spack.md says more.
# integrations/spack/ci-check.sh checks that the variants below match the
# CMake options and that the data directories are the ones CMake installs.

from spack_repo.builtin.build_systems.cmake import CMakePackage
from spack_repo.builtin.build_systems.cuda import CudaPackage
from spack_repo.builtin.build_systems.rocm import ROCmPackage

from spack.package import *

import json

# variant -> the CMake option it sets, ON for +variant and OFF for ~variant.
# Every backend is set explicitly: nothing is left to what CMake happens to
# find on the build host.  `cuda` and `rocm` are CudaPackage's and
# ROCmPackage's variants.
BACKEND_OPTIONS = {
    "openblas": "KB_WITH_OPENBLAS",
    "onednn": "KB_WITH_ONEDNN",
    "cuda": "KBENCH_CUDA",
    "rocm": "KBENCH_HIP",
    "gpusim": "KBENCH_GPUSIM",
}
# Which backends each option builds is kbench's own table, installed as
# share/kbench/backends/backends.txt (NAME SWITCH DEVICE per line).
# The GPU targets: variant -> (the backend variant it serves, the CMake
# list it sets, with +that variant only).
TARGET_OPTIONS = {
    "cuda_arch": ("cuda", "CMAKE_CUDA_ARCHITECTURES"),
    "amdgpu_target": ("rocm", "KBENCH_HIP_ARCHITECTURES"),
}


class Kbench(CMakePackage, CudaPackage, ROCmPackage):
    """Compute-kernel microbenchmarks (conv2d/3d, GEMM, batchnorm of
    ResNet-50, CosmoFlow and DeepCAM) on hand-written OpenMP C, CUDA and
    HIP and on vendor libraries, each result validated against a
    reference."""

    version("main", branch="main")

    variant("openblas", default=True, description="OpenBLAS backend (GEMM)")
    variant("onednn", default=True,
            description="oneDNN backends (conv, GEMM, batchnorm)")
    variant("gpusim", default=True,
            description="gpusim backend: the hand-written GPU kernels run on "
                        "the CPU, for correctness only (needs a C++ compiler)")

    depends_on("c", type="build")
    depends_on("cxx", type="build", when="+gpusim")
    depends_on("cmake@3.25:", type="build")
    depends_on("pkgconfig", type="build")  # finds cJSON and OpenBLAS
    depends_on("cjson")

    depends_on("openblas", when="+openblas")  # through its openblas.pc
    # through its dnnl CMake config; the C APIs the backend builds against
    # (backends/onednn/onednn_compat.c): 2.6 to 3.x
    depends_on("onednn@2.6:3", when="+onednn")
    # +cuda: cuda, cublas, cudnn (CUDA 13 is what kbench is tested with)
    depends_on("cuda@12:", when="+cuda")
    depends_on("cudnn@9:", when="+cuda")
    # +rocm: hip, rocblas, miopen
    depends_on("hip", when="+rocm")
    depends_on("rocblas", when="+rocm")
    depends_on("miopen-hip", when="+rocm")
    conflicts("cuda_arch=none", when="+cuda",
              msg="kbench+cuda builds for the GPUs named: set cuda_arch "
                  "(e.g. cuda_arch=90 for H100/H200)")

    # `cmake --install` puts the program in bin/ and every data file
    # declared with kb_data() under share/kbench/<subdir>/, where the
    # installed kbench finds them (../share/kbench from its own directory).
    sanity_check_is_file = ["bin/kbench"]
    sanity_check_is_dir = ["share/kbench/backends", "share/kbench/catalog",
                           "share/kbench/io", "share/kbench/peaks"]

    def cmake_args(self):
        # Spack's compiler wrappers already compile for spec.target;
        # -march=native would compile for whichever host built it.
        args = [self.define("KB_NATIVE", False)]
        for variant, option in BACKEND_OPTIONS.items():
            args.append(self.define_from_variant(option, variant))
        for variant, (backend, option) in TARGET_OPTIONS.items():
            if self.spec.satisfies(f"+{backend}"):
                args.append(self.define_from_variant(option, variant))
        return args

    @run_after("install")
    def check_backends(self):
        """Fails the install (InstallError, naming them) when a backend that
        was asked for is missing from the installed kbench: CMake skips a
        backend whose library it cannot use, which here means a broken
        dependency, not a choice."""
        kbench = Executable(join_path(self.prefix.bin, "kbench"))
        listing = json.loads(kbench("list", "backends", "--json", output=str))
        built = {b["name"] for b in listing}
        on = {option for variant, option in BACKEND_OPTIONS.items()
              if self.spec.satisfies(f"+{variant}")}
        wanted = set()
        table = join_path(self.prefix.share, "kbench", "backends",
                          "backends.txt")
        with open(table) as f:
            for line in f:
                fields = line.split("#")[0].split()
                if fields and fields[1] in on:
                    wanted.add(fields[0])
        missing = sorted(wanted - built)
        if missing:
            raise InstallError(
                f"kbench was built without {', '.join(missing)}: "
                f"`kbench list backends` lists only {sorted(built)}")
