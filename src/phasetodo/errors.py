"""Exceptions raised by phasetodo. This module imports nothing of ours."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

__all__ = [
    "AmbiguousTarget",
    "CorruptLog",
    "CorruptLogWarning",
    "FormerDefaultStoreWarning",
    "GitPlanError",
    "InvalidBeads",
    "InvalidEvent",
    "InvalidOption",
    "InvalidOptionType",
    "InvalidParams",
    "InvalidPhases",
    "InvalidSessionId",
    "InvalidStoreSpec",
    "NoAgentSession",
    "NotSessionOwner",
    "PhasetodoError",
    "PhasetodoWarning",
    "ProfileMismatch",
    "RequestIdReused",
    "SessionClosed",
    "SessionError",
    "StoreError",
    "TamperedLogWarning",
    "TargetNotFound",
    "TornTailWarning",
    "UnknownProfile",
    "VersionConflict",
    "WritersQueueWarning",
    "install_hint",
]


class PhasetodoError(Exception):
    """Base class of every error phasetodo raises on purpose."""


class _ProblemsError(PhasetodoError, ValueError):
    """An error that lists one problem per line, each naming its place."""

    def __init__(self, problems: Iterable[str], what: str) -> None:
        self.problems: tuple[str, ...] = tuple(problems)
        lines = "\n".join(f"  {p}" for p in self.problems)
        super().__init__(f"{what}:\n{lines}" if lines else what)


class InvalidParams(_ProblemsError):
    """Tool arguments break the parameter schema; nothing was applied.

    ``problems`` holds one line per problem, such as
    ``ops[0].op: must be one of init, start, done, drop, rm, append, note``.
    """

    def __init__(self, problems: Iterable[str]) -> None:
        super().__init__(problems, "invalid todo_write parameters")


class InvalidPhases(_ProblemsError):
    """Stored phase data is malformed; ``problems`` names each bad place."""

    def __init__(self, problems: Iterable[str]) -> None:
        super().__init__(problems, "invalid phases")


class InvalidBeads(_ProblemsError):
    """A text that is not beads JSONL (one issue object per line); each problem names its line."""

    def __init__(self, problems: Iterable[str]) -> None:
        super().__init__(problems, "not a beads export, nothing was imported")


class InvalidOption(PhasetodoError, ValueError):
    """An argument given to a phasetodo function or class is out of range; the message names it."""


class InvalidOptionType(PhasetodoError, TypeError):
    """An argument given to a phasetodo function or class has the wrong type; the message names it."""


class UnknownProfile(InvalidOption):
    """A profile name that no known profile has; ``name`` is what was given."""

    def __init__(self, name: object, known: Iterable[str] = ()) -> None:
        self.name = name
        names = ", ".join(known)
        super().__init__(f"profile: must be one of {names}, not {name!r}" if names else
                         f"profile: unknown profile {name!r}")


class _Target(Protocol):
    def describe(self) -> str: ...


class TargetNotFound(PhasetodoError, LookupError):
    """No task or phase matches the query."""

    def __init__(
        self, query: str, kinds: Iterable[str] = ("task", "phase"), suggestions: Sequence[str] = ()
    ) -> None:
        self.query = query
        #: The closest names, best first, for a "did you mean" (a typo such as ``tokenzier``).
        self.suggestions: tuple[str, ...] = tuple(suggestions)
        what = " or ".join(kinds)
        hint = ""
        if self.suggestions:
            hint = "; did you mean " + " or ".join(f'"{name}"' for name in self.suggestions) + "?"
        super().__init__(f'no {what} matches "{query}"{hint}')


class AmbiguousTarget(PhasetodoError, LookupError):
    """The query matches several tasks or phases; ``candidates`` lists them."""

    def __init__(self, query: str, candidates: Sequence[_Target]) -> None:
        self.query = query
        self.candidates: tuple[_Target, ...] = tuple(candidates)
        lines = "\n".join(f"  {c.describe()}" for c in self.candidates)
        super().__init__(f'"{query}" matches {len(self.candidates)} targets:\n{lines}')


class SessionError(PhasetodoError):
    """Base class of the errors a durable session raises."""


class InvalidSessionId(SessionError, ValueError):
    """A session id that is empty, too long, or could leave its store (``../x``, ``/``, NUL)."""


class InvalidStoreSpec(InvalidOption):
    """A store string outside the store grammar (``mysql://x``, ``sqlite://todo.db``).

    The message names the accepted forms, never a PostgreSQL password.
    """


class VersionConflict(SessionError):
    """The log moved on past ``expected``: newer state would be overwritten; nothing was appended."""

    def __init__(self, session_id: str, expected: int, actual: int) -> None:
        self.session_id = session_id
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"session {session_id!r}: expected_version is {expected}, but the log is at {actual}"
        )


class NoAgentSession(SessionError):
    """A tool write came without the agent session that owns the list."""


class NotSessionOwner(SessionError):
    """A session belongs to one agent; another agent tried to open or write it."""


class ProfileMismatch(SessionError, ValueError):
    """A plan was opened with another profile than the one its log records."""

    def __init__(self, session_id: str, recorded: str, asked: str) -> None:
        self.session_id, self.recorded, self.asked = session_id, recorded, asked
        super().__init__(
            f"session {session_id!r} is a {recorded!r} plan (its log records that profile), "
            f"not {asked!r}: open it with profile={recorded!r}, or without a profile"
        )


class SessionClosed(SessionError):
    """The session was closed; open it again to go on."""


class StoreError(SessionError, OSError):
    """The store could not do what was asked (a full disk, a refused symlink); nothing was saved.

    The message names the store and the cause; ``__cause__`` holds the underlying error.
    """


class CorruptLog(SessionError):
    """A session log holds a line that is not a valid event; ``path`` and ``line`` name it."""

    def __init__(self, path: str, line: int, reason: str) -> None:
        self.path = path
        self.line = line
        self.reason = reason
        super().__init__(f"{path}:{line}: corrupt session log line: {reason}")


class RequestIdReused(SessionError, ValueError):
    """A ``request_id`` already in the log came again with other params; nothing was appended.

    ``request_id`` is the id and ``version`` the event that holds its first call.
    """

    def __init__(self, session_id: str, request_id: str, version: int) -> None:
        self.session_id = session_id
        self.request_id = request_id
        self.version = version
        super().__init__(
            f"session {session_id!r}: request_id {request_id!r} was already used by version "
            f"{version} with other params; a retry must send the same params, a new call a new id "
            "(nothing was appended)"
        )


class InvalidEvent(SessionError, ValueError):
    """A stored event that does not have the event shape; the message names the field."""


class GitPlanError(SessionError):
    """A plan kept in a git repository could not be read, merged or set up (not a git
    repository, no such ref, a file that is not a phasetodo log); the message names it."""


class PhasetodoWarning(PhasetodoError, UserWarning):
    """Base class of every warning phasetodo issues."""


class TornTailWarning(PhasetodoWarning):
    """A log ended in a line torn by a crash; it was moved aside and the complete events kept."""


class CorruptLogWarning(PhasetodoWarning):
    """A corrupt log line was skipped (``on_corrupt="skip"``); the warning names file and line."""


class TamperedLogWarning(PhasetodoWarning):
    """A log's hash chain does not hold: a record was altered, removed or reordered. Opening a
    durable log checks every record and the message names the first such version (the one
    ``Session.verify()`` names); issued once per log object, at the code that opened or read it."""


class FormerDefaultStoreWarning(PhasetodoWarning):
    """A session is only at the former default location (``~/.local/state/phasetodo``).

    The message says how to reach it there (``PHASETODO_HOME``).
    """


class WritersQueueWarning(PhasetodoWarning):
    """The SQLite writers' queue (the ``flock`` of ``PATH.writers``) cannot be used on this
    file system: writers fall back to SQLite's own busy wait. Issued once per store object."""


def install_hint(extra: str) -> str:
    """How to add the optional ``extra``, for the message of an import that needs it.

    phasetodo is on no package index, so the extra comes from a clone or a built wheel.
    """
    return (
        f"python -m pip install './phasetodo[{extra}]' from a clone, or the wheel with [{extra}] "
        "(phasetodo is on no package index)"
    )
