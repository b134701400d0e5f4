"""Plans that travel with the code: a JSONL store in a git repository, merged by git.

``init_repo`` makes ``.phasetodo/`` in a repository (a JSONL store meant to be
committed), gives its session files ``merge=phasetodo`` in ``.gitattributes`` and
registers the merge driver in the repository's git config. The driver
(``phasetodo git merge-driver``) calls :func:`merge_files`: the history both sides
share, then both sides' later events in time order, each applied as the change it
made (tasks matched by id, else by phase and content; phases by identity, so a
renamed phase is one phase; moves and reorders carried over) onto the merged list
(:mod:`phasetodo._planmerge`). Changes that collide are kept as the later one and
recorded as a ``merge-conflict`` event that notes both values on the task.
:func:`phases_at` reads a plan as of a ref.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import attrs

from ._core.model import Phase
from ._planmerge import CONFLICT_SOURCE, Conflict, MergeResult, merge_events
from .errors import CorruptLog, GitPlanError, InvalidEvent
from .stores import Event, JsonlStore

__all__ = [
    "ATTRIBUTES_LINE",
    "CONFLICT_SOURCE",
    "STORE_DIR",
    "Conflict",
    "InitReport",
    "MergeResult",
    "driver_command",
    "init_repo",
    "log_at",
    "merge_events",
    "merge_files",
    "phases_at",
    "read_log",
    "resolve_ref",
    "store_at",
    "top_level",
]

#: The store folder, relative to the repository's top.
STORE_DIR = ".phasetodo"
#: The ``.gitattributes`` line that hands the session logs to the driver.
ATTRIBUTES_LINE = f"{STORE_DIR}/*.jsonl merge=phasetodo"
#: What the store makes beside its logs that must not be committed.
#: The heartbeats' file beside each log (see ``stores/_renewals.py``): changes every beat.
_BEATS = "*.beat"
_IGNORED = f"# made by the phasetodo store, never committed\n*.torn\n*.compact\n{_BEATS}\n"


# -- reading logs ------------------------------------------------------------------------


@attrs.frozen
class _Log:
    session: str | None
    owner: str | None
    events: tuple[Event, ...]


def read_log(path: str | os.PathLike[str], session_id: str | None = None) -> tuple[Event, ...]:
    """The events of the session log in the file ``path`` (any name; an empty file has none).

    ``session_id`` defaults to the one the file's header names. Raises
    :class:`~phasetodo.errors.GitPlanError` when the file is not a phasetodo log.
    """
    return _read(Path(path), session_id).events


def _read(path: Path, session_id: str | None = None) -> _Log:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise GitPlanError(f"{path}: cannot read it: {error.strerror or error}") from error
    if not data.strip():
        return _Log(session_id, None, ())
    first = data.split(b"\n", 1)[0]
    try:
        header = json.loads(first)
    except ValueError:
        header = None
    if not isinstance(header, dict) or "format" not in header or not isinstance(header.get("session"), str):
        raise GitPlanError(f"{path}: not a phasetodo session log (its first line is no session header)")
    sid = session_id if session_id is not None else header["session"]
    owner = header.get("owner") if isinstance(header.get("owner"), str) else None
    with tempfile.TemporaryDirectory(prefix="phasetodo-git-") as folder:
        store = JsonlStore(folder, fsync=False)
        try:
            shutil.copyfile(path, store.path_for(sid))
            chain = store.verify(sid)
            if not chain.ok:
                raise GitPlanError(
                    f"{path}: its hash chain is broken at version {chain.version} ({chain.reason}): "
                    "a record was altered, removed or reordered, so it is not merged (check it "
                    "with phasetodo verify and restore it from a good copy)"
                )
            log = store.open(sid)
            try:
                events = tuple(log.events())
            finally:
                log.close()
        except (CorruptLog, InvalidEvent, ValueError) as error:
            raise GitPlanError(f"{path}: not a readable phasetodo session log: {error}") from error
    return _Log(sid, owner, events)


# -- files ---------------------------------------------------------------------------------


def merge_files(
    base: str | os.PathLike[str],
    ours: str | os.PathLike[str],
    theirs: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
) -> MergeResult:
    """Merge three versions of one session log and write the result over ``out`` (default ``ours``).

    The merged log is written through the JSONL store's own append path, so its
    hash chain is fresh and it verifies. Raises
    :class:`~phasetodo.errors.GitPlanError` when a file is not a phasetodo log.
    """
    logs = [_read(Path(p)) for p in (base, ours, theirs)]
    named = sorted({log.session for log in logs if log.session is not None})
    if not named:
        raise GitPlanError(f"{ours}: none of the three versions is a phasetodo session log")
    if len(named) > 1:
        raise GitPlanError(f"{ours}: the three versions are logs of different sessions: {', '.join(named)}")
    sid = named[0]
    owners = sorted({log.owner for log in logs if log.owner is not None})
    owner = logs[0].owner if logs[0].owner is not None else (owners[0] if owners else None)
    result = merge_events(logs[0].events, logs[1].events, logs[2].events)
    target = Path(ours if out is None else out)
    with tempfile.TemporaryDirectory(prefix="phasetodo-merge-") as folder:
        store = JsonlStore(folder, fsync=False)
        log = store.open(sid, owner=owner)
        try:
            with log.lock():
                for event in result.events:
                    log.append(event)
        finally:
            log.close()
        data = store.path_for(sid).read_bytes()
    temp = target.with_name(target.name + ".merging")
    temp.write_bytes(data)
    os.replace(temp, target)
    return result


# -- the repository ------------------------------------------------------------------------


def _git(repo: str | os.PathLike[str], *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    try:
        done = subprocess.run(["git", "-C", os.fspath(repo), *args], capture_output=True, check=False)
    except FileNotFoundError as error:
        raise GitPlanError("git: the git command is not installed (or not on PATH)") from error
    if check and done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitPlanError(f"git {' '.join(args)}: {message[-1] if message else 'failed'}")
    return done


def top_level(repo: str | os.PathLike[str] = ".") -> Path:
    """The top folder of the git work tree holding ``repo``."""
    done = _git(repo, "rev-parse", "--show-toplevel", check=False)
    if done.returncode != 0:
        raise GitPlanError(f"{os.fspath(repo)}: not in a git repository")
    return Path(done.stdout.decode().strip())


@attrs.frozen
class InitReport:
    """What :func:`init_repo` did: the store folder, and which of its steps changed anything.

    ``ignored`` says that the repository's ignore rules leave the store's logs out, so the
    plan would not be committed (a ``.gitignore`` line such as ``.*`` does that).
    """

    store: Path
    made_store: bool
    added_attributes: bool
    set_driver: bool
    ignored: bool = False


def driver_command() -> str:
    """The merge driver's command line: this interpreter by absolute path (no PATH lookup), with
    ``-P`` so that git's working folder (the repository's top) is not on ``sys.path``: a
    ``phasetodo.py`` any branch landed there is never imported by a merge."""
    return f"{shlex.quote(sys.executable)} -P -m phasetodo.cli git merge-driver %O %A %B %P"


def _no_link(top: Path, path: Path) -> Path:
    """``path`` (inside ``top``), refused when it or a folder on the way is a symbolic link.

    ``init_repo`` writes only real files of the work tree: a link a branch planted
    (``.gitattributes`` to a user's gitconfig, say) is never followed.
    """
    for step in (path, *path.relative_to(top).parents):
        where = top / step if not step.is_absolute() else step
        if where != top and where.is_symlink():
            raise GitPlanError(
                f"git init: {where.relative_to(top)} is a symbolic link; phasetodo writes only real "
                "files inside the work tree (remove the link and run git init again)"
            )
    return path


def _write_new(path: Path, text: str, *, append: bool = False) -> None:
    """Write (or append) ``text`` to ``path`` without following a link that appeared meanwhile."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | (os.O_APPEND if append else os.O_TRUNC)
    try:
        handle = os.open(path, flags, 0o644)
    except OSError as error:
        raise GitPlanError(f"git init: cannot write {path.name}: {error.strerror}") from error
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)


