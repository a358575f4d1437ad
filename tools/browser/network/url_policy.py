"""Which web addresses the browser may open: a pure check, no Playwright, no network.

`UrlPolicy.check(url)` reads an address the way a browser would (no scheme means
https, hosts in any IPv4 spelling, IPv6 with an IPv4 inside) and either returns the
canonical URL the driver opens, or raises `UrlRefused` carrying a fixed phrase for the
model. The same policy judges what the model asks for (`navigate`) and, through
`check_request`, every request the browser makes (redirects, meta refreshes, pages a
page opens, sub-resources), so one rule decides both.

By default only public http(s) addresses pass: loopback, private, link-local, cloud
metadata and every other range in `blocked_ranges` are refused in every spelling unless the
person allow-lists the host. Anything ambiguous (spaces, control or invisible characters,
backslashes, user names in the address) is refused rather than guessed at.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from dataclasses import dataclass, field, replace
from enum import StrEnum
from urllib.parse import unquote, urlsplit

from tools.browser.network.blocked_ranges import blocked

__all__ = [
    "Refusal",
    "UrlPolicy",
    "UrlRefused",
    "address_refusal",
    "canonical_host",
    "entry_host",
    "parse_ipv4",
]


class Refusal(StrEnum):
    """Why an address was refused; each value maps to one fixed phrase the model reads."""

    CHARACTERS = "characters"
    SCHEME = "scheme"
    MALFORMED = "malformed"
    CREDENTIALS = "credentials"
    PRIVATE = "private"
    METADATA = "metadata"
    BLOCKED = "blocked"
    NOT_ALLOWED = "not_allowed"
    UNRESOLVED = "unresolved"
    NOT_IN_PLAN = "not_in_plan"  # a page went to a site outside the chat's approved plan


PHRASES: dict[Refusal, str] = {
    Refusal.CHARACTERS: (
        "The address was refused: it contains spaces, backslashes, control or invisible characters."
    ),
    Refusal.SCHEME: "The address was refused: only http and https addresses can be opened.",
    Refusal.MALFORMED: "The address was refused: it is not a valid web address.",
    Refusal.CREDENTIALS: (
        "The address was refused: addresses with a user name or password in them are not allowed."
    ),
    Refusal.PRIVATE: (
        "The address was refused: it points to this computer or a private network, "
        "which the person has not allowed."
    ),
    Refusal.METADATA: "The address was refused: it points to a cloud metadata service.",
    Refusal.BLOCKED: "The address was refused: the person has blocked this site.",
    Refusal.NOT_ALLOWED: (
        "The address was refused: this site is not on the person's list of allowed sites."
    ),
    Refusal.UNRESOLVED: (
        "The address was refused: its name could not be looked up, so it could not be checked."
    ),
    Refusal.NOT_IN_PLAN: (
        "The page tried to go to a site outside the approved plan and was stopped. If the task "
        "needs that site, propose a wider plan with update_plan."
    ),
}


class UrlRefused(Exception):
    """An address the policy will not open. `phrase` is what the model reads: fixed, no URL in it."""

    def __init__(self, reason: Refusal) -> None:
        super().__init__(reason.value)
        self.reason = reason

    @property
    def phrase(self) -> str:
        return PHRASES[self.reason]


# Any whitespace, C0/C1 control, or format character (zero-width, bidi): a browser strips or
# reorders these, so the string the person approves would not be the address that opens.
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp", "Cs", "Co", "Cn"})
_SCHEME_RE = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_HOST_PORT_RE = re.compile(r"^[A-Za-z0-9.-]+:\d+(?:[/?#]|$)")
# WHATWG forbidden host code points (after percent-decoding): none of these is ever part of a host.
_FORBIDDEN_HOST = frozenset("\x00\t\n\r #%/:<>?@[\\]^|")
# Full stops that IDNA maps to "." (ideographic, fullwidth, halfwidth ideographic).
_DOT_VARIANTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})

# Names that reach this computer or the local network without being an IP address.
_LOCAL_SUFFIXES = (
    ".localhost",
    ".local",
    ".internal",
    ".intranet",
    ".lan",
    ".home",
    ".home.arpa",
    ".corp",
    ".localdomain",
)
_METADATA_NAMES = frozenset({"metadata", "metadata.google.internal", "instance-data"})

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def has_invisible(text: str) -> bool:
    """Whether `text` holds whitespace, a control, format, surrogate or unassigned character."""
    return any(unicodedata.category(ch) in _INVISIBLE_CATEGORIES for ch in text)


def _ipv4_part(part: str) -> int | None:
    """One dotted part as WHATWG reads it: 0x-hex, 0-prefixed octal, or decimal; None if not a number."""
    if part[:2] in ("0x", "0X"):
        digits, base = part[2:], 16
    elif len(part) > 1 and part.startswith("0"):
        digits, base = part[1:], 8
    else:
        digits, base = part, 10
    if digits == "":
        return 0  # "0x" alone is zero to a browser
    allowed = "0123456789abcdefABCDEF"[: 16 if base == 16 else base]
    if any(ch not in allowed for ch in digits):
        return None
    return int(digits, base)


def _ends_in_number(parts: list[str]) -> bool:
    last = parts[-1]
    if last and all(ch.isdigit() for ch in last) and last.isascii():
        return True
    return _ipv4_part(last) is not None and last[:2] in ("0x", "0X")


def parse_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address a browser reads in `host` (127.1, 2130706433, 0x7f000001, 0177.0.0.1, ...).

    None when the host is a name. Raises `UrlRefused(MALFORMED)` for a host that ends in a
    number yet is no valid address: a browser refuses those too, and guessing would be worse.
    """
    parts = host.split(".")
    if parts and parts[-1] == "" and len(parts) > 1:
        parts = parts[:-1]  # one trailing dot is allowed
    if not parts or not _ends_in_number(parts):
        return None
    if len(parts) > 4 or any(p == "" for p in parts):
        raise UrlRefused(Refusal.MALFORMED)
    numbers = [_ipv4_part(p) for p in parts]
    if any(n is None for n in numbers):
        raise UrlRefused(Refusal.MALFORMED)
    values = [n for n in numbers if n is not None]
    if any(n > 255 for n in values[:-1]) or values[-1] >= 256 ** (5 - len(values)):
        raise UrlRefused(Refusal.MALFORMED)
    address = values[-1]
    for index, n in enumerate(values[:-1]):
        address += n * 256 ** (3 - index)
    return ipaddress.IPv4Address(address)


