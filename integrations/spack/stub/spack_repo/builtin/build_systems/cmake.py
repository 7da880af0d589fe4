"""Stand-in for Spack's CMakePackage (spack_repo.builtin.build_systems.cmake):
the spec and prefix check-recipe.py gives it, and define() and
define_from_variant() writing -D arguments as Spack writes them."""


class CMakePackage:
    def __init__(self, spec, prefix=None):
        self.spec = spec
        self.prefix = prefix

    @staticmethod
    def define(name, value):
        if isinstance(value, bool):
            return f"-D{name}:BOOL={'ON' if value else 'OFF'}"
        if isinstance(value, (list, tuple)):  # a multi-valued variant
            value = ";".join(str(v) for v in value)
        return f"-D{name}:STRING={value}"

    def define_from_variant(self, name, variant):
        """Raises KeyError for a variant the recipe does not declare, as
        Spack refuses it."""
        return self.define(name, self.spec.variants[variant])
