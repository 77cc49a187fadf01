"""The package's layers import only downward: no import cycle (counting imports inside
functions, so none can be hidden there), the package root imported only by the command
line (the top layer, which imports lazily to start fast), no private name imported across
modules."""

import ast
import inspect
import re
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "bnfs"


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _imports(modules: dict[str, Path]):
    """(importer, imported module, imported name or None) for every bnfs import."""
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "bnfs":
                        yield module, alias.name, None
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parts, *([base] if base else [])])
                if base.split(".")[0] != "bnfs":
                    continue
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    yield (module, sub, None) if sub in modules else (module, base, alias.name)


def test_no_import_cycle():
    modules = _modules()
    graph = nx.DiGraph()
    for importer, imported, _ in _imports(modules):
        if imported != "bnfs" and imported != importer and importer != "bnfs":
            graph.add_edge(importer, imported)
    cycles = list(nx.simple_cycles(graph))
    assert not cycles, f"import cycles: {cycles[:5]}"
    assert graph.number_of_edges() > 50  # the walk does see the imports


def test_no_module_imports_through_its_own_package():
    """A module imports its neighbours by their own paths, never through the package that
    holds them both (``from bnfs.em import _completions`` inside ``bnfs.em``): the
    package's ``__init__`` may be half run when it does (``python -m bnfs.cli`` runs the
    package's ``__main__``, which is the one exception)."""
    modules = _modules()
    through = []
    for module, path in modules.items():
        if path.name in ("__init__.py", "__main__.py"):
            continue
        package = module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == package:
                through.append((module, [a.name for a in node.names]))
    assert not through, through


def test_only_the_command_line_imports_the_package_root():
    importers = {m for m, imported, _ in _imports(_modules()) if imported == "bnfs"}
    assert importers and all(m == "bnfs.cli" or m.startswith("bnfs.cli.") for m in importers), (
        importers
    )


def test_no_private_name_is_imported_across_modules():
    private = [
        (m, imported, name)
        for m, imported, name in _imports(_modules())
        if name is not None and name.startswith("_") and not name.startswith("__")
    ]
    assert not private, private


#: the rooms of the ground floor, lowest first: each imports only the rooms before it, the
#: compiled kernels, the shared argument checks (``bnfs._validate``), the vocabularies
#: (``bnfs._vocabulary``) and the warnings' stack level (``bnfs._warn``)
ROOMS = ["tables", "graphs", "stats", "models"]


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in ROOMS) else module


def test_the_rooms_of_the_ground_floor_import_only_the_rooms_below():
    modules = _modules()
    for room in ROOMS:  # every room holds modules
        assert any(m.startswith(f"bnfs.{room}.") for m in modules), room
    allowed = {
        room: {*ROOMS[:k], "_kernels", "bnfs._validate", "bnfs._vocabulary", "bnfs._warn"}
        for k, room in enumerate(ROOMS)
    }
    wrong = [
        (importer, imported)
        for importer, imported, _ in _imports(modules)
        if _room(importer) in allowed
        and _room(imported) not in (_room(importer), "bnfs")
        and _room(imported) not in allowed[_room(importer)]
    ]
    assert not wrong, wrong


def test_the_ground_floor_holds_few_loose_modules():
    loose = [m for m in _modules() if m.count(".") == 1 and m.split(".")[1] not in ROOMS]
    packages = {"_kernels", "cli", "constraint", "search", "select", "data", "posterior", "em"}
    loose = [m for m in loose if m.split(".")[1] not in packages]
    assert 5 <= len(loose) <= 12, loose


