"""Stand-in for Spack's CudaPackage mixin (spack_repo.builtin.build_systems.
cuda): the directives it declares, recorded as the recipe's own are."""
from spack.package import depends_on, variant


class CudaPackage:
    variant("cuda", default=False, description="Build with CUDA")
    variant("cuda_arch", default="none", multi=True,
            description="CUDA architecture")
    depends_on("cuda", when="+cuda")
