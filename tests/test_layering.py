"""The layering rule of DESIGN.md, checked on the sources: the C++ include graph runs one way,
tensor <- autograd <- ops <- nn / optim / lm / embed <- bindings, and no module of the Python
package imports the package's front door (`import seqlab`), so its import order cannot cycle."""
import ast
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
CPP = ROOT / "cpp"
PACKAGE = ROOT / "python" / "seqlab"

# Rank of each part of the C++ core; a file may include only files of its own rank or lower,
# and at rank 3 only its own family (nn does not include optim, lm does not include embed).
# The base: the tensor and what it stands on (checks, dtypes, options fields, threads, SIMD kernels, BLAS,
# the kernel helpers and the copy kernels, which record no graph) and text encoding, which needs no
# tensor at all.
BASE = {"tensor", "tensor_copy", "check", "dtype", "half", "default_dtype", "arg", "parallel", "memory", "blas", "lapack",
        "kernel_utils", "simd", "text"}
FAMILIES = {"nn", "optim", "lm", "embed"}


def part_of(path, cpp=CPP):
    """(rank, family) of a C++ file under cpp/include/seqlab, cpp/src or cpp/python."""
    rel = path.relative_to(cpp)
    top, parts = rel.parts[0], list(rel.parts[1:])
    if top == "python":
        return 5, "bindings"
    if top == "include":
        parts = parts[1:]  # include/seqlab/...
    elif top != "src":
        raise ValueError(f"not a core source: {path}")
    head = parts[0] if len(parts) > 1 else pathlib.Path(parts[0]).stem
    if head == "seqlab":  # seqlab.hpp: every public header, for users and the bindings
        return 4, "all"
    if head in BASE:
        return 0, "base"
    if head == "autograd":
        return 1, "autograd"
    if head == "ops":
        return 2, "ops"
    if head in FAMILIES:
        return 3, head
    raise ValueError(f"{rel}: no layer is assigned to '{head}'; add it to tests/test_layering.py")


def resolve(include, source):
    """The file an #include "..." names: beside the source, under cpp/src, or cpp/include."""
    for base in (source.parent, CPP / "src", CPP / "include"):
        candidate = (base / include).resolve()
        if candidate.is_file():
            return candidate
    return None


def core_sources():
    for sub in ("include", "src", "python"):
        yield from sorted(p for p in (CPP / sub).rglob("*") if p.suffix in (".hpp", ".cpp", ".h"))


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def test_every_core_file_has_a_layer():
    for path in core_sources():
        part_of(path)  # raises for a file in a folder no layer claims


def may_include(source_part, target_part):
    (rank, family), (t_rank, t_family) = source_part, target_part
    return t_rank < rank or (t_rank == rank and (rank != 3 or t_family == family))


def test_cpp_includes_run_one_way():
    wrong = []
    for source in core_sources():
        for name in INCLUDE.findall(source.read_text()):
            target = resolve(name, source)
            assert target is not None, f"{source.relative_to(ROOT)}: cannot find #include \"{name}\""
            if not may_include(part_of(source), part_of(target)):
                wrong.append(f"{source.relative_to(ROOT)} {part_of(source)} includes {name} {part_of(target)}")
    assert not wrong, "includes that run against the layering (see DESIGN.md):\n" + "\n".join(wrong)


def test_tensor_and_autograd_include_no_op_header():
    # The two rules the issue that set up the layering named: tensor.cpp includes no ops
    # header, and autograd reaches ops only through its narrow declaration file.
    for source in [CPP / "src" / "tensor.cpp", *sorted((CPP / "src" / "autograd").glob("*"))]:
        for name in INCLUDE.findall(source.read_text()):
            assert "ops/" not in name, f"{source.relative_to(ROOT)} includes {name}"


def test_the_check_refuses_upward_and_sideways_includes():
    engine, elementwise = CPP / "src" / "autograd" / "engine.cpp", CPP / "include" / "seqlab" / "ops" / "elementwise.hpp"
    layers, optimizer = CPP / "src" / "nn" / "layers.cpp", CPP / "include" / "seqlab" / "optim" / "optimizer.hpp"
    bind_ops, tensor = CPP / "python" / "bind_ops.cpp", CPP / "include" / "seqlab" / "tensor.hpp"
    assert not may_include(part_of(engine), part_of(elementwise))  # autograd -> ops: up
    assert not may_include(part_of(layers), part_of(optimizer))    # nn -> optim: sideways
    assert not may_include(part_of(tensor), part_of(bind_ops))     # tensor -> bindings: up
    assert may_include(part_of(elementwise), part_of(tensor))
    assert may_include(part_of(bind_ops), part_of(layers))


