"""Resolve `extends` and `include`: one merged document from a rule file and its bases.

Mappings merge key by key, deeply; a list or a scalar in the later file replaces the
earlier one; a key set to null removes it. Every node keeps the span of the file it came
from, so errors in a base file point into that file.
"""

from __future__ import annotations

from pathlib import Path

from .diagnostics import Diagnostic, RuleFileError
from .fileformat import version_problems
from .limits import MAX_CHAIN
from .resources import resolve_ruleset, shipped_rulesets
from .source import Map, Node, Scalar, Seq, load_file


def merge(base: Node, override: Node) -> Node:
    if not (isinstance(base, Map) and isinstance(override, Map)):
        return override
    entries = dict(base.entries)
    key_spans = dict(base.key_spans)
    for key, value in override.entries.items():
        if isinstance(value, Scalar) and value.value is None:
            entries.pop(key, None)
            key_spans.pop(key, None)
            continue
        entries[key] = merge(entries[key], value) if key in entries else value
        key_spans[key] = override.key_spans[key]
    return Map(entries, key_spans, override.span)


def _references(node: Node, key: str) -> list[Scalar]:
    if not isinstance(node, Map) or key not in node:
        return []
    value = node.entries[key]
    items = value.items if isinstance(value, Seq) else (value,)
    return [item for item in items if isinstance(item, Scalar)]


def compose(path: str, sources: dict[str, str] | None = None, _chain: tuple[str, ...] = ()) -> Map:
    """Load `path` with everything it extends and includes merged beneath it."""
    tree, text = load_file(path)
    if sources is not None:
        sources[path] = text
    if not isinstance(tree, Map):
        raise RuleFileError(
            [
                Diagnostic(
                    "RE010",
                    "a rule file must be a mapping of sections",
                    tree.span,
                    hint="start with keys such as 'name:', 'decks:', 'zones:'",
                )
            ]
        )
    problems = version_problems(tree)
    if problems:  # a newer format may mean something else: read nothing more of it
        raise RuleFileError(problems)
    here = Path(path).resolve().parent
    chain = (*_chain, str(Path(path).resolve()))
    bases: list[Node] = []
    for key in ("extends", "include"):
        value = tree.get(key)
        if (
            value is not None
            and not (isinstance(value, Scalar) and isinstance(value.value, str))
            and not (isinstance(value, Seq) and key == "include")
        ):
            problems.append(Diagnostic("RE011", f"'{key}' must name a rule file", value.span))
            continue
        for reference in _references(tree, key):
            base = _load_base(reference, key, here, chain, sources, problems)
            if isinstance(base, Map):
                # `block: true` marks the included file only, not the game that includes it.
                base = Map(
                    {k: v for k, v in base.entries.items() if k != "block"},
                    {k: s for k, s in base.key_spans.items() if k != "block"},
                    base.span,
                )
            if base is not None:
                bases.append(base)
    if problems:
        raise RuleFileError(problems)
    merged: Node = Map({}, {}, tree.span)
    for base in bases:
        merged = merge(merged, base)
    own = Map(
        {k: v for k, v in tree.entries.items() if k not in ("extends", "include")},
        {k: s for k, s in tree.key_spans.items() if k not in ("extends", "include")},
        tree.span,
    )
    result = merge(merged, own)
    assert isinstance(result, Map)
    return result


def _load_base(
    reference: Scalar,
    key: str,
    here: Path,
    chain: tuple[str, ...],
    sources: dict[str, str] | None,
    problems: list[Diagnostic],
) -> Node | None:
    name = str(reference.value)
    found = resolve_ruleset(name, relative_to=here)
    if found is None:
        from .diagnostics import did_you_mean

        hint = did_you_mean(name, shipped_rulesets()) or f"shipped rulesets: {', '.join(shipped_rulesets())}"
        problems.append(
            Diagnostic(
                "RE012",
                f"'{key}' names '{name}', which is neither a file nor a shipped ruleset",
                reference.span,
                hint=hint,
            )
        )
        return None
    resolved = str(found.resolve())
    if resolved in chain:
        problems.append(
            Diagnostic(
                "RE013",
                f"'{key}' of '{name}' is circular: the file extends itself",
                reference.span,
                hint=" -> ".join(Path(c).name for c in (*chain, resolved)),
            )
        )
        return None
    if len(chain) >= MAX_CHAIN:
        problems.append(
            Diagnostic("RE014", f"more than {MAX_CHAIN} files extend or include each other", reference.span)
        )
        return None
    try:
        return compose(str(found), sources, chain)
    except RuleFileError as error:
        problems.extend(error.diagnostics)
        return None