def init_repo(repo: str | os.PathLike[str] = ".") -> InitReport:
    """Set a git repository up for plans that travel with the code; safe to repeat.

    Makes ``.phasetodo/`` (with a ``.gitignore`` for the store's own side files), adds
    ``.phasetodo/*.jsonl merge=phasetodo`` to ``.gitattributes`` and registers the
    driver (``merge.phasetodo.name`` and ``.driver``) in the repository's own config.
    """
    top = top_level(repo)
    store = _no_link(top, top / STORE_DIR)
    ignore = _no_link(top, store / ".gitignore")
    attributes = _no_link(top, top / ".gitattributes")
    made = not store.is_dir()
    store.mkdir(exist_ok=True)
    if not ignore.exists():
        _write_new(ignore, _IGNORED)
    else:  # set up before heartbeats were kept beside the log: their file is ignored too
        kept = ignore.read_text(encoding="utf-8")
        if _BEATS not in kept.splitlines():
            gap = "" if not kept or kept.endswith("\n") else "\n"
            _write_new(ignore, f"{gap}{_BEATS}\n", append=True)
    text = attributes.read_text(encoding="utf-8") if attributes.exists() else ""
    added = ATTRIBUTES_LINE not in text.splitlines()
    if added:
        gap = "" if not text or text.endswith("\n") else "\n"
        _write_new(attributes, f"{gap}{ATTRIBUTES_LINE}\n", append=True)
    command = driver_command()
    now = _git(top, "config", "--local", "--get", "merge.phasetodo.driver", check=False)
    changed = now.returncode != 0 or now.stdout.decode().strip() != command
    if changed:
        _git(top, "config", "--local", "merge.phasetodo.name", "phasetodo session logs")
        _git(top, "config", "--local", "merge.phasetodo.driver", command)
    probe = f"{STORE_DIR}/default.jsonl"  # any log of the store
    ignored = _git(top, "check-ignore", "-q", "--no-index", probe, check=False).returncode == 0
    return InitReport(store, made, added, changed, ignored)


