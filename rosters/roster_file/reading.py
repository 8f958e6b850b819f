"""Reading a roster file's text, YAML or JSON, with the line of every value."""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable

import yaml

from rosters.roster_file.problems import _Finding
from rosters.roster_file.spec import Path

# --- reading the text, with the line of every value ----------------------------------------------


class _Lines:
    """The line each path of the document starts on: the key's line for a field, the item's for an
    entry of a list. A path the file does not have (a missing field) falls back to its parent."""

    def __init__(self) -> None:
        self.by_path: dict[Path, int] = {}

    def of(self, path: Path) -> int | None:
        for end in range(len(path), -1, -1):
            line = self.by_path.get(path[:end])
            if line is not None:
                return line
        return None


class _SyntaxProblem(Exception):
    def __init__(self, line: int | None, message: str, *, code: str = "roster.syntax") -> None:
        super().__init__(message)
        self.line = line
        self.message = message
        self.code = code


# The most values a roster may stand for once its aliases are expanded: a reinforced company
# (SG2 P.8) is about 2,500; this leaves room for a battalion and refuses alias bombs.
MAX_EXPANDED_VALUES = 50_000


class _UntaggedLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing explicit tags (``!!binary``, ``!!python/...``, ``!local``):
    a roster is mappings, lists, text and numbers, and a tag only ever asks the reader to build
    something else."""

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event = self.peek_event()
        tag = None if isinstance(event, yaml.AliasEvent) else getattr(event, "tag", None)
        if tag is not None:
            shown = tag.replace("tag:yaml.org,2002:", "!!")
            raise yaml.composer.ComposerError(
                None, None, f"tags such as {shown} are not allowed in a roster", event.start_mark
            )
        return super().compose_node(parent, index)


def _read_yaml(text: str, lines: _Lines, findings: list[_Finding]) -> object:
    loader: yaml.SafeLoader | None = None
    try:
        # Built inside the ``try``: the reader refuses control characters as it starts.
        loader = _UntaggedLoader(text)
        node = loader.get_single_node()
        if node is not None and _expanded_size(node, {}, set()) > MAX_EXPANDED_VALUES:
            raise _SyntaxProblem(
                node.start_mark.line + 1,
                f"This file's aliases expand to more than {MAX_EXPANDED_VALUES:,} values, far "
                "more than any force; write the units out, or use fewer nested aliases.",
                code="roster.too_large",
            )
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        detail = error.problem or error.context or "unreadable text"
        if error.context and error.problem:
            where = f", line {error.context_mark.line + 1}" if error.context_mark else ""
            detail += f" ({error.context}{where})"
        if "'\\t'" in detail:
            detail += "; indent with spaces, YAML does not allow tabs there"
        raise _SyntaxProblem(
            mark.line + 1 if mark else None, f"This is not valid YAML: {detail}."
        ) from error
    except yaml.YAMLError as error:
        raise _SyntaxProblem(None, f"This is not valid YAML: {error}.") from error
    finally:
        if loader is not None:
            loader.dispose()
    if node is not None:
        _index_yaml(node, (), node.start_mark.line + 1, lines, findings, set())
    return data


def _expanded_size(node: yaml.Node, sizes: dict[int, int], open_nodes: set[int]) -> int:
    """How many values the document stands for once aliases are expanded, counting each node of
    the parsed graph once (an alias bomb's graph is small; its expansion is not). A node inside
    itself counts once: the tree check reports that loop in words."""
    key = id(node)
    if key in sizes:
        return sizes[key]
    if key in open_nodes:
        return 1
    open_nodes.add(key)
    if isinstance(node, yaml.MappingNode):
        children = [child for pair in node.value for child in pair]
    elif isinstance(node, yaml.SequenceNode):
        children = list(node.value)
    else:
        children = []
    size = 1 + sum(_expanded_size(child, sizes, open_nodes) for child in children)
    open_nodes.discard(key)
    sizes[key] = size
    return size


def _index_yaml(
    node: yaml.Node,
    path: Path,
    line: int,
    lines: _Lines,
    findings: list[_Finding],
    ancestors: set[int],
) -> None:
    lines.by_path.setdefault(path, line)
    if id(node) in ancestors:  # an alias of one of its own ancestors: a recursive document
        return
    ancestors = ancestors | {id(node)}
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                continue
            key = key_node.value
            if key in seen:
                findings.append(
                    _Finding(
                        (*path, key),
                        "roster.duplicate_field",
                        f"The field '{key}' is given twice here; only the last one would count.",
                    )
                )
                lines.by_path[(*path, key)] = key_node.start_mark.line + 1
            seen.add(key)
            _index_yaml(
                value_node, (*path, key), key_node.start_mark.line + 1, lines, findings, ancestors
            )
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _index_yaml(item, (*path, index), item.start_mark.line + 1, lines, findings, ancestors)


_JSON_SPACE = re.compile(r"[ \t\n\r]*")
_JSON_LITERAL = re.compile(
    r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null|NaN|-?Infinity"
)
# The decoder's own string scanner (the C one when there is one), which ``json`` has no public
# name for; typeshed leaves it out of ``json.decoder``, where it has always been.
_scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


def _read_json(text: str, lines: _Lines, findings: list[_Finding]) -> object:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise _SyntaxProblem(
            error.lineno, f"This is not valid JSON: {error.msg} (column {error.colno})."
        ) from error
    _JsonIndex(text, lines, findings).value(0, (), None)
    return data


class _JsonIndex:
    """Walks JSON text that ``json.loads`` has accepted, noting the line of every value.

    The standard library keeps no positions, and PyYAML refuses some valid JSON (tab indentation),
    so the few lines of a second pass are the dependable way to point at a line.
    """

    def __init__(self, text: str, lines: _Lines, findings: list[_Finding]) -> None:
        self.text = text
        self.lines = lines
        self.findings = findings
        self.line_starts = [0] + [m.end() for m in re.finditer(r"\n", text)]

    def line(self, position: int) -> int:
        return bisect.bisect_right(self.line_starts, position)

    def skip(self, position: int) -> int:
        return _JSON_SPACE.match(self.text, position).end()  # type: ignore[union-attr]

    def value(self, position: int, path: Path, key_position: int | None) -> int:
        text = self.text
        position = self.skip(position)
        self.lines.by_path.setdefault(
            path, self.line(position if key_position is None else key_position)
        )
        opener = text[position]
        if opener == "{":
            return self.members(position + 1, path)
        if opener == "[":
            return self.items(position + 1, path)
        if opener == '"':
            return _scanstring(text, position + 1)[1]
        return _JSON_LITERAL.match(text, position).end()  # type: ignore[union-attr]

    def members(self, position: int, path: Path) -> int:
        position = self.skip(position)
        seen: set[str] = set()
        while self.text[position] != "}":
            key_position = position
            key, position = _scanstring(self.text, position + 1)
            if key in seen:
                self.findings.append(
                    _Finding(
                        (*path, key),
                        "roster.duplicate_field",
                        f"The field '{key}' is given twice here; only the last one would count.",
                    )
                )
                self.lines.by_path[(*path, key)] = self.line(key_position)
            seen.add(key)
            position = self.skip(position) + 1  # the colon
            position = self.skip(self.value(position, (*path, key), key_position))
            if self.text[position] == ",":
                position = self.skip(position + 1)
        return position + 1

    def items(self, position: int, path: Path) -> int:
        position = self.skip(position)
        index = 0
        while self.text[position] != "]":
            position = self.skip(self.value(position, (*path, index), None))
            index += 1
            if self.text[position] == ",":
                position = self.skip(position + 1)
        return position + 1