def address_refusal(ip: IPAddress) -> Refusal | None:
    """Why this address is off limits by default (see `blocked_ranges`), or None if it is public."""
    row = blocked(ip)
    if row is None:
        return None
    return Refusal.METADATA if row.metadata else Refusal.PRIVATE


def canonical_host(raw: str) -> str | IPAddress:
    """A host as the browser will resolve it: an IP address object, or a lower-case ASCII name.

    Percent-escapes are decoded, compatibility forms folded (fullwidth digits, ideographic
    dots), IDNA applied, one trailing dot dropped. Raises `UrlRefused` when nothing sensible
    remains.
    """
    if raw.startswith("[") and raw.endswith("]"):
        inner = raw[1:-1]
        if "%" in inner:  # zone ids (fe80::1%eth0) name a local interface
            raise UrlRefused(Refusal.PRIVATE)
        try:
            return ipaddress.IPv6Address(inner)
        except ValueError as exc:
            raise UrlRefused(Refusal.MALFORMED) from exc
    try:
        host = unquote(raw, errors="strict") if "%" in raw else raw
    except UnicodeDecodeError as exc:
        raise UrlRefused(Refusal.MALFORMED) from exc
    host = unicodedata.normalize("NFKC", host).translate(_DOT_VARIANTS).lower()
    if not host or any(ch in _FORBIDDEN_HOST for ch in host) or has_invisible(host):
        raise UrlRefused(Refusal.MALFORMED)
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError as exc:
            raise UrlRefused(Refusal.MALFORMED) from exc
    ipv4 = parse_ipv4(host)
    if ipv4 is not None:
        return ipv4
    host = host.removesuffix(".")
    if not host or host.startswith(".") or ".." in host:
        raise UrlRefused(Refusal.MALFORMED)
    return host


def _name_refusal(name: str) -> Refusal | None:
    if name in _METADATA_NAMES:
        return Refusal.METADATA
    if name == "localhost" or name.endswith(_LOCAL_SUFFIXES):
        return Refusal.PRIVATE
    if "." not in name:  # single-label names resolve through the local network's search domains
        return Refusal.PRIVATE
    return None


def entry_host(text: str) -> str | IPAddress | None:
    """A host from the person's allow or block list, read like an address host; None if unreadable."""
    text = text.strip()
    if not text:
        return None
    if "://" in text:
        text = urlsplit(text).netloc or text
    if text.startswith("[") and "]:" in text:
        text = text.split("]:", 1)[0] + "]"
    if ":" in text and not text.startswith("[") and text.count(":") == 1:
        text = text.split(":", 1)[0]  # "localhost:8080" means the host
    if ":" in text and not text.startswith("["):
        text = f"[{text}]"  # a bare IPv6 address
    try:
        return canonical_host(text)
    except UrlRefused:
        return None


def _matches(host: str | IPAddress, entries: tuple[str | IPAddress, ...]) -> bool:
    for entry in entries:
        if isinstance(host, str) and isinstance(entry, str):
            if host == entry or host.endswith("." + entry):
                return True
        elif host == entry:
            return True
    return False


@dataclass(frozen=True)
class CheckedUrl:
    """An address that passed: the canonical URL to open, and its host as the browser resolves it."""

    url: str
    host: str | IPAddress | None  # None for about:blank
    allow_listed: bool = False


