"""The addresses the browser never reaches by default: an explicit table, not `ipaddress` flags.

Python's `is_global` / `is_private` change between releases (3.11 and 3.12 let 192.0.0.192,
a cloud metadata address, through), so the rules live here as rows taken from the IANA
special-purpose address registries for IPv4 and IPv6, plus the cloud metadata endpoints.
Each row says whether it is a metadata service, which is refused even when the person lets
private addresses through.

IPv6 addresses that carry an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4,
Teredo) are judged by the IPv4 address inside as well, so `::ffff:127.0.0.1`,
`64:ff9b::a9fe:a9fe` or `2002:7f00:1::` are refused like the address they wrap.
NAT64's well-known prefix itself is not blocked: on IPv6-only networks every public IPv4
site resolves into it, so only the embedded address decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network

__all__ = [
    "IPV4_TABLE",
    "IPV6_TABLE",
    "METADATA_ADDRESSES",
    "BlockedRange",
    "blocked",
    "embedded_ipv4",
]

IPAddress = IPv4Address | IPv6Address


@dataclass(frozen=True)
class BlockedRange:
    """One row: the network, what it is, and whether it is a cloud metadata service."""

    network: IPv4Network | IPv6Network
    name: str
    metadata: bool = False


def _rows(*rows: tuple[str, str]) -> tuple[BlockedRange, ...]:
    built: list[BlockedRange] = []
    for cidr, name in rows:
        network = IPv4Network(cidr) if ":" not in cidr else IPv6Network(cidr)
        built.append(BlockedRange(network, name))
    return tuple(built)


# Cloud metadata endpoints, checked before the ranges so the refusal names them.
METADATA_ADDRESSES: tuple[BlockedRange, ...] = tuple(
    BlockedRange(IPv4Network(a) if ":" not in a else IPv6Network(a), name, metadata=True)
    for a, name in (
        ("169.254.169.254/32", "cloud metadata (AWS, GCP, Azure, DigitalOcean, ...)"),
        ("169.254.170.2/32", "AWS ECS task metadata"),
        ("169.254.169.123/32", "AWS time sync"),
        ("100.100.100.200/32", "Alibaba Cloud metadata"),
        ("192.0.0.192/32", "Oracle Cloud metadata"),
        ("fd00:ec2::254/128", "AWS metadata over IPv6"),
        ("fd00:ec2::123/128", "AWS time sync over IPv6"),
    )
)

# IANA IPv4 Special-Purpose Address Registry (RFC 6890 and updates), every row that is not
# globally reachable, plus the deprecated 6to4 relay anycast block.
IPV4_TABLE: tuple[BlockedRange, ...] = _rows(
    ("0.0.0.0/8", "this network"),
    ("10.0.0.0/8", "private use"),
    ("100.64.0.0/10", "shared address space (carrier-grade NAT)"),
    ("127.0.0.0/8", "loopback"),
    ("169.254.0.0/16", "link local"),
    ("172.16.0.0/12", "private use"),
    ("192.0.0.0/24", "IETF protocol assignments"),
    ("192.0.2.0/24", "documentation (TEST-NET-1)"),
    ("192.88.99.0/24", "6to4 relay anycast (deprecated)"),
    ("192.168.0.0/16", "private use"),
    ("198.18.0.0/15", "benchmarking"),
    ("198.51.100.0/24", "documentation (TEST-NET-2)"),
    ("203.0.113.0/24", "documentation (TEST-NET-3)"),
    ("224.0.0.0/4", "multicast"),
    ("240.0.0.0/4", "reserved"),
    ("255.255.255.255/32", "limited broadcast"),
)

# IANA IPv6 Special-Purpose Address Registry, and the parts of the IPv6 address space
# registry that are not global unicast (everything outside 2000::/3 is reserved, ULA,
# link-local, site-local or multicast). The embedding prefixes (::ffff:0:0/96, ::/96,
# 64:ff9b::/96) sit inside 0::/8 but are judged by their IPv4 address first; see `blocked`.
IPV6_TABLE: tuple[BlockedRange, ...] = _rows(
    ("::/128", "unspecified"),
    ("::1/128", "loopback"),
    ("::ffff:0:0:0/96", "IPv4-translated (SIIT)"),
    ("64:ff9b:1::/48", "local-use IPv4/IPv6 translation"),
    ("100::/64", "discard only"),
    ("100:0:0:1::/64", "dummy prefix"),
    ("2001::/23", "IETF protocol assignments (Teredo 2001::/32, benchmarking, ORCHID)"),
    ("2001:db8::/32", "documentation"),
    ("2002::/16", "6to4"),
    ("3fff::/20", "documentation"),
    ("5f00::/16", "segment routing (SRv6) SIDs"),
    ("fc00::/7", "unique local"),
    ("fe80::/10", "link local"),
    ("fec0::/10", "site local (deprecated)"),
    ("ff00::/8", "multicast"),
    # Reserved by the IETF: not assigned for global unicast.
    ("::/8", "reserved"),
    ("100::/8", "reserved"),
    ("200::/7", "reserved"),
    ("400::/6", "reserved"),
    ("800::/5", "reserved"),
    ("1000::/4", "reserved"),
    ("4000::/3", "reserved"),
    ("6000::/3", "reserved"),
    ("8000::/3", "reserved"),
    ("a000::/3", "reserved"),
    ("c000::/3", "reserved"),
    ("e000::/4", "reserved"),
    ("f000::/5", "reserved"),
    ("f800::/6", "reserved"),
    ("fe00::/9", "reserved"),
)

_MAPPED = IPv6Network("::ffff:0:0/96")
_COMPATIBLE = IPv6Network("::/96")
_NAT64 = IPv6Network("64:ff9b::/96")
_SIX_TO_FOUR = IPv6Network("2002::/16")
_TEREDO = IPv6Network("2001::/32")
# Prefixes whose own row is waived when the IPv4 inside is fine: a mapped address is the IPv4
# address itself to the socket layer, and NAT64 is how IPv6-only networks reach IPv4 sites.
# The deprecated IPv4-compatible form stays refused whatever it carries.
_JUDGED_BY_INNER = (_MAPPED, _NAT64)


def embedded_ipv4(ip: IPv6Address) -> tuple[IPv4Address, ...]:
    """The IPv4 addresses an IPv6 address carries: mapped, compatible, NAT64, 6to4, Teredo."""
    value = int(ip)
    low32 = IPv4Address(value & 0xFFFF_FFFF)
    if ip in _MAPPED or ip in _NAT64:
        return (low32,)
    if ip in _COMPATIBLE and value > 1:  # not :: or ::1, which are their own rows
        return (low32,)
    if ip in _SIX_TO_FOUR:  # 2002:AABB:CCDD::/48 wraps AA.BB.CC.DD
        return (IPv4Address((value >> 80) & 0xFFFF_FFFF),)
    if ip in _TEREDO:  # server in bits 32-63, client (inverted) in the low 32 bits
        server = IPv4Address((value >> 64) & 0xFFFF_FFFF)
        client = IPv4Address(~value & 0xFFFF_FFFF)
        return (server, client)
    return ()


def _row(ip: IPAddress, table: tuple[BlockedRange, ...]) -> BlockedRange | None:
    for row in METADATA_ADDRESSES:
        if ip.version == row.network.version and ip in row.network:
            return row
    for row in table:
        if ip in row.network:
            return row
    return None


def blocked(ip: IPAddress) -> BlockedRange | None:
    """The row that keeps the browser away from `ip`, or None for an ordinary public address."""
    if isinstance(ip, IPv4Address):
        return _row(ip, IPV4_TABLE)
    if ip.scope_id:  # fe80::1%eth0 and the like name a local interface
        return _row(IPv6Address("fe80::"), IPV6_TABLE)
    inner = embedded_ipv4(ip)
    for address in inner:
        found = _row(address, IPV4_TABLE)
        if found is not None:
            return found
    if inner and any(ip in prefix for prefix in _JUDGED_BY_INNER):
        return None
    return _row(ip, IPV6_TABLE)