def test_the_package_shows_its_public_names_and_no_old_paths():
    """``dir(bnfs)`` lists the public surface and nothing the package uses itself; the
    module paths from before the rooms (``bnfs.scores``, ...) are gone: 0.1.0 is
    unreleased, so no user code has them."""
    import importlib

    import bnfs

    public = {name for name in dir(bnfs) if not name.startswith("_")}
    # submodules imported so far are attributes of the package (as Python makes them)
    modules = {name for name in public if inspect.ismodule(getattr(bnfs, name))}
    assert all(getattr(bnfs, name).__name__ == f"bnfs.{name}" for name in modules)
    assert public - modules == set(bnfs.__all__) - {"__version__"} - modules
    # issue 46's bound of 60, and issue 62's structure_posterior (its result class stays in
    # bnfs.posterior)
    assert len(set(bnfs.__all__) - {"__version__"}) <= 61
    for old in ("bnfs.scores", "bnfs.graph", "bnfs.export"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(old)


def _functions():
    for module, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield module, node


def test_functions_are_short_and_kernels_take_few_parameters():
    """CONTRIBUTING's limits: at most 150 lines of code in a function (its docstring not
    counted: a learner's numpydoc grows with its options) and at most 12 parameters in a
    kernel (the rest travel in named bundles)."""
    long, wide = [], []
    for module, node in _functions():
        first = node.body[0]
        docstring = isinstance(first, ast.Expr) and isinstance(
            getattr(first, "value", None), ast.Constant
        )
        lines = node.end_lineno - node.lineno + 1
        if docstring and isinstance(first.value.value, str):
            lines -= first.end_lineno - first.lineno + 1
        if lines > 150:
            long.append((module, node.name, lines))
        parameters = len(node.args.args) + len(node.args.kwonlyargs)
        if module.startswith("bnfs._kernels") and parameters > 12:
            wide.append((module, node.name, parameters))
    assert not long and not wide, (long, wide)


def test_every_public_definition_has_a_docstring():
    """Every public function, class and method of a public module says what it does (a
    method may inherit its docstring from the class it overrides)."""
    import importlib

    bare = []
    for module in _modules():
        if any(part.startswith("_") for part in module.split(".")[1:]):
            continue
        loaded = importlib.import_module(module)
        for name, value in vars(loaded).items():
            if name.startswith("_") or getattr(value, "__module__", None) != module:
                continue
            if not (inspect.isfunction(value) or inspect.isclass(value)):
                continue
            if not inspect.getdoc(value):
                bare.append(f"{module}.{name}")
            if inspect.isclass(value):
                for attribute, member in vars(value).items():
                    if attribute.startswith("_"):
                        continue
                    if inspect.isfunction(member) or isinstance(
                        member, (property, classmethod, staticmethod)
                    ):
                        if not inspect.getdoc(getattr(value, attribute)):
                            bare.append(f"{module}.{name}.{attribute}")
    assert not bare, bare


def test_no_benchmark_numbers_in_comments():
    """Measured seconds, F1 and SHD live in benchmarks/ and the CHANGELOG ("Measured
    defaults"), where they are dated, not in the modules' comments, where they drift."""
    import re

    measured = re.compile(r"\d+(\.\d+)? s\b|\bF1\b|\bSHD (total )?\d|\d+ (seconds|minutes)\b")
    found = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in PACKAGE.rglob("*.py")
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if line.lstrip().startswith("#") and measured.search(line)
    ]
    assert not found, found


def test_no_test_file_is_over_500_lines():
    """The suite's files stay readable whole, as the package's modules do; a room's tests
    live in the room's folder (``tests/learners``, ``tests/bootstrap``, ``tests/kernels``, ...)."""
    tests = Path(__file__).resolve().parent
    long = {
        str(p.relative_to(tests)): n
        for p in tests.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > 500
    }
    assert not long, long
    for room in ("learners", "bootstrap", "kernels"):
        assert list((tests / room).glob("test_*.py")), room


def test_no_test_imports_through_a_tests_package():
    """The suite is no package (no ``__init__.py``): a test imports a helper module beside
    it by its own name (``cli_support``, ``order_support``), never ``tests.x``, which finds
    whatever other ``tests`` package is installed (some data packages install one)."""
    tests = Path(__file__).resolve().parent
    reaching = {
        str(p.relative_to(tests))
        for p in tests.rglob("*.py")
        if re.search(r"^\s*(from|import)\s+tests(\.|\s|$)", p.read_text(), flags=re.M)
    }
    assert not reaching, reaching
    assert not list(tests.rglob("__init__.py"))
