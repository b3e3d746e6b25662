"""The Python package's import graph has no cycle (DESIGN.md, "Layering"): counting the imports
inside functions too, since an import moved into a function to dodge a cycle is still a cycle
(the two modules still need each other; only the error moved from import time to call time).
What two modules both need lives in a lower module they both import. seqlab._core is compiled
and imports nothing of the package. The graph is read from the sources with ast, so this test
sees every import, run or not."""
import ast
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "python" / "seqlab"


def _module_names():
    """Every module of the package: dotted name -> path (a package is its __init__.py)."""
    names = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def _imported(module, node, is_package, modules):
    """The modules of the package that one import statement loads (the innermost that exists:
    `from .x import f` loads .x, `from . import x` loads .x when it is a module)."""
    if isinstance(node, ast.Import):
        targets = [alias.name for alias in node.names]
    else:
        if node.level:
            base = module.split(".") if is_package else module.split(".")[:-1]
            base = base[:len(base) - (node.level - 1)]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module or ""
        targets = [f"{prefix}.{alias.name}" for alias in node.names]
    found = set()
    for name in targets:
        if not name.startswith("seqlab") or name.startswith("seqlab._core"):
            continue
        while name not in modules and "." in name:
            name = name.rsplit(".", 1)[0]
        if name in modules and name != module:
            found.add(name)
    return found


def import_graph():
    modules = _module_names()
    graph = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        edges = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                edges |= _imported(name, node, path.name == "__init__.py", modules)
        graph[name] = edges
    return graph


def cycles(graph):
    """The strongly connected components with more than one module (Tarjan's algorithm, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _path_within(graph, component):
    """One cycle through the component, for the error message: a -> b -> ... -> a."""
    members = set(component)
    start = component[0]
    path, seen, node = [start], {start}, start
    while True:
        nxt = sorted(graph[node] & members)
        back = [m for m in nxt if m == start]
        if back and len(path) > 1:
            return " -> ".join(path + [start])
        unseen = [m for m in nxt if m not in seen]
        if not unseen:
            return " -> ".join(path + [nxt[0]])
        node = unseen[0]
        path.append(node)
        seen.add(node)


def test_the_package_has_no_import_cycle():
    graph = import_graph()
    assert "seqlab._tensor" in graph and "seqlab.nn" in graph
    found = cycles(graph)
    assert not found, "import cycles (function-level imports count):\n" + "\n".join(
        f"  {len(c)} modules: {', '.join(c)}\n    e.g. {_path_within(graph, c)}" for c in found)


def test_the_checker_finds_a_cycle_and_a_function_level_one():
    # The checker itself, on a graph with a cycle, and on the real parser with an import inside a function.
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    modules = {"seqlab": None, "seqlab.x": None, "seqlab.y": None}
    inner = ast.parse("def f():\n    from .y import g\n").body[0].body[0]
    assert _imported("seqlab.x", inner, False, modules) == {"seqlab.y"}
    core = ast.parse("from . import _core").body[0]
    assert _imported("seqlab.x", core, False, modules) == set()
