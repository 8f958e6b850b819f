"""Rules of the layout (docs DESIGN §2) that the code must keep, checked on its source.

Ownership: each read-model table has one owner, the app whose projections write it. The rosters'
tables (forces, units, troopers, vehicles, their histories) are written only by projections in
``rosters/``, which react to other apps' events by name; and ``rosters`` imports nothing of
``battles``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from django.apps import apps

ROOT = Path(__file__).resolve().parent.parent
APPS = (
    "accounts",
    "battles",
    "campaigns",
    "config",
    "eventlog",
    "pages",
    "rosters",
    "rules",
    "bench",
    "demo",
    "webhooks",
)

# Still to move into rosters/: modules outside it that write roster rows. Nothing belongs here.
PENDING_ROSTER_WRITERS: tuple[str, ...] = ()

# Still to make independent of battles: the rosters' review reads the battles' tables.
PENDING_BATTLES_IMPORTERS: tuple[str, ...] = ()

ROW_WRITES = {"put", "update", "delete"}
ROSTER_HELPERS = {"unit_history", "service_record"}


def _modules(*, under: str | None = None) -> Iterator[tuple[str, ast.Module]]:
    for app in APPS if under is None else (under,):
        for path in sorted((ROOT / app).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if "/migrations/" in relative:
                continue
            yield relative, ast.parse(path.read_text(), filename=relative)


def _pending(relative: str, prefixes: tuple[str, ...]) -> bool:
    return any(relative == p or (p.endswith("/") and relative.startswith(p)) for p in prefixes)


def _roster_names(tree: ast.Module, models: set[str]) -> tuple[set[str], set[str], set[str]]:
    """The names a module uses for the rosters' models and for the helpers that write their
    histories (aliases included), and for the rosters' modules it imports."""
    model_names, helper_names, modules = set(models), set(ROSTER_HELPERS), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rosters"):
            for alias in node.names:
                if alias.name in models:
                    model_names.add(alias.asname or alias.name)
                elif alias.name in ROSTER_HELPERS:
                    helper_names.add(alias.asname or alias.name)
                else:
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("rosters"):
                    modules.add(alias.asname or alias.name.rpartition(".")[2])
    return model_names, helper_names, modules


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _roster_writes(relative: str, tree: ast.Module, models: set[str]) -> Iterator[str]:
    model_names, helper_names, modules = _roster_names(tree, models)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        called = _name(node.func)
        if called is None:
            continue
        where = f"{relative}:{node.lineno}"
        if isinstance(node.func, ast.Name):
            helper = called in helper_names
        else:
            helper = (
                isinstance(node.func, ast.Attribute)
                and called in ROSTER_HELPERS
                and _name(node.func.value) in modules
            )
        if helper:
            yield f"{where} calls {called}()"
        elif (
            isinstance(node.func, ast.Attribute)
            and called in ROW_WRITES
            and node.args
            and _name(node.args[0]) in model_names
        ):
            yield f"{where} {called}s {_name(node.args[0])} rows"


def test_rosters_tables_are_written_only_by_rosters():
    models = {model.__name__ for model in apps.get_app_config("rosters").get_models()}
    assert {"Trooper", "Unit", "Vehicle", "UnitHistoryEntry", "TrooperRecordEntry"} <= models
    found = [
        write
        for relative, tree in _modules()
        if not relative.startswith("rosters/") and not _pending(relative, PENDING_ROSTER_WRITERS)
        for write in _roster_writes(relative, tree, models)
    ]
    assert found == [], "Only projections in rosters/ write the rosters' tables:\n" + "\n".join(
        found
    )


def test_the_check_sees_a_roster_write():
    tree = ast.parse(
        "from rosters.models import Trooper as T\n"
        "from rosters import projections\n"
        "from rosters.projections import service_record\n"
        "def step(rows, event, view):\n"
        "    rows.update(T, 1, status='dead')\n"
        "    service_record(rows, event, 1, 'Killed.')\n"
        "    projections.unit_history(rows, event, 2, 'Lost a man.')\n"
        "    view.unit_history(2)  # a selector reading the history\n"
        "    state.update(status='departed')\n"
    )
    assert sorted(_roster_writes("x.py", tree, {"Trooper"})) == [
        "x.py:5 updates T rows",
        "x.py:6 calls service_record()",
        "x.py:7 calls unit_history()",
    ]


# The layers of docs/architecture.md, lowest first: an app imports only apps below it.
LAYERS = (
    "rules",
    "eventlog",
    "accounts",
    "campaigns",
    "rosters",
    "battles",
    ("pages", "demo", "webhooks"),
)
TOP = ("config", "bench")  # they wire or measure everything


def _layer_of(app: str) -> int:
    for index, layer in enumerate(LAYERS):
        if app == layer or app in layer:
            return index
    return len(LAYERS)


def _app_imports() -> tuple[dict[str, set[str]], dict[tuple[str, str], str]]:
    """Each app's imports of the other apps, wherever they stand in a module (a function-level
    import is as much a dependency as a top-level one), and where each was first seen."""
    apps_ = {a for layer in LAYERS for a in ((layer,) if isinstance(layer, str) else layer)}
    found: dict[str, set[str]] = {app: set() for app in apps_ | set(TOP)}
    where: dict[tuple[str, str], str] = {}
    for relative, tree in _modules():
        app = relative.partition("/")[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                other = name.partition(".")[0]
                if other in found and other != app:
                    found[app].add(other)
                    where.setdefault((app, other), f"{relative}:{node.lineno}")
    return found, where


def test_the_apps_import_only_the_layers_below_them():
    imports, where = _app_imports()
    upward = [
        f"{app} imports {other} ({where[(app, other)]})"
        for app, others in imports.items()
        if app not in TOP
        for other in sorted(others)
        if _layer_of(other) >= _layer_of(app)
    ]
    assert upward == [], "An app imports only the layers below it:\n" + "\n".join(upward)


def test_the_import_graph_between_apps_has_no_cycle():
    imports, _ = _app_imports()
    visiting: list[str] = []
    done: set[str] = set()

    def visit(app: str) -> list[str] | None:
        if app in visiting:
            return [*visiting[visiting.index(app) :], app]
        if app in done:
            return None
        visiting.append(app)
        for other in sorted(imports.get(app, ())):
            cycle = visit(other)
            if cycle:
                return cycle
        visiting.pop()
        done.add(app)
        return None

    cycles = [cycle for app in sorted(imports) if (cycle := visit(app))]
    assert cycles == [], f"Import cycle between apps: {' -> '.join(cycles[0])}"


def test_rosters_do_not_import_battles():
    found = []
    for relative, tree in _modules(under="rosters"):
        if _pending(relative, PENDING_BATTLES_IMPORTERS):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            found += [
                f"{relative}:{node.lineno} imports {name}"
                for name in names
                if name == "battles" or name.startswith("battles.")
            ]
    assert found == [], "rosters/ imports nothing of battles:\n" + "\n".join(found)
