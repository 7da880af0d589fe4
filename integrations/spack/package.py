# integrations/spack/package.py - Spack (1.x) recipe for kbench: one variant
# per backend, mapped to kbench's CMake switches.
#
# kbench has no public repository yet: put this file in a site package
# repository as packages/kbench/package.py and build a clone with
#   spack develop --path /path/to/kbench kbench@=main && spack install
# (or add `git = "<your clone's URL>"` below).  README.md, "Spack", says more.
# integrations/spack/ci-check.sh checks that the variants below match the
# CMake options and that the data directories are the ones CMake installs.

from spack_repo.builtin.build_systems.cmake import CMakePackage

from spack.package import *

# variant -> the CMake option it sets, ON for +variant and OFF for ~variant.
# Every backend is set explicitly: nothing is left to what CMake happens to
# find on the build host.
BACKEND_OPTIONS = {
    "openblas": "KB_WITH_OPENBLAS",
    "onednn": "KB_WITH_ONEDNN",
    "cuda": "KBENCH_CUDA",
    "rocm": "KBENCH_HIP",
}
# Backends whose CMake option does not exist yet (the GPU backends: the
# names are those their issue proposes).  Asking for one is refused at
# concretization with the reason, rather than building a CPU-only kbench;
# when the option lands, drop the variant from here.
PENDING = {
    "cuda": "kbench has no CUDA backend yet (CMake option KBENCH_CUDA)",
    "rocm": "kbench has no HIP/ROCm backend yet (CMake option KBENCH_HIP)",
}


class Kbench(CMakePackage):
    """Compute-kernel microbenchmarks (conv2d/3d, GEMM, batchnorm of
    ResNet-50, CosmoFlow and DeepCAM) on hand-written OpenMP C and vendor
    libraries, each result validated against a reference."""

    version("main", branch="main")

    variant("openblas", default=True, description="OpenBLAS backend (GEMM)")
    variant("onednn", default=True,
            description="oneDNN backends (conv, GEMM, batchnorm)")
    variant("cuda", default=False,
            description="CUDA backends (hand-written, cuBLAS, cuDNN)")
    variant("rocm", default=False,
            description="HIP backends (hand-written, rocBLAS, MIOpen)")

    depends_on("c", type="build")
    depends_on("cmake@3.25:", type="build")
    depends_on("pkgconfig", type="build")  # finds cJSON and OpenBLAS
    depends_on("cjson")

    depends_on("openblas", when="+openblas")  # through its openblas.pc
    depends_on("onednn", when="+onednn")      # through its dnnl CMake config
    depends_on("cuda@12:", when="+cuda")
    depends_on("cudnn@9:", when="+cuda")
    depends_on("hip", when="+rocm")
    depends_on("rocblas", when="+rocm")
    depends_on("miopen-hip", when="+rocm")

    for _variant, _why in PENDING.items():
        conflicts(f"+{_variant}", msg=_why)

    # `cmake --install` puts the program in bin/ and every data file
    # declared with kb_data() under share/kbench/<subdir>/, where the
    # installed kbench finds them (../share/kbench from its own directory).
    sanity_check_is_file = ["bin/kbench"]
    sanity_check_is_dir = ["share/kbench/catalog", "share/kbench/io",
                           "share/kbench/peaks"]

    def cmake_args(self):
        # Spack's compiler wrappers already compile for spec.target;
        # -march=native would compile for whichever host built it.
        args = [self.define("KB_NATIVE", False)]
        for variant, option in BACKEND_OPTIONS.items():
            if variant not in PENDING:
                args.append(self.define_from_variant(option, variant))
        return args

    @run_after("install")
    def check_backends(self):
        """Fails the install (InstallError, naming them) when a backend that
        was asked for is missing from the installed kbench: CMake skips a
        backend whose library it cannot use, which here means a broken
        dependency, not a choice."""
        kbench = Executable(join_path(self.prefix.bin, "kbench"))
        listing = kbench("list", "backends", output=str)
        built = {line.split()[0] for line in listing.splitlines()
                 if line and not line[0].isspace()}
        wanted = {v for v in BACKEND_OPTIONS
                  if v not in PENDING and self.spec.satisfies(f"+{v}")}
        missing = sorted(wanted - built)
        if missing:
            raise InstallError(
                f"kbench was built without {', '.join(missing)}: "
                f"`kbench list backends` lists only {sorted(built)}")
