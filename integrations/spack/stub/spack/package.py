"""Stand-in for Spack's `spack.package`, enough to import kbench's recipe
without Spack (integrations/spack/check-recipe.py): each directive the
class body calls is recorded in DIRECTIVES, in order, and does nothing
else.  Executable runs a program as Spack's does for `output=str`."""
import os
import subprocess

DIRECTIVES = []  # (directive, args, kwargs)


def _directive(name):
    def record(*args, **kwargs):
        DIRECTIVES.append((name, args, kwargs))
    record.__name__ = name
    return record


version = _directive("version")
variant = _directive("variant")
depends_on = _directive("depends_on")
conflicts = _directive("conflicts")
requires = _directive("requires")
maintainers = _directive("maintainers")
license = _directive("license")


def run_after(phase, when=None):
    """Marks the method; check-recipe.py calls it itself."""
    def mark(method):
        method.run_after = phase
        return method
    return mark


class InstallError(Exception):
    pass


def join_path(*parts):
    return os.path.join(*parts)


class Executable:
    def __init__(self, path):
        self.path = path

    def __call__(self, *args, output=None):
        """Raises CalledProcessError when the program fails, as Spack's
        raises ProcessError."""
        run = subprocess.run([self.path, *args], check=True, text=True,
                             stdout=subprocess.PIPE if output is str else None)
        return run.stdout


__all__ = ["version", "variant", "depends_on", "conflicts", "requires",
           "maintainers", "license", "run_after", "InstallError",
           "join_path", "Executable"]