@dataclass(frozen=True)
class UrlPolicy:
    """The person's browsing rules.

    - `allow_hosts`: hosts (and their subdomains) that pass even when they are loopback or
      private, e.g. `("127.0.0.1", "localhost", "intranet.example")`.
    - `block_hosts`: hosts (and subdomains) always refused; a block beats an allow.
    - `allow_private`: let every loopback/private/link-local address through (a developer
      setting); cloud metadata addresses still need an explicit `allow_hosts` entry.
    - `only_allowed`: refuse every page whose host is not in `allow_hosts`.
    """

    allow_hosts: tuple[str, ...] = ()
    block_hosts: tuple[str, ...] = ()
    allow_private: bool = False
    only_allowed: bool = False
    _allow: tuple[str | IPAddress, ...] = field(init=False, repr=False, compare=False)
    _block: tuple[str | IPAddress, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        allow = tuple(e for e in (entry_host(h) for h in self.allow_hosts) if e is not None)
        block = tuple(e for e in (entry_host(h) for h in self.block_hosts) if e is not None)
        object.__setattr__(self, "_allow", allow)
        object.__setattr__(self, "_block", block)

    def check(self, url: str) -> str:
        """The canonical URL to open for what the model wrote, or `UrlRefused`."""
        return self.inspect(url).url

    def inspect(
        self, url: str, *, schemes: tuple[str, ...] = ("http", "https"), navigation: bool = True
    ) -> CheckedUrl:
        """`check`, keeping the resolved host so the driver can also vet what it resolves to.

        `navigation=False` is for sub-resources (images, scripts, fetches): `only_allowed` limits
        the pages the browser shows, not the CDNs those pages load from.
        """
        if not isinstance(url, str) or not url:
            raise UrlRefused(Refusal.MALFORMED)
        if has_invisible(url) or "\\" in url:
            raise UrlRefused(Refusal.CHARACTERS)
        if url.lower() == "about:blank":
            return CheckedUrl(url="about:blank", host=None)

        scheme_match = _SCHEME_RE.match(url)
        if scheme_match and not _HOST_PORT_RE.match(url):
            scheme = scheme_match.group(1).lower()
            rest = url[scheme_match.end() :]
            if scheme not in schemes:
                raise UrlRefused(Refusal.SCHEME)
            if not rest.startswith("//"):
                raise UrlRefused(Refusal.MALFORMED)  # "http:evil.com" is read several ways
        elif url.startswith("/"):
            raise UrlRefused(
                Refusal.MALFORMED
            )  # relative or scheme-relative: no base to read it against
        else:
            scheme, rest = "https", "//" + url  # the toolset's rule: no scheme means https

        try:
            parts = urlsplit(f"{scheme}:{rest}")
            port = parts.port
        except ValueError as exc:
            raise UrlRefused(Refusal.MALFORMED) from exc
        if "@" in parts.netloc:
            raise UrlRefused(Refusal.CREDENTIALS)
        raw_host = parts.netloc
        if port is not None or raw_host.endswith(":"):
            raw_host = raw_host.rsplit(":", 1)[0]
        if not raw_host:
            raise UrlRefused(Refusal.MALFORMED)

        host = canonical_host(raw_host)
        allow_listed = self.judge(host, navigation=navigation)
        text_host = f"[{host.compressed}]" if isinstance(host, ipaddress.IPv6Address) else str(host)
        netloc = text_host if port is None else f"{text_host}:{port}"
        path = parts.path or "/"
        canonical = f"{scheme}://{netloc}{path}"
        if parts.query:
            canonical += "?" + parts.query
        if parts.fragment:
            canonical += "#" + parts.fragment
        return CheckedUrl(url=canonical, host=host, allow_listed=allow_listed)

    def check_request(self, url: str, *, navigation: bool) -> CheckedUrl:
        """`inspect` for a URL the browser itself is about to fetch (already canonical), ws included."""
        return self.inspect(url, schemes=("http", "https", "ws", "wss"), navigation=navigation)

    def check_address(self, ip: IPAddress) -> None:
        """Vet an address a host name resolved to; raises `UrlRefused` like `check`."""
        self.judge(ip, navigation=False)

    def with_allowed(self, hosts: tuple[str, ...]) -> UrlPolicy:
        """This policy with `hosts` added to `allow_hosts` (grants the person made for a chat)."""
        if not hosts:
            return self
        return replace(self, allow_hosts=(*self.allow_hosts, *hosts))

    def judge(self, host: str | IPAddress, *, navigation: bool = True) -> bool:
        """Raise for a host the rules refuse; True when it passes only because it is allow-listed.

        `host` is what `canonical_host` returns (a lower-case name or an address object).
        """
        if _matches(host, self._block):
            raise UrlRefused(Refusal.BLOCKED)
        allowed = _matches(host, self._allow)
        if allowed:
            return True
        if self.only_allowed and navigation:
            raise UrlRefused(Refusal.NOT_ALLOWED)
        reason = _name_refusal(host) if isinstance(host, str) else address_refusal(host)
        if reason is Refusal.PRIVATE and self.allow_private:
            return False
        if reason is not None:
            raise UrlRefused(reason)
        return False
