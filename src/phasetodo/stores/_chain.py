"""The hash chain that makes a log's history tamper-evident.

Every record a store writes ends in ``"hash"``: the SHA-256 (hex) of the
previous record's hash, a newline, and the record's JSON as written without its
hash (the record's canonical form: the store's compact ASCII JSON, ``"hash"``
last). The first record of a chain follows the empty hash. So altering a
record breaks its own hash; removing or reordering records breaks the next
record's; a record whose hash was removed breaks the chain where it stands.

Records written before the chain existed carry no hash; a log's first hashed
record may follow them (the chain starts there) and ``compact()`` gives every
record one. Removing the *newest* records leaves a shorter chain that still
holds: keep :attr:`Verification.head` somewhere else to notice that too.

Opening a log checks every record with :func:`first_break`: the link of each
record is local (its hash, the previous record's hash and its own bytes), so the
check reads each record's bytes once and decodes no JSON, which is far cheaper
than the decoding of the events that opening does anyway.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from collections.abc import Iterable
from typing import Any

import attrs

from ._records import loads

__all__ = [
    "CONFLICT_REASON",
    "UNSEALED",
    "Verification",
    "caller_level",
    "check_owner",
    "conflict_marked",
    "first_break",
    "follow",
    "seal",
    "unseal",
    "verify_records",
]

#: How a sealed record ends: its hash, as the last member of the object (75 bytes).
_SEALED = re.compile(rb',"hash":"([0-9a-f]{64})"\}')
_SEALED_SIZE = 75
#: How a sealed record's hash begins, ``_SEALED_SIZE`` bytes before its end.
_MARK = b',"hash":"'
#: How our writers begin every record: its version first, compact.
_LEAD = re.compile(rb'\{"version":([0-9]+)[,}]')
#: The folder of the phasetodo package, to tell its frames from the caller's.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


#: Why a record without a hash is not vouched for, wherever it stands.
UNSEALED = (
    "it carries no hash, so nothing vouches for it (its hash was removed, or it was written "
    "before the chain existed: compact() chains every record)"
)


def _digest(previous: str | None, body: bytes) -> str:
    return hashlib.sha256((previous or "").encode("ascii") + b"\n" + body).hexdigest()


def seal(body: str, previous: str | None) -> tuple[str, str]:
    """``body`` (a record's JSON object, without a hash) with its hash appended, and that hash."""
    digest = _digest(previous, body.encode("utf-8", "surrogatepass"))
    return f'{body[:-1]},"hash":"{digest}"}}', digest


def unseal(raw: str | bytes) -> tuple[bytes, str | None]:
    """A stored record as the bytes its hash covers, and the hash (None for an unsealed record)."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    match = _SEALED.fullmatch(data, max(0, len(data) - _SEALED_SIZE))  # the end only, in O(1)
    if match is None:
        return data, None
    return data[: match.start()] + b"}", match.group(1).decode("ascii")


def follow(raw: str | bytes, previous: str | None) -> tuple[str | None, str | None]:
    """This record's hash and, when the chain breaks here, why (else None).

    ``previous`` is the hash of the record before it (None: there is none, or it
    has no hash, so the chain may start here).
    """
    body, digest = unseal(raw)
    if digest is None:
        if previous is None:
            return None, UNSEALED
        return None, "its hash is missing (the record before it has one)"
    if digest != _digest(previous, body):
        return digest, "its hash does not match its contents and the record before it"
    return digest, None


@attrs.frozen
class Verification:
    """What :meth:`Session.verify` found: ``ok``, or the first ``version`` whose record was
    altered, removed or reordered, and ``reason``.

    ``records`` counts the records read, ``chained`` those carrying a hash; ``head`` is
    the newest record's hash (keep it elsewhere to notice the newest records removed).
    """

    ok: bool
    records: int
    chained: int
    head: str | None = None
    version: int | None = None
    reason: str | None = None

    def expecting(self, head: str) -> Verification:
        """This result, failed when the chain holds but its newest hash is not ``head`` (a hash
        kept elsewhere): the newest records were removed, or the whole log was rewritten."""
        if not self.ok or self.head == head:
            return self
        reason = (
            f"the newest hash is {self.head}, not the expected {head}: records were removed "
            "from its end, or the log was rewritten"
        )
        return attrs.evolve(self, ok=False, version=self.records, reason=reason)

    def to_json(self) -> dict[str, Any]:
        """The result as JSON data."""
        return attrs.asdict(self)

    def __str__(self) -> str:
        if self.ok:
            chain = f"{self.chained} of them chained" if self.chained != self.records else "all chained"
            return f"{self.records} records verified ({chain})"
        return f"version {self.version}: {self.reason}"


def check_owner(found: Verification, plan: dict[str, Any] | None, owner: str | None) -> Verification:
    """``found``, failed at version 1 when the owner the store keeps outside the chain (a JSONL
    header, a sessions row) is not the one the chained first record names (``plan``)."""
    if not found.ok or plan is None or plan.get("owner") == owner:
        return found
    reason = (
        f"the owner kept outside the chain ({owner!r}) is not the one its first record names "
        f"({plan.get('owner')!r}): the header or sessions row was altered"
    )
    return attrs.evolve(found, ok=False, version=1, reason=reason)


def verify_records(rows: Iterable[tuple[object, str | bytes]]) -> Verification:
    """Walk ``(stored version or None, record)`` pairs in stored order; the first break, if any."""
    previous: str | None = None
    records = chained = 0
    unsealed: int | None = None  # the first record without a hash: named unless a worse break is found
    for expected, (stored, raw) in enumerate(rows, start=1):
        records += 1
        problem = _problem(expected, stored, raw)
        digest = None
        if problem is None:
            digest, problem = follow(raw, previous)
        if problem == UNSEALED:
            unsealed = expected if unsealed is None else unsealed
        elif problem is not None:
            return Verification(False, records, chained, previous, expected, problem)
        chained += digest is not None
        previous = digest
    if unsealed is not None:
        return Verification(False, records, chained, previous, unsealed, UNSEALED)
    return Verification(True, records, chained, previous)


def first_break(
    rows: Iterable[tuple[object, bytes]], *, start: int = 1, previous: str | None = None
) -> tuple[int, str] | None:
    """The first version at which ``(stored version or None, record)`` pairs, in stored order,
    break the chain or the version order, and why; None when every record holds.

    The first pair is the record of version ``start``, following a record whose hash was
    ``previous`` (to check one stretch of a log).

    It names what :func:`verify_records` names, but decodes no JSON where it can help it:
    a record that begins with its version where our writers put it and whose hash
    matches is taken as sound on those bytes alone. Anything else (another layout, a
    hash that does not match, none) is checked exactly as :func:`verify_records` does.
    So only a record that is not JSON yet carries a hash matching its bytes (a forger
    who re-hashed garbage) is named one version later, where the next link breaks.
    """
    sha256 = hashlib.sha256
    unsealed: int | None = None  # the first record without a hash: named unless a worse break is found
    for expected, (stored, raw) in enumerate(rows, start=start):
        lead = _LEAD.match(raw)
        if lead is None or int(lead.group(1)) != expected or (stored is not None and stored != expected):
            problem = _problem(expected, stored, raw)
            if problem is not None:
                return expected, problem
        size = len(raw)
        if raw[size - _SEALED_SIZE : size - 66] == _MARK and raw.endswith(b'"}'):
            digest = sha256((previous or "").encode("ascii") + b"\n")
            digest.update(memoryview(raw)[: size - _SEALED_SIZE])
            digest.update(b"}")
            computed = digest.hexdigest()
            if computed.encode("ascii") == raw[size - 66 : size - 2]:
                previous = computed
                continue
        found, problem = follow(raw, previous)
        if problem == UNSEALED:
            unsealed = expected if unsealed is None else unsealed
        elif problem is not None:
            return expected, problem
        previous = found
    return None if unsealed is None else (unsealed, UNSEALED)


def caller_level() -> int:
    """The ``stacklevel`` that makes a warning issued by the function calling this one name
    the first frame outside phasetodo: the code that opened or read the log."""
    frame = sys._getframe(1)
    level = 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    return level


#: What a line of git's conflict markers starts with: a merge ran without phasetodo's driver.
_CONFLICT_MARKS = ("<<<<<<< ", "=======", ">>>>>>> ", "||||||| ")
#: What a log with git's conflict markers says, and how to recover.
CONFLICT_REASON = (
    "the file holds git's conflict markers: it was merged as text, without phasetodo's merge "
    "driver (a clone that skipped `phasetodo git init`). Abort the merge (`git merge --abort`), "
    "run `phasetodo git init` once in this clone, and merge again"
)


def conflict_marked(line: str | bytes) -> bool:
    """Whether ``line`` is one of the lines git writes around a conflict."""
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    return text.startswith(_CONFLICT_MARKS)


def _problem(expected: int, stored: object, raw: str | bytes) -> str | None:
    """Why the record stored at ``expected`` cannot be the event of that version, if it cannot."""
    try:
        data = loads(raw)
    except ValueError as error:
        if conflict_marked(raw):
            return CONFLICT_REASON
        return f"the record is not JSON ({error})"
    version = data.get("version") if isinstance(data, dict) else None
    if version != expected or (stored is not None and stored != expected):
        found = version if version != expected else stored
        return f"the record of version {expected} is missing or out of place (found {found!r})"
    return None
