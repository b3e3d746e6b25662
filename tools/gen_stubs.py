"""Regenerate the type stubs of the compiled module, python/seqlab/_core/*.pyi, from the built
module, so that editors (Pylance, jedi) complete seqlab._core's classes and functions with their
parameter names, defaults and types (the layout of torch's torch/_C/*.pyi beside torch/_C.so).

    python tools/gen_stubs.py          # rewrite python/seqlab/_core/*.pyi
    python tools/gen_stubs.py --check  # exit 1 if they differ from what the build gives

pybind11-stubgen (requirements-dev.txt) reads the signatures pybind11 writes into each docstring;
this script imports seqlab first, so the Tensor methods defined in Python (to, __getitem__, ...)
are in the stub too, and then fixes what the stub generator cannot know: the submodules name the
Tensor class without a module, and `dtype` is seqlab's enum, not NumPy's.
tests/test_stubs.py checks that the stubs declare every public name with the runtime's parameters."""
import argparse
import difflib
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
STUBS = ROOT / "python" / "seqlab" / "_core"


def generate(out_dir):
    """Run pybind11-stubgen on seqlab._core into out_dir; returns {file name: text}."""
    code = ("import seqlab, sys, pybind11_stubgen; "  # seqlab first: Python's Tensor methods exist
            "sys.argv = ['pybind11-stubgen', 'seqlab._core', '-o', sys.argv[1], "
            "'--enum-class-locations', 'dtype:seqlab._core', '--ignore-unresolved-names', '^(Tensor|dtype)$']; "
            "pybind11_stubgen.main()")
    subprocess.run([sys.executable, "-c", code, str(out_dir)], check=True, stderr=subprocess.DEVNULL)
    methods = subprocess.run([sys.executable, "-c", _PYTHON_METHODS], check=True, capture_output=True,
                             text=True).stdout
    files = {}
    for path in sorted((pathlib.Path(out_dir) / "seqlab" / "_core").glob("*.pyi")):
        files[path.name] = fix(path.name, path.read_text())
    text = files["__init__.pyi"]
    start = text.index("\nclass Tensor:")
    end = text.find("\nclass ", start + 1)
    end = len(text) if end < 0 else end
    tensor = text[start:end]
    aliases = {}
    for line in methods.splitlines():  # name<TAB>parameters, or name<TAB>=<TAB>the name it aliases
        name, params, *target = line.split("\t")
        if target:
            aliases[name] = target[0]
            continue
        tensor = re.sub(rf"(    @staticmethod\n)?    def {name}\(.*\):", lambda m: f"    def {name}({params}):", tensor)
    files["__init__.pyi"] = text[:start] + fold_aliases(tensor, aliases) + text[end:]
    return files


def fold_aliases(cls, aliases):
    """A Tensor method that is another one under a second name (arcsin is asin: the same function)
    is written `arcsin = asin` in the stub, as typeshed writes aliases, instead of a second copy."""
    lines = cls.split("\n")
    out, i = [], 0
    while i < len(lines):
        head = re.match(r"    def (\w+)\(", lines[i])
        end = i + 1
        if head and head.group(1) in aliases:
            while end < len(lines) and (not lines[end].strip() or lines[end].startswith("        ")):
                end += 1
            while not lines[end - 1].strip():
                end -= 1
            if out and out[-1].strip() == "@staticmethod":  # the generator's guess for a Python function
                out.pop()
            out.append(f"    {head.group(1)} = {aliases[head.group(1)]}")
        else:
            out.append(lines[i])
        i = end
    return "\n".join(out)


# Tensor methods written in Python as functions of `input` (Tensor.std = seqlab.std): the stub
# generator takes them for static methods, or gives them (*args, **kwargs); they are methods, with
# their real parameters and the first one as `self`. A function set under two names is an alias.
_PYTHON_METHODS = """
import inspect, types, seqlab
def default(v):
    return repr(v) if v is None or isinstance(v, (bool, int, float, str)) else '...'
first = {}
for name, f in sorted(vars(seqlab.Tensor).items()):
    if isinstance(f, types.FunctionType) and not name.startswith('__'):
        if id(f) in first:  # the same function under a second name: an alias
            print(name + '\\t=\\t' + first[id(f)])
            continue
        first[id(f)] = name
    if isinstance(f, types.FunctionType):
        ps = list(inspect.signature(f).parameters.values())
        if not ps or ps[0].name == 'self' or ps[0].kind not in (ps[0].POSITIONAL_ONLY, ps[0].POSITIONAL_OR_KEYWORD):
            continue
        out, star = ['self'], False
        for p in ps[1:]:
            if p.kind == p.KEYWORD_ONLY and not star:
                out.append('*'); star = True
            text = ('*' if p.kind == p.VAR_POSITIONAL else '**' if p.kind == p.VAR_KEYWORD else '') + p.name
            if p.kind == p.VAR_POSITIONAL:
                star = True
            if p.default is not p.empty:
                text += ' = ' + default(p.default)
            out.append(text)
        print(name + '\\t' + ', '.join(out))
"""


def fold_properties(text):
    """A read-write field (pybind11's def_readwrite, or a property whose setter takes what its
    getter returns) is `name: T` in the stub, as typeshed writes attributes, instead of a getter and
    a setter. A property with a narrower setter, a docstring or no setter stays a property."""
    pattern = re.compile(r"( +)@property\n\1def (\w+)\(self\) -> ([^:\n]+):\n\1    \.\.\.\n"
                         r"\1@\2\.setter\n\1def \2\(self, \w+: ([^)\n]+)\) -> None:\n\1    \.\.\.\n")
    return pattern.sub(lambda m: f"{m.group(1)}{m.group(2)}: {m.group(3)}\n"
                       if _SETTER_TAKES.get(m.group(3), m.group(3)) == m.group(4) else m.group(0), text)


# what pybind11 writes for a setter's argument of a getter's type: an int field takes any integer-like
_SETTER_TAKES = {"int": "typing.SupportsInt | typing.SupportsIndex",
                 "float": "typing.SupportsFloat | typing.SupportsIndex"}


def fix(name, text):
    text = fold_properties(text)
    # seqlab's dtype enum, which the generator takes for NumPy's
    text = text.replace("numpy.dtype[typing.Any]", "dtype")
    # torch's random_/uniform_ take `from`, a Python keyword: torch's own stubs spell it from_
    text = re.sub(r"([(,] ?)from: ", r"\1from_: ", text)
    if name != "__init__.pyi":
        # a submodule names Tensor and dtype as the parent module defines them
        text = re.sub(r"(\nimport typing\n)", r"\1from seqlab._core import Tensor, dtype\n", text, count=1)
        text = text.replace("seqlab._core.dtype.", "dtype.")
    else:
        text = text.replace("seqlab._core.dtype.", "dtype.")
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        files = generate(tmp)
    if args.check:
        stale = False
        for name, text in files.items():
            old = (STUBS / name).read_text() if (STUBS / name).exists() else ""
            if old != text:
                stale = True
                sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True), name, name, n=1))
        return 1 if stale else 0
    STUBS.mkdir(exist_ok=True)
    for old in STUBS.glob("*.pyi"):
        old.unlink()
    for name, text in files.items():
        (STUBS / name).write_text(text)
    print(f"wrote {len(files)} stubs to {STUBS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
