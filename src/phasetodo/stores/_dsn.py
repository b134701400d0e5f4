"""Connection strings as phasetodo shows them: never with a password.

Every place that renders a DSN or a store (errors, ``repr``, the command's
output and ``--json``) goes through :func:`redact`. A password that is not in
the DSN (``PGPASSWORD``, a passfile, a service file) is libpq's business: the
DSN is handed to it as given and never parsed here for connecting.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

__all__ = ["MASK", "redact"]

#: What a password is replaced with.
MASK = "***"

#: ``scheme:`` or ``scheme://`` at the start of a URL-like DSN.
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:(?://)?")
#: A ``password=`` or ``sslpassword=`` value: a URL parameter or a keyword, quoted or not.
_PASSWORD_VALUE = re.compile(r"(\b(?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.)*'?|[^\s&#]*)", re.IGNORECASE)
#: Shorter passwords are masked where the DSN holds them, not searched for in other text.
_QUOTABLE = 4
#: Where libpq may cut a password it misreads (an unencoded ``@`` or ``/``) and quote a piece.
_PIECES = re.compile(r"[@/:?#]")


def _userinfo(text: str) -> tuple[str, str, str, str] | None:
    """``(scheme, user, password, "@host...")`` of a URL whose user info holds a password, else None.

    The user info runs to the last ``@``, so a password holding an unencoded ``@`` or ``/`` is covered.
    """
    scheme = _SCHEME.match(text)
    if scheme is None:
        return None
    rest = text[scheme.end() :]
    at = rest.rfind("@")
    info = rest[:at]
    if at <= 0 or ":" not in info:
        return None
    user, password = info.split(":", 1)
    return scheme.group(), user, password, rest[at:]


def _secrets(dsn: str) -> set[str]:
    """The passwords written in ``dsn``: as written, percent-decoded, and the pieces libpq may split off."""
    url = _userinfo(dsn)
    found = [url[2]] if url is not None else []
    found += [match.group(2).strip("'") for match in _PASSWORD_VALUE.finditer(dsn)]
    forms = {form for secret in found for form in (secret, unquote(secret))}
    forms |= {piece for form in forms for piece in _PIECES.split(form)}
    return {form for form in forms if len(form) >= _QUOTABLE}


def redact(text: str, dsn: str | None = None) -> str:
    """``text`` with every password shown as ``***``: ``postgresql://agent:***@host/db``, ``password=***``.

    A URL keeps its user; ``dsn`` (the DSN that ``text`` is about, say a driver's
    error message) also masks that DSN's passwords wherever ``text`` quotes them.
    """
    secrets = _secrets(dsn) if dsn is not None else set()
    url = _userinfo(text)
    if url is not None:
        scheme, user, _, host = url
        text = f"{scheme}{user}:{MASK}{host}"
    text = _PASSWORD_VALUE.sub(lambda match: match.group(1) + MASK, text)
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text
