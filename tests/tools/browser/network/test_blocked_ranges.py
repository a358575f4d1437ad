"""The blocked-range table on its own: every special-purpose range, every IPv4 embedding in IPv6."""

from __future__ import annotations

from ipaddress import IPv4Address, IPv6Address, ip_address

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tools.browser.network.blocked_ranges import IPV4_TABLE, blocked, embedded_ipv4

REQUIRED_V4 = [
    "0.0.0.0/8",
    "10.0.0.0/8",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "169.254.0.0/16",
    "172.16.0.0/12",
    "192.0.0.0/24",
    "192.0.2.0/24",
    "192.88.99.0/24",
    "192.168.0.0/16",
    "198.18.0.0/15",
    "198.51.100.0/24",
    "203.0.113.0/24",
    "224.0.0.0/4",
    "240.0.0.0/4",
    "255.255.255.255/32",
]
REQUIRED_V6 = [
    "::/128",
    "::1/128",
    "fc00::/7",
    "fe80::/10",
    "ff00::/8",
    "64:ff9b:1::/48",
    "2001:db8::/32",
    "2002::/16",
    "2001::/32",
]


def embeddings(ip: IPv4Address) -> list[IPv6Address]:
    """`ip` wrapped every way IPv6 can carry it."""
    value = int(ip)
    return [
        IPv6Address((0xFFFF << 32) | value),  # ::ffff:a.b.c.d
        IPv6Address(value),  # ::a.b.c.d (deprecated IPv4-compatible)
        IPv6Address((0x64FF9B << 96) | value),  # 64:ff9b::a.b.c.d (NAT64)
        IPv6Address((0x2002 << 112) | (value << 80) | 1),  # 2002:aabb:ccdd::1 (6to4)
        IPv6Address((0x20010000 << 96) | (0x08080808 << 64) | (~value & 0xFFFFFFFF)),  # Teredo
    ]


@pytest.mark.parametrize("cidr", REQUIRED_V4 + REQUIRED_V6)
def test_every_special_purpose_range_is_blocked_at_both_ends(cidr: str) -> None:
    from ipaddress import ip_network

    network = ip_network(cidr)
    assert blocked(network.network_address) is not None
    assert blocked(network.broadcast_address) is not None


@pytest.mark.parametrize(
    "address",
    ["192.0.0.192", "169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254"],
)
def test_cloud_metadata_endpoints_are_marked_as_such(address: str) -> None:
    row = blocked(ip_address(address))
    assert row is not None and row.metadata


@pytest.mark.parametrize(
    "address", ["8.8.8.8", "1.1.1.1", "93.184.215.14", "2606:4700::1111", "2a00:1450::1"]
)
def test_ordinary_public_addresses_pass(address: str) -> None:
    assert blocked(ip_address(address)) is None


def test_public_ipv4_behind_mapped_and_nat64_passes_but_legacy_wrappers_do_not() -> None:
    public = IPv4Address("8.8.8.8")
    mapped, compatible, nat64, six_to_four, teredo = embeddings(public)
    assert blocked(mapped) is None
    assert blocked(nat64) is None  # IPv6-only networks reach every IPv4 site this way
    assert blocked(compatible) is not None
    assert blocked(six_to_four) is not None
    assert blocked(teredo) is not None


def test_zone_ids_are_link_local() -> None:
    assert blocked(IPv6Address("fe80::1%eth0")) is not None
    assert blocked(IPv6Address("2001:4860::1%1")) is not None


blocked_v4 = st.sampled_from(IPV4_TABLE).flatmap(
    lambda row: st.ip_addresses(v=4, network=str(row.network))
)


@given(blocked_v4)
def test_any_blocked_ipv4_is_blocked_in_every_embedding(ip: IPv4Address) -> None:
    row = blocked(ip)
    assert row is not None
    for wrapped in embeddings(ip):
        assert ip in embedded_ipv4(wrapped) or wrapped == IPv6Address(int(ip))
        found = blocked(wrapped)
        assert found is not None, wrapped
        if row.metadata:
            assert found.metadata


@given(st.ip_addresses(v=4))
def test_the_table_is_at_least_as_strict_as_the_standard_library(ip: IPv4Address) -> None:
    # `ipaddress` is only an oracle here: whatever it calls non-global, the table blocks too
    if not ip.is_global or ip.is_multicast:
        assert blocked(ip) is not None


@given(st.ip_addresses(v=6))
def test_ipv6_outside_global_unicast_is_blocked_unless_it_wraps_a_public_ipv4(
    ip: IPv6Address,
) -> None:
    inner = embedded_ipv4(ip)
    assume(not inner)
    if not IPv6Address("2000::") <= ip <= IPv6Address("3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"):
        assert blocked(ip) is not None


@given(st.ip_addresses(v=4))
def test_embedded_verdict_matches_the_plain_ipv4_verdict(ip: IPv4Address) -> None:
    mapped, _compatible, nat64, _six_to_four, _teredo = embeddings(ip)
    plain = blocked(ip)
    for wrapped in (mapped, nat64):
        assert (blocked(wrapped) is None) == (plain is None)
