"""The optional extras (seqlab[onnx], seqlab[tensorboard]): their packages are imported when first
used, and a missing one is a ModuleNotFoundError that names the extra installing it.
A leaf module: it imports nothing from seqlab itself (`module` may name one of seqlab's modules
that imports the package). Tested in tests/test_onnx.py and test_tensorboard.py."""
import importlib


def require(module, extra, user, package=None):
    """Import and return `module` (a dotted name), which needs the package `package` (by default
    the first part of `module`) that `pip install seqlab[extra]` installs. `user` begins the error:
    "<user> the <package> package, which is not installed: pip install seqlab[<extra>]". When the
    package is there but a module it imports is not (its own dependency), the error names that one."""
    package = package or module.partition(".")[0]
    try:
        return importlib.import_module(module)
    except ImportError as e:
        missing = e.name or package
        if missing == package or missing.startswith(package + "."):
            why = f"which is not installed: pip install seqlab[{extra}]"
        else:
            why = (f"which is installed but cannot import {missing!r}, a module it needs ({e}): install it, "
                   f"or reinstall the extra: pip install seqlab[{extra}]")
        raise ModuleNotFoundError(f"{user} the {package} package, {why}", name=missing) from e