def front_door_imports(source, depth):
    """Lines of a module's `source` that import the package itself (`import seqlab`,
    `from seqlab import x`, `from .. import x` at the package's top level) rather than the
    module that defines x. depth: 1 for seqlab/x.py, 2 for seqlab/data/x.py."""
    tree = ast.parse(source)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [node.lineno for a in node.names if a.name == "seqlab"]
        elif isinstance(node, ast.ImportFrom):
            top_level = (node.level == 0 and node.module == "seqlab") or (node.level == depth and node.module is None)
            if top_level:
                # `from .. import _core` / `from . import nn` name modules: allowed. (_core is
                # compiled; an editable install keeps it in the build directory.)
                modules = {p.name.split(".")[0] for p in PACKAGE.iterdir()} | {"_core"}
                if any(a.name not in modules for a in node.names):
                    found.append(node.lineno)
    return found


# Every module but the front door itself and the demo (an application, written as a user writes it).
LOWER_MODULES = sorted(p for p in PACKAGE.rglob("*.py")
                       if p.relative_to(PACKAGE).as_posix() not in ("__init__.py", "demo.py"))


@pytest.mark.parametrize("path", LOWER_MODULES, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_python_modules_do_not_import_the_front_door(path):
    lines = front_door_imports(path.read_text(), len(path.relative_to(PACKAGE).parts))
    assert not lines, f"seqlab/{path.relative_to(PACKAGE)} imports the package itself at line(s) {lines}"


def test_the_front_door_check_sees_every_spelling():
    for text, expected in [("import seqlab\n", [1]), ("from seqlab import tensor\n", [1]),
                           ("x = 1\nfrom .. import tensor\n", [2]), ("from .. import _core\n", []),
                           ("from .._tensor import tensor\n", []), ("from . import vocab\n", [])]:
        assert front_door_imports(text, depth=2) == expected, text


def test_the_ops_autograd_calls_are_defined_where_their_declarations_are_seen():
    """cpp/src/autograd/ops_used.hpp declares the few ops the autograd side calls (it may not
    include ops headers). Every file that defines one includes that header, so a definition whose
    return type drifts from the declaration fails to compile instead of linking to another overload."""
    header = CPP / "src" / "autograd" / "ops_used.hpp"
    declared = re.findall(r"^\s*Tensor&?\s+(\w+)\(", header.read_text(), re.M)
    assert len(declared) >= 8, declared
    for name in declared:
        definition = re.compile(rf"^Tensor&?\s+{name}\([^;]*?\)\s*\{{", re.M | re.S)
        defining = [p for p in sorted((CPP / "src" / "ops").glob("*.cpp")) if definition.search(p.read_text())]
        assert defining, f"{name}, declared in ops_used.hpp, is defined in no file under cpp/src/ops/"
        for path in defining:
            assert '#include "autograd/ops_used.hpp"' in path.read_text(), \
                f"{path.relative_to(ROOT)} defines {name} but does not include autograd/ops_used.hpp"


# --- declarations: a header of a layer declares only what its layer or a lower one defines, so
# the base cannot call up into ops through a declaration any more than through an #include.
# A light reading of C++, enough for this tree: comments, literals and preprocessor lines are
# blanked, namespace and class bodies are entered, any other brace (a function body, an
# initializer, an enum) is skipped, and what stands before a `;` or a skipped body is matched
# as a function head. Functions are told apart by qualified name and number of parameters.
SCOPE = re.compile(r"(?:\bnamespace\s*(?P<ns>[\w:]*)|\bextern\s*\"\"|\b(?:class|struct|union)\s+(?P<cls>\w+)"
                   r"\s*(?:final\s*)?(?::[^()]*)?)\s*$")
FUNCTION = re.compile(r"^(?:template\s*<.*?>\s*)?(?P<type>(?:[\w:<>,*&]+\s*?[\s*&])+)?(?P<name>(?:\w+::)*~?\w+)"
                      r"\s*\((?P<params>.*)\)\s*(?:const\b)?\s*(?:noexcept\b)?\s*(?:override\b|final\b)?\s*"
                      r"(?P<tail>(?:=|->|:).*)?$", re.S)
NOT_FUNCTIONS = {"if", "for", "while", "switch", "return", "catch", "sizeof", "decltype", "alignof",
                 "static_assert", "throw"}
# Declared in a lower layer and defined in a higher one on purpose (DESIGN.md, "Layering"):
# the ops the engine calls (ops_used.hpp, checked by the test below), and Tensor::backward and
# retain_grad, methods of the tensor that run the autograd engine, as in torch.
DECLARED_FOR_A_HIGHER_LAYER = {"src/autograd/ops_used.hpp": {"*"},
                               "include/seqlab/tensor.hpp": {"Tensor::backward", "Tensor::retain_grad"}}


def code_of(text):
    """C++ text with comments, string and character literals and preprocessor lines blanked."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'",
                  lambda m: '""' if m.group(0)[0] == '"' else " ", text, flags=re.S)
    return re.sub(r"^\s*#(?:[^\n]*\\\n)*[^\n]*", "", text, flags=re.M)


def parameter_count(params):
    depth, commas = 0, 0
    for c in params:
        depth += (c in "(<[{") - (c in ")>]}")
        commas += c == "," and depth == 0
    return 0 if params.strip() in ("", "void") else commas + 1


def functions(text):
    """(declared, defined): the functions a C++ file declares without a body and those it defines,
    each as (qualified name without seqlab::, number of parameters)."""
    text = code_of(text)
    declared, defined = set(), set()
    scope = []  # (name, is a class), innermost last; '' is an anonymous namespace

    def head(statement, has_body):
        statement = re.sub(r"\[\[.*?\]\]", " ", statement).strip()
        m = FUNCTION.match(statement)
        if not m or re.match(r"(?:typedef|using|friend|return)\b", statement) or "" in [n for n, _ in scope]:
            return  # not a function, or one of an anonymous namespace (internal linkage)
        name = m.group("name")
        parts = [n for n, _ in scope] + name.split("::")
        in_class = bool(scope) and scope[-1][1]
        constructor = len(parts) > 1 and parts[-1].lstrip("~") == parts[-2]
        if parts[-1] in NOT_FUNCTIONS or not (m.group("type") or constructor):
            return
        key = ("::".join(parts[1:] if parts[0] == "seqlab" else parts), parameter_count(m.group("params")))
        if has_body and not (statement.startswith("static") and not in_class):
            defined.add(key)
        elif not has_body and not (m.group("tail") or "").startswith("="):  # = default, = delete, = 0
            declared.add(key)

    start = i = 0
    while i < len(text):
        if text[i] == ";":
            head(text[start:i], has_body=False)
            start = i + 1
        elif text[i] == "{":
            m = SCOPE.search(text[start:i])
            if m and not re.search(r"\benum\b", text[start:i]):
                scope.append((m.group("cls") or m.group("ns") or "", m.group("cls") is not None))
            else:
                head(text[start:i], has_body=True)
                depth = 0
                while True:  # skip the body to its closing brace
                    depth += {"{": 1, "}": -1}.get(text[i], 0)
                    if depth == 0:
                        break
                    i += 1
            start = i + 1
        elif text[i] == "}":
            if scope:
                scope.pop()
            start = i + 1
        i += 1
    return declared, defined


def declared_above_their_layer(cpp):
    """Functions declared by a header under `cpp` (a tree laid out as cpp/) whose every definition
    is in a file of a higher layer (or, at rank 3, another family), as "header: name (defined in
    files)". Functions defined nowhere that this reading finds (templates, macros) are not judged."""
    sources = [p for sub in ("include", "src", "python") for p in sorted((cpp / sub).rglob("*"))
               if p.suffix in (".hpp", ".cpp", ".h")]
    found = {path: functions(path.read_text()) for path in sources}
    defined_in = {}
    for path, (_, defined) in found.items():
        for key in defined:
            defined_in.setdefault(key, []).append(path)
    part = {path: part_of(path, cpp) for path in sources}
    wrong, judged = [], 0
    for header in (p for p in sources if p.suffix != ".cpp"):
        name = header.relative_to(cpp).as_posix()
        exempt = DECLARED_FOR_A_HIGHER_LAYER.get(name, set())
        for key in sorted(found[header][0]):
            files = defined_in.get(key, [])
            judged += bool(files)
            if files and not any(may_include(part[header], part[f]) for f in files) and not exempt & {"*", key[0]}:
                wrong.append(f"{name}: {key[0]} (defined in {', '.join(f.relative_to(cpp).as_posix() for f in files)})")
    return wrong, judged