def resolve_ref(ref: str, repo: str | os.PathLike[str] = ".") -> str:
    """The commit id ``ref`` names, or ``GitPlanError`` saying the ref is unknown.

    A ref is never handed to git where it could read as an option (``--output=...``).
    """
    if not ref or ref.startswith("-"):
        raise GitPlanError(f"--at {ref}: not a ref (a ref does not start with '-')")
    asked = f"{ref}^{{commit}}"
    done = _git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", asked, check=False)
    if done.returncode != 0:
        raise GitPlanError(f"--at {ref}: no branch, tag or commit of that name in this repository")
    return done.stdout.decode().strip()


@contextmanager
def store_at(
    ref: str, session_id: str = "default", repo: str | os.PathLike[str] = "."
) -> Iterator[JsonlStore]:
    """A read-only JSONL store holding session ``session_id`` as it was at ``ref``, in a temp folder."""
    top = top_level(repo)
    commit = resolve_ref(ref, top)
    done = _git(top, "show", f"{commit}:{STORE_DIR}/{session_id}.jsonl", check=False)
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = message[-1] if message else "git show failed"
        raise GitPlanError(f"--at {ref}: no {STORE_DIR}/{session_id}.jsonl at {ref} ({why})")
    with tempfile.TemporaryDirectory(prefix="phasetodo-at-") as folder:
        store = JsonlStore(folder, fsync=False)
        path = store.path_for(session_id)
        path.write_bytes(done.stdout)
        path.chmod(0o444)
        yield store


def log_at(ref: str, session_id: str = "default", repo: str | os.PathLike[str] = ".") -> tuple[Event, ...]:
    """The events of session ``session_id`` as committed at ``ref``."""
    with store_at(ref, session_id, repo) as store:
        return read_log(store.path_for(session_id), session_id)


def phases_at(ref: str, session_id: str = "default", repo: str | os.PathLike[str] = ".") -> tuple[Phase, ...]:
    """The plan of session ``session_id`` as committed at ``ref`` (a branch, tag or commit)."""
    events = log_at(ref, session_id, repo)
    return events[-1].phases if events else ()
