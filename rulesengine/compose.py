"""Resolve `extends` and `include`: one merged document from a rule file and its bases.

Mappings merge key by key, deeply; a list or a scalar in the later file replaces the
earlier one; a key set to null removes it. Every node keeps the span of the file it came
from, so errors in a base file point into that file.

A rule file may come from a stranger, so what it can name is confined: files in its own
folder or below it (after following symbolic links) and the shipped rulesets and blocks.
Anything else is refused without being opened. Each file is read once per composition,
and the number of files and their total size are bounded (see limits.py).
"""

from __future__ import annotations

import errno
from pathlib import Path

from .diagnostics import Diagnostic, RuleFileError, Span, did_you_mean, shortened
from .fileformat import version_problems
from .limits import MAX_CHAIN, MAX_COMPOSED_BYTES, MAX_COMPOSED_FILES
from .resources import rulesets_dir, shipped_rulesets
from .source import Map, Node, Scalar, Seq, decode, load_yaml, read_bytes


def merge(base: Node, override: Node, missing: list[Diagnostic] | None = None) -> Node:
    """`override` merged over `base`; a removal (a key set to null) of a key `base` does not
    have is added to `missing` when it is given."""
    if not (isinstance(base, Map) and isinstance(override, Map)):
        return override
    entries = dict(base.entries)
    key_spans = dict(base.key_spans)
    key_nodes = dict(base.key_nodes)
    for key, value in override.entries.items():
        if isinstance(value, Scalar) and value.value is None:
            if key not in entries and missing is not None:
                missing.append(_nothing_to_remove(key, override.key_spans[key], list(entries)))
            entries.pop(key, None)
            key_spans.pop(key, None)
            key_nodes.pop(key, None)
            continue
        entries[key] = merge(entries[key], value, missing) if key in entries else value
        key_spans[key] = override.key_spans[key]
        key_nodes[key] = override.key_node(key)
    return Map(entries, key_spans, override.span, key_nodes)


def _nothing_to_remove(key: str, span: Span, there: list[str]) -> Diagnostic:
    shown = ", ".join(sorted(there)[:12]) + (", ..." if len(there) > 12 else "")
    return Diagnostic(
        "RE024",
        f"'{_shown(key)}' is set to null to remove it, but nothing of that name is inherited here "
        "from the files this one extends or includes",
        span,
        hint=did_you_mean(key, there) or (f"here they have: {shown}" if there else "they have nothing here"),
    )


def _references(node: Node, key: str) -> list[Scalar]:
    """The names of files under `key`: texts only (any other entry is RE011)."""
    if not isinstance(node, Map) or key not in node:
        return []
    value = node.entries[key]
    items = value.items if isinstance(value, Seq) else (value,)
    return [item for item in items if isinstance(item, Scalar) and isinstance(item.value, str)]


class _Composition:
    """What one composition has read: every file once (memoised), within the limits."""

    def __init__(self, sources: dict[str, str] | None, text: str | None = None, in_file: bool = True):
        self.sources = sources
        self.text = text  # the top file's text when it is not read from disk (an editor's buffer)
        self.in_file = in_file  # false: the top document has no folder (see `compose`)
        self.done: dict[str, Map | None] = {}  # resolved path -> composed file (None: it failed)
        self.height: dict[str, int] = {}  # resolved path -> files in the longest chain from it down
        self.bytes = 0


def compose(path: str, sources: dict[str, str] | None = None, text: str | None = None, in_file: bool = True) -> Map:
    """Load `path` with everything it extends and includes merged beneath it.

    Each file is read once however often it is named; `sources` (when given) receives the
    text of every file read, in the order they were read. `text`, when given, stands for
    the contents of `path` itself (a language server's unsaved buffer); its bases are read
    from their files under the same rules. With `in_file` false, `path` names a document in
    no file (an editor's `untitled:` buffer): it has no folder, so it may name only the
    shipped rulesets and blocks.
    """
    return _compose(path, _Composition(sources, text, in_file), ())


