"""Where the grammar and the shipped rulesets live: inside the wheel, or in a checkout."""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_CHECKOUT = _PACKAGE.parent


def _data_dir(name: str) -> Path:
    bundled = _PACKAGE / "_data" / name  # put there by the wheel build
    return bundled if bundled.is_dir() else _CHECKOUT / name


@functools.lru_cache(maxsize=1)
def grammar_text() -> str:
    return (_data_dir("grammar") / "rules.lark").read_text(encoding="utf-8")


def grammar_cache_file() -> str | bool:
    """Where the parser built from the grammar is kept between runs, or False for nowhere.

    Building the LALR tables costs more than checking a small rule file, so they are built
    once per grammar: the file name carries a hash of the grammar text (two checkouts with
    different grammars do not overwrite each other), and the file lives in the user's own
    cache folder ($XDG_CACHE_HOME or ~/.cache; RULESENGINE_CACHE=0 turns it off), never in a
    folder shared with other users.
    """
    if os.environ.get("RULESENGINE_CACHE", "1") == "0":
        return False
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = Path(base) / "rulesengine"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return False
    if not os.access(folder, os.W_OK):
        return False
    digest = hashlib.sha256(grammar_text().encode("utf-8")).hexdigest()[:16]
    return str(folder / f"grammar-{digest}.lark-cache")


def rulesets_dir() -> Path:
    return _data_dir("rulesets")


def shipped_rulesets() -> list[str]:
    """Names of the shipped rulesets (blocks meant for `include` are not games)."""
    return sorted(p.stem for p in rulesets_dir().glob("*.yaml"))


def resolve_ruleset(name_or_path: str) -> Path | None:
    """A path for a ruleset named by path or by shipped name."""
    given = Path(name_or_path)
    candidates = [given, rulesets_dir() / f"{name_or_path}.yaml", rulesets_dir() / name_or_path]
    for candidate in candidates:
        try:
            if candidate.is_file():
                return tidy(candidate)
        except OSError:  # a name too long, a folder that may not be entered: no file there
            continue
    return None


def tidy(path: Path) -> Path:
    """`path` without `..` steps when that still names the same file (after a symbolic link
    to a folder, `..` leads into that folder's parent, which the tidy form would not).

    The tidy form is the one a folder walk gives, so a ruleset named from its tests
    (`../game.yaml`) is the same file name as when it is checked itself: its diagnostics
    read alike, and a check made once is found again.
    """
    tidy = Path(os.path.normpath(path))
    try:
        return tidy if tidy == path or tidy.resolve() == path.resolve() else path
    except (OSError, RuntimeError):  # the tidy form names a symbolic link loop
        return path


def same_file(target: Path, given: str | os.PathLike) -> bool:
    """Whether `target` is the rule file `given` names (a path or a shipped name), also through
    another spelling, a symbolic link or a hard link."""
    source = resolve_ruleset(str(given)) or Path(given)
    try:
        return os.path.samefile(target, source)
    except OSError:  # one of them does not exist (yet): compare where they would be
        try:
            return target.resolve() == source.resolve()
        except RuntimeError:  # a loop of symbolic links names no rule file
            return False
