"""The package's import graph: no cycle anywhere, and each layer imports only the layers below it.

The rule (docs/architecture.md): the pure core (the modules at the package's top) imports nothing of
``harness/``, ``commands/`` or ``cli``; inside ``harness/`` a package imports only the packages listed before
it in ``HARNESS_ORDER`` (and its own modules); ``commands/`` import the harness and the core, never each other.
Imports under ``if TYPE_CHECKING:`` count: a cycle there is still a cycle for the reader.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import benchcore

PKG = Path(benchcore.__file__).resolve().parent
HARNESS_ORDER = ["store", "repo", "claude", "fanout", "confine", "worlds", "runs", "collect", "plan", "render",
                 "draft"]


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PKG.rglob("*.py")):
        parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The benchcore modules ``name`` imports (a ``from pkg import mod`` counts as importing ``pkg.mod``)."""
    is_pkg = path.name == "__init__.py"
    package = name if is_pkg else name.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "benchcore")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                src = ".".join(base + ([node.module] if node.module else []))
            else:
                src = node.module or ""
            if src.split(".")[0] != "benchcore":
                continue
            for a in node.names:
                out.add(f"{src}.{a.name}" if f"{src}.{a.name}" in MODULES else src)
    return {m for m in out if m in MODULES and m != name}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module, or a module importing itself (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(GRAPH[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return found


def _layer(name: str) -> tuple[str, str]:
    parts = name.split(".")[1:]
    if not parts:
        return ("init", "")
    if parts[0] == "harness":
        return ("harness", parts[1] if len(parts) > 1 and parts[1] in HARNESS_ORDER else "")
    if parts[0] in ("commands", "cli", "__main__"):
        return ("commands", parts[0])
    return ("core", parts[0])


def test_no_module_imports_in_a_cycle():
    assert _cycles() == []


def test_the_pure_core_imports_no_harness_and_no_command():
    bad = [(m, i) for m, imps in GRAPH.items() if _layer(m)[0] == "core"
           for i in imps if _layer(i)[0] in ("harness", "commands")]
    assert bad == []


def test_each_harness_package_imports_only_the_packages_before_it():
    bad = []
    for m, imps in GRAPH.items():
        kind, pkg = _layer(m)
        if kind != "harness" or not pkg:
            continue
        for i in imps:
            k2, p2 = _layer(i)
            if k2 == "commands" or (k2 == "harness" and p2 and p2 != pkg
                                    and HARNESS_ORDER.index(p2) > HARNESS_ORDER.index(pkg)):
                bad.append((m, i))
    assert bad == []


def test_no_harness_package_is_missing_from_the_rule():
    pkgs = {p.name for p in (PKG / "harness").iterdir() if (p / "__init__.py").is_file()}
    assert pkgs == set(HARNESS_ORDER)
    assert [p.name for p in (PKG / "harness").glob("*.py")] == ["__init__.py"]  # every module sits in a package


def test_commands_do_not_import_each_other():
    bad = [(m, i) for m, imps in GRAPH.items() if m.startswith("benchcore.commands.")
           for i in imps if i.startswith("benchcore.commands.")]
    assert bad == []


def test_every_module_imports_first_in_a_fresh_interpreter():
    """Each module imported first, with nothing of benchcore loaded: whichever module a caller imports first works."""
    names = sorted(m for m in MODULES if m != "benchcore.__main__")
    script = (
        "import importlib, sys\n"
        f"names = {names!r}\n"
        "bad = []\n"
        "for n in names:\n"
        "    for k in [k for k in sys.modules if k == 'benchcore' or k.startswith('benchcore.')]:\n"
        "        del sys.modules[k]\n"
        "    try:\n"
        "        importlib.import_module(n)\n"
        "    except Exception as exc:\n"
        "        bad.append(f'{n}: {type(exc).__name__}: {exc}')\n"
        "print('\\n'.join(bad))\n"
        "sys.exit(1 if bad else 0)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    main = subprocess.run([sys.executable, "-m", "benchcore", "--version"], capture_output=True, text=True, timeout=60)
    assert main.returncode == 0, main.stderr