def _compose(path: str, state: _Composition, chain: tuple[str, ...]) -> Map:
    if not chain and state.text is not None:
        text = state.text
    else:
        data = read_bytes(path)
        state.bytes += len(data)
        text = decode(data, path)
    if state.sources is not None:
        state.sources[path] = text
    tree = load_yaml(text, path)
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
    # a document in no file has no folder: its references find shipped files only
    here = Path(path).resolve().parent if chain or state.in_file else None
    chain = (*chain, str(Path(path).resolve()))
    below = 0  # files in the longest chain beneath this one
    bases: list[Node] = []
    named: set[str] = set()
    for key in ("extends", "include"):
        value = tree.get(key)
        if (
            value is not None
            and not (isinstance(value, Scalar) and isinstance(value.value, str))
            and not (isinstance(value, Seq) and key == "include")
        ):
            problems.append(Diagnostic("RE011", f"'{key}' must name a rule file", value.span))
            continue
        references = _references(tree, key)
        if isinstance(value, Seq):
            for item in value.items:
                if not (isinstance(item, Scalar) and isinstance(item.value, str)):
                    problems.append(Diagnostic("RE011", f"each entry of '{key}' must name a rule file", item.span))
        if value is not None and len(references) > MAX_COMPOSED_FILES:  # checked before any of them is looked up
            problems.append(Diagnostic("RE021", f"'{key}' names more than {MAX_COMPOSED_FILES} files", value.span))
            continue
        for reference in references:
            base, height = _load_base(reference, key, here, chain, state, named, problems)
            below = max(below, height)
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
    state.height[chain[-1]] = below + 1
    merged: Node = Map({}, {}, tree.span)
    for base in bases:
        merged = merge(merged, base)
    own = Map(
        {k: v for k, v in tree.entries.items() if k not in ("extends", "include")},
        {k: s for k, s in tree.key_spans.items() if k not in ("extends", "include")},
        tree.span,
    )
    missing: list[Diagnostic] = []
    result = merge(merged, own, missing if bases else None)
    if missing:  # the file would play otherwise than it says
        raise RuleFileError(missing)
    assert isinstance(result, Map)
    return result


def _load_base(
    reference: Scalar,
    key: str,
    here: Path | None,
    chain: tuple[str, ...],
    state: _Composition,
    named: set[str],
    problems: list[Diagnostic],
) -> tuple[Node | None, int]:
    """The composed file `reference` names, and the files in the longest chain from it down
    (None and 0 when it is refused: the reason is added to `problems`)."""
    name = str(reference.value)
    shown = _shown(name)
    found = find_reference(name, here)
    unusable = why_unusable(name, here) if found is None else None
    if unusable is not None:  # there, but no file to read: the shipped names are beside the point
        problem, hint = unusable
        problems.append(Diagnostic("RE012", f"'{key}' names '{shown}', {problem}", reference.span, hint=hint))
        return None, 0
    if found is None:
        shipped = shipped_rulesets()
        hint = did_you_mean(name, shipped) or f"shipped rulesets: {', '.join(shipped)}"
        if here is None:
            hint = f"a document in no file names shipped rulesets only; save it to name files beside it ({hint})"
        problems.append(
            Diagnostic(
                "RE012",
                f"'{key}' names '{shown}', which is neither a file nor a shipped ruleset",
                reference.span,
                hint=hint,
            )
        )
        return None, 0
    resolved = found.resolve()
    if not is_confined(resolved, here):
        # Never read, and never quoted: only the reference as written is named.
        problems.append(
            Diagnostic(
                "RE019",
                f"'{key}' names '{shown}', which is outside this file's folder and not a shipped ruleset",
                reference.span,
                hint="a rule file may extend or include only files in its own folder or below it (symbolic "
                "links are followed before this check), and the shipped rulesets and blocks by name",
            )
        )
        return None, 0
    resolved_text = str(resolved)
    if resolved_text in chain:
        itself = resolved_text == chain[-1]
        circle = "the file names itself" if itself else "that file extends or includes this one, through others"
        problems.append(
            Diagnostic(
                "RE013",
                f"'{key}' of '{shown}' is circular: {circle}",
                reference.span,
                hint=" -> ".join(Path(c).name for c in (*chain, resolved_text)),
            )
        )
        return None, 0
    if resolved_text in named:
        problems.append(
            Diagnostic(
                "RE020", f"'{shown}' is named twice by this file", reference.span, hint="extend or include a file once"
            )
        )
        return None, 0
    named.add(resolved_text)
    # a file read already is not read again, but the chain through it counts from here
    height = state.height.get(resolved_text, 1)
    if len(chain) + height > MAX_CHAIN:
        problems.append(
            Diagnostic("RE014", f"more than {MAX_CHAIN} files extend or include each other", reference.span)
        )
        return None, 0
    if resolved_text in state.done:
        return state.done[resolved_text], height  # read once: its own problems are reported already
    if len(state.done) >= MAX_COMPOSED_FILES:
        problems.append(
            Diagnostic("RE021", f"more than {MAX_COMPOSED_FILES} files are extended or included", reference.span)
        )
        return None, 0
    try:
        size = resolved.stat().st_size
    except OSError:
        size = 0  # reading it reports why it cannot be read
    if state.bytes + size > MAX_COMPOSED_BYTES:
        problems.append(
            Diagnostic(
                "RE022",
                f"the files extended or included hold more than {MAX_COMPOSED_BYTES} bytes together",
                reference.span,
            )
        )
        return None, 0
    state.done[resolved_text] = None
    try:
        composed = _compose(str(found), state, chain)
    except RuleFileError as error:
        problems.extend(error.diagnostics)
        return None, 0
    state.done[resolved_text] = composed
    return composed, state.height[resolved_text]


