"""Who may talk to the board: the ``Host`` names it answers to, and whether reads need the token.

The Host allowlist is always on, so a DNS-rebinding page (whose requests carry
the attacker's own name) is refused whatever address the board is bound to.
A board bound beyond loopback also wants its token on every read.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

import attrs

from ..errors import InvalidOption

__all__ = ["LOCAL_HOSTS", "Access", "access_for", "check_host_name", "host_name", "normal_host"]

#: Host names a browser uses for this machine; the bound address is added to them.
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def host_name(host: str) -> str:
    """``host`` without its port (``[::1]:8765`` → ``::1``)."""
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _ip(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        return None


def normal_host(name: str) -> str:
    """``name`` as the allowlist compares it: lower case, no final dot, IP literals in short form."""
    name = name.strip().lower()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    ip = _ip(name)
    return str(ip) if ip is not None else name.removesuffix(".")


def _normal_hosts(hosts: Iterable[str]) -> frozenset[str]:
    return frozenset(map(normal_host, hosts))


@attrs.frozen
class Access:
    """The board's doors: ``hosts`` it answers to, any IP literal too when ``any_ip``
    (bound to every interface), and ``private`` when reads need the token as well."""

    hosts: frozenset[str] = attrs.field(default=LOCAL_HOSTS, converter=_normal_hosts)
    any_ip: bool = False
    private: bool = False

    def allows(self, host: str) -> bool:
        """Whether a request whose ``Host`` header is ``host`` (port and all) is for this board."""
        name = normal_host(host_name(host))
        if name in self.hosts:
            return True
        # A rebinding page always sends its own name; an address can only be the board's own.
        return self.any_ip and _ip(name) is not None


def check_host_name(name: object) -> str:
    """``name`` normalized, if it can be a ``--allow-host`` name; else ``InvalidOption``."""
    if not isinstance(name, str) or not name.strip():
        raise InvalidOption(f"allow_host: {name!r} is not a host name")
    text = normal_host(name)
    if _ip(text) is None and (not text or any(c in text for c in " /\\:@?#[]%") or text.startswith(".")):
        raise InvalidOption(f"allow_host: {name!r} is not a host name (give the name alone, no port)")
    return text


def access_for(host: str, bound: str, allow: Iterable[str] = ()) -> Access:
    """The access of a board asked to listen on ``host`` that listens on address ``bound``.

    It answers to the loopback names, ``host``, ``bound`` and each of ``allow``;
    bound to every interface (``0.0.0.0``, ``::``) also to any IP literal. Reads
    need the token unless ``bound`` is a loopback address.
    """
    extra = [check_host_name(name) for name in allow]
    ip = _ip(normal_host(bound))
    wildcard = ip is not None and ip.is_unspecified
    names = {*LOCAL_HOSTS, *extra}
    if not wildcard:
        names |= {host, bound}
    return Access(names, any_ip=wildcard, private=ip is None or not ip.is_loopback)
