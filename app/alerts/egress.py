"""Where the server may send alert webhooks: public addresses, and what the operator allows besides.

A webhook URL comes from a project token. Without a policy the server would POST alert JSON
wherever it points: its own loopback services, the cloud metadata server (169.254.169.254), hosts of
a private network. The policy judges the addresses a host name resolves to, not the URL's text
(``localhost``, ``0x7f.1``, ``[::ffff:127.0.0.1]`` and a name whose DNS answers 10.0.0.5 all come
down to an address), at the moment of sending, and the connection then goes to the very address
that was judged: a DNS answer that changes between the check and the connect changes nothing.

``TPUWATCH_ALERT_WEBHOOK_ALLOW`` lists internal receivers the operator trusts: host names, addresses
or networks, comma-separated (``alerts.internal, 10.20.0.0/16, 127.0.0.1``). The server-wide
``TPUWATCH_ALERT_WEBHOOK_URL`` is the operator's own: that URL is trusted (its scheme, host, port and
path, and paths below it), not its whole host: a project may not point a webhook at another port
or path of a trusted internal host, nor may a receiver redirect there.

>>> policy = EgressPolicy.parse("10.20.0.0/16, alerts.internal")
>>> policy.judge("10.20.1.1", "x"), policy.judge("10.30.1.1", "x")
(None, 'a private address')
>>> EgressPolicy().judge("169.254.169.254", "metadata.google.internal")
'a link-local address (the cloud metadata server lives there)'
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
from dataclasses import dataclass, field
from urllib.parse import urlsplit

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class EgressRefused(Exception):
    """The policy does not let the server send to this URL; the message says why and what to do."""


@dataclass(frozen=True)
class Target:
    """A URL the policy let through, with the addresses to connect to (in the resolver's order)."""

    scheme: str
    host: str
    port: int
    path: str
    addresses: tuple[str, ...]


NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


def _unwrap(ip: Address) -> Address:
    """The IPv4 address inside an IPv4-mapped, IPv4-compatible, NAT64, 6to4 or Teredo IPv6 address
    (judged as itself: ``64:ff9b::a9fe:a9fe`` is the metadata server behind a NAT64 gateway).

    >>> ip = ipaddress.ip_address
    >>> str(_unwrap(ip("64:ff9b::7f00:1"))), str(_unwrap(ip("::127.0.0.1"))), str(_unwrap(ip("::1")))
    ('127.0.0.1', '127.0.0.1', '::1')
    """
    if isinstance(ip, ipaddress.IPv6Address):
        inner = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if inner is None and (any(ip in net for net in NAT64) or 1 < int(ip) < 2**32):
            inner = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if inner is not None:
            return inner
    return ip


def why_internal(ip: Address) -> str | None:
    """Why ``ip`` is no public address (None when it is one)."""
    ip = _unwrap(ip)
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address (the cloud metadata server lives there)"
    if ip.is_unspecified:
        return "the unspecified address (it reaches this host)"
    if ip.is_multicast:
        return "a multicast address"
    if ip.is_private:
        return "a private address"
    if not ip.is_global:
        return "a reserved, shared or otherwise non-public address"
    return None


def _place(url: str) -> tuple[str, str, int, str] | None:
    """(scheme, host, port, path) of a URL, to compare a webhook with a trusted one."""
    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None
    host = (parts.hostname or "").lower().rstrip(".")
    return (parts.scheme.lower(), host, port, parts.path or "/") if host else None


@dataclass(frozen=True)
class EgressPolicy:
    allow_hosts: frozenset[str] = frozenset()
    allow_networks: tuple[Network, ...] = field(default_factory=tuple)
    trusted: tuple[tuple[str, str, int, str], ...] = ()  # the operator's own URLs (and paths below)

    def trusts(self, url: str) -> bool:
        """Whether ``url`` is a trusted URL or lies below one (same scheme, host and port).

        >>> p = EgressPolicy.parse("", ("http://localhost:9/ops-hook",))
        >>> p.trusts("http://localhost:9/ops-hook/x"), p.trusts("http://localhost:10/ops-hook")
        (True, False)
        """
        place = _place(url)
        if place is None:
            return False
        for scheme, host, port, path in self.trusted:
            below = place[3] == path or place[3].startswith(path.rstrip("/") + "/")
            if place[:3] == (scheme, host, port) and below:
                return True
        return False

    @classmethod
    def parse(cls, text: str, trusted_urls: tuple[str, ...] = ()) -> EgressPolicy:
        """From ``TPUWATCH_ALERT_WEBHOOK_ALLOW``; ``trusted_urls`` are trusted as URLs (and below)."""
        hosts, networks = set(), []
        for item in (part.strip() for part in text.split(",")):
            if not item:
                continue
            try:
                networks.append(ipaddress.ip_network(item.strip("[]"), strict=False))
            except ValueError:
                hosts.add(item.lower().rstrip("."))
        trusted = tuple(place for place in (_place(u) for u in trusted_urls if u) if place)
        return cls(frozenset(hosts), tuple(networks), trusted)

    @classmethod
    def from_settings(cls, settings) -> EgressPolicy:
        """Public addresses, ``TPUWATCH_ALERT_WEBHOOK_ALLOW``, and the operator's own
        ``TPUWATCH_ALERT_WEBHOOK_URL`` (that URL, not its host)."""
        return cls.parse(settings.alert_webhook_allow, (settings.alert_webhook_url,))

    def judge(self, address: str, host: str) -> str | None:
        """None when the server may connect to ``address`` for ``host``, else why not."""
        ip = ipaddress.ip_address(address.split("%", 1)[0])
        if host.lower().rstrip(".") in self.allow_hosts:
            return None
        if any(ip in net or _unwrap(ip) in net for net in self.allow_networks):
            return None
        return why_internal(ip)

    def vet(self, url: str, resolve=socket.getaddrinfo) -> Target:
        """The URL's target when every address its host resolves to is allowed, else EgressRefused.

        OSError (the name does not resolve) passes through: that is worth retrying later."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise EgressRefused("a webhook must be an http:// or https:// URL")
        host = parts.hostname
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            raise EgressRefused("the webhook URL's port is not a number from 1 to 65535") from None
        infos = resolve(host, port, type=socket.SOCK_STREAM)
        addresses = list(dict.fromkeys(info[4][0] for info in infos))
        trusted = self.trusts(url)
        for address in [] if trusted else addresses:
            reason = self.judge(address, host)
            if reason is not None:
                shown = host if host == address else f"{host} resolves to {address}"
                raise EgressRefused(
                    f"refused: {shown}, {reason}; alert webhooks go to public addresses unless "
                    "TPUWATCH_ALERT_WEBHOOK_ALLOW lists the receiver"
                )
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        return Target(parts.scheme, host, port, path, tuple(addresses))

    def check_new(self, url: str) -> None:
        """For a channel being added: EgressRefused when the URL reaches what the policy refuses.
        A name that does not resolve now is accepted: every send checks again."""
        try:
            self.vet(url)
        except OSError:
            pass


class _Pinned(http.client.HTTPConnection):
    """An HTTP connection to ``address`` that speaks to it as ``host`` (the Host header)."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedTLS(http.client.HTTPSConnection):
    """The same over TLS: the certificate is checked against ``host``, not the address."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._address = address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def post(target: Target, data: bytes, headers: dict, timeout: float) -> tuple[int, str | None]:
    """POST ``data`` to the target's judged addresses (the first that answers); returns the status
    and the Location header. Never follows a redirect itself."""
    cls = _PinnedTLS if target.scheme == "https" else _Pinned
    error: OSError | None = None
    for address in target.addresses:
        conn = cls(target.host, target.port, address, timeout)
        try:
            conn.request("POST", target.path, body=data, headers=headers)
            resp = conn.getresponse()
            resp.read(4096)
            return resp.status, resp.getheader("Location")
        except (OSError, http.client.HTTPException) as exc:
            error = exc if isinstance(exc, OSError) else OSError(str(exc))
        finally:
            conn.close()
    raise error or OSError("no address to connect to")