def _candidates(name: str, here: Path | None, shipped: bool) -> list[Path]:
    """The files a reference may name, in the order they are looked for (`here` None: a
    document in no file, which names shipped files only)."""
    given = Path(name)
    if here is None:
        candidates = []
    else:
        candidates = [given] if given.is_absolute() else [here / given, here / f"{name}.yaml"]
    if shipped:
        candidates += [rulesets_dir() / f"{name}.yaml", rulesets_dir() / name]
    return candidates


def find_reference(name: str, here: Path | None, shipped: bool = True) -> Path | None:
    """The file a reference names: relative to the including file's folder, else (with
    `shipped`) a shipped one. The process's working folder is never consulted. The file
    found may lie outside `here`: check it with `is_confined` before reading it.
    """
    if "\0" in name:
        return None
    for candidate in _candidates(name, here, shipped):
        try:
            if candidate.is_file():
                return candidate
        except (OSError, ValueError):  # a name too long, or holding a NUL
            continue
    return None


# what the system says when nothing of a name is there (a folder on the way missing or a file)
_ABSENT = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ENAMETOOLONG})
_NOT_REGULAR = "a rule file extends or includes regular files only; a folder, a pipe or a device is never read"
_REFUSED = frozenset({errno.EACCES, errno.EPERM})
_NOT_PERMITTED = "the file, or a folder on the way to it, may not be read by the user checking it"


def why_unusable(name: str, here: Path | None) -> tuple[str, str | None] | None:
    """Why a reference that `find_reference` finds no file for is not simply missing, as the
    rest of a message and a hint: the first file of that name beside the including file is
    there but not a regular file (a folder, a pipe, a device), or the system cannot look it up
    (no permission, a loop of symbolic links). None when nothing of that name is there."""
    if "\0" in name:
        return None
    for candidate in _candidates(name, here, shipped=False):
        # the file is named as the reference gives it, or with the `.yaml` added
        which = "which" if candidate.name == Path(name).name else f"and '{_shown(name)}.yaml'"
        try:
            candidate.stat()
        except OSError as error:
            if error.errno in _ABSENT:
                continue
            reason = error.strerror or type(error).__name__
            return f"{which} cannot be read: {reason}", _NOT_PERMITTED if error.errno in _REFUSED else None
        except ValueError:
            continue
        return f"{which} is not a regular file", _NOT_REGULAR
    return None


def is_confined(resolved: Path, here: Path | None) -> bool:
    """Inside the including file's folder tree (if it has one), or one of the shipped rulesets
    and blocks."""
    return (here is not None and resolved.is_relative_to(here)) or resolved.is_relative_to(rulesets_dir().resolve())


def _shown(name: str) -> str:
    """A reference as written, cut short and with control characters made visible."""
    text = shortened(name, 80)
    return text.encode("unicode_escape", "backslashreplace").decode("ascii") if not text.isprintable() else text
