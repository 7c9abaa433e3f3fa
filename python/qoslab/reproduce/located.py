"""YAML read with the place of every value, so that a study file's errors name
``file:line:column`` and the key path, as the scenario loader's do.

:func:`read` returns a :class:`Located` tree: plain Python values (dicts, lists, strings,
numbers, booleans, None) paired with the key path and position where each was written.
A study file is data that ships with qoslab, but a study under construction — or a user's
own — deserves the same errors as a scenario.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml


class StudyError(ValueError):
    """A study folder that cannot be used, with the place and the fix in the message."""


@dataclass(frozen=True)
class Located:
    """A value read from a study file: ``value`` (with its children as :class:`Located`
    too, in ``items``), and where it was written."""

    value: object
    path: str
    file: str
    line: int
    column: int
    items: dict[str, Located] | list[Located] | None = None

    def where(self) -> str:
        """``file:line:column: key.path``."""
        return f"{self.file}:{self.line}:{self.column}: {self.path or '(top)'}"

    def error(self, what: str, fix: str | None = None) -> StudyError:
        """A :class:`StudyError` at this value."""
        return StudyError(f"{self.where()}: {what}" + (f" — {fix}" if fix else ""))

    def plain(self) -> object:
        """The value with its children as plain Python values."""
        if isinstance(self.items, dict):
            return {key: item.plain() for key, item in self.items.items()}
        if isinstance(self.items, list):
            return [item.plain() for item in self.items]
        return self.value

    def mapping(self) -> dict[str, Located]:
        """The entries of a mapping; an error when the value is not one."""
        if not isinstance(self.items, dict):
            raise self.error(f"expected a mapping, found {kind(self.value)}")
        return self.items

    def sequence(self) -> list[Located]:
        """The elements of a list; an error when the value is not one."""
        if not isinstance(self.items, list):
            raise self.error(f"expected a list, found {kind(self.value)}")
        return self.items

    def text(self) -> str:
        """The value as a non-empty string; an error when it is not one."""
        if not isinstance(self.value, str) or not self.value.strip():
            raise self.error(f"expected a non-empty text, found {kind(self.value)}")
        return self.value

    def number(self) -> float:
        """The value as a number; an error when it is not one."""
        if isinstance(self.value, bool) or not isinstance(self.value, int | float):
            raise self.error(f"expected a number, found {kind(self.value)}")
        return float(self.value)

    def count(self, least: int = 1) -> int:
        """The value as a whole number of at least ``least``."""
        if isinstance(self.value, bool) or not isinstance(self.value, int) or self.value < least:
            raise self.error(f"expected a whole number of at least {least}, found {self.value!r}")
        return self.value

    def keys(self, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
        """Checks that a mapping has ``required`` keys and no others than ``optional``."""
        entries = self.mapping()
        known = (*required, *optional)
        for key, item in entries.items():
            if key not in known:
                raise item.error(f"unknown key `{key}`", f"the keys here are: {', '.join(known)}")
        for key in required:
            if key not in entries:
                raise self.error(f"`{key}` is missing", f"add `{key}:`")


def kind(value: object) -> str:
    """The YAML name of a value's type, for messages."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the text {value!r}" if value.strip() else "an empty text"
    if isinstance(value, dict):
        return "a mapping"
    return "a list"


def read(path: Path, shown: str | None = None) -> Located:
    """The YAML file ``path`` as a :class:`Located` tree; ``shown`` is the file name used in
    messages (default: ``path``)."""
    name = shown or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise StudyError(f"{name}: cannot be read: {error.strerror or error}") from error
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        where = f"{name}:{mark.line + 1}:{mark.column + 1}" if mark else name
        raise StudyError(f"{where}: not valid YAML: {error.problem}") from error
    if node is None:
        raise StudyError(f"{name}:1:1: the file is empty")
    return _convert(node, "", name)


def _convert(node: yaml.Node, path: str, file: str) -> Located:
    line, column = node.start_mark.line + 1, node.start_mark.column + 1
    if isinstance(node, yaml.MappingNode):
        items: dict[str, Located] = {}
        for key_node, value_node in node.value:
            key = yaml.SafeLoader("").construct_object(key_node)
            if not isinstance(key, str | int):
                raise StudyError(f"{file}:{key_node.start_mark.line + 1}: a key must be a name")
            key = str(key)
            if key in items:
                raise StudyError(
                    f"{file}:{key_node.start_mark.line + 1}:{key_node.start_mark.column + 1}: "
                    f"{path + '.' if path else ''}{key}: given twice — keep one"
                )
            items[key] = _convert(value_node, f"{path}.{key}" if path else key, file)
        return Located({k: v.value for k, v in items.items()}, path, file, line, column, items)
    if isinstance(node, yaml.SequenceNode):
        elements = [_convert(child, f"{path}[{i}]", file) for i, child in enumerate(node.value)]
        return Located([e.value for e in elements], path, file, line, column, elements)
    value = yaml.SafeLoader("").construct_object(node)
    return Located(value, path, file, line, column)
