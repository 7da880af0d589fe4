"""Stand-in for Spack's ROCmPackage mixin (spack_repo.builtin.build_systems.
rocm): the directives it declares, recorded as the recipe's own are."""
from spack.package import conflicts, depends_on, variant


class ROCmPackage:
    variant("rocm", default=False, description="Enable ROCm support")
    variant("amdgpu_target", default="none", multi=True,
            description="AMD GPU architecture")
    depends_on("hip +rocm", when="+rocm")
    conflicts("amdgpu_target=none", when="+rocm")