def test_headers_declare_only_what_their_layer_or_a_lower_one_defines():
    wrong, judged = declared_above_their_layer(CPP)
    assert judged > 400, f"the declaration reader matched only {judged} declarations with their definitions"
    assert not wrong, ("functions declared in a header and defined only in a higher layer (move the definition "
                       "down, or the declaration up):\n" + "\n".join(wrong))


def test_the_declaration_check_names_a_base_header_that_an_op_file_defines(tmp_path):
    # The situation the check was written for: the base's kernel helpers declared a copy that
    # only ops/ defined. Methods, constructors and overloads are told apart; a static helper of
    # the same name in another file defines nothing the header declares.
    files = {
        "src/kernel_utils.hpp": "#pragma once\n#include <vector>\nnamespace seqlab {\n"
                                "Tensor contiguous_copy(const Tensor& x);  // a copy (ops/copy.cpp)\n"
                                "void fill(const Tensor& x, double v);\n"
                                "inline int twice(int a) { return 2 * a; }\n"
                                "struct Tile {\n  explicit Tile(int n);\n  int size() const;\n  Tile(const Tile&) = default;\n};\n}\n",
        "src/tensor.cpp": "namespace seqlab {\nvoid fill(const Tensor& x, double v) { if (v) {} }\n"
                          "Tile::Tile(int n) : n_{n} {}\nint Tile::size() const { return n_; }\n}\n",
        "src/ops/copy.cpp": "namespace seqlab {\nTensor contiguous_copy(const Tensor& x) {\n  return x;\n}\n"
                            "void fill(const Tensor& x) {}\nstatic Tensor contiguous_copy(int x) { return {}; }\n}\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    wrong, judged = declared_above_their_layer(tmp_path)
    assert wrong == ["src/kernel_utils.hpp: contiguous_copy (defined in src/ops/copy.cpp)"]
    assert judged == 4  # contiguous_copy, fill, Tile::Tile, Tile::size
