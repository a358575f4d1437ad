"""The URL policy on its own: every known bypass spelling is refused; allowed pages are canonical."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tools.browser.network.blocked_ranges import blocked
from tools.browser.network.url_policy import Refusal, UrlPolicy, UrlRefused, parse_ipv4

STRICT = UrlPolicy()


def refusal(url: str, policy: UrlPolicy = STRICT) -> Refusal | None:
    try:
        policy.check(url)
    except UrlRefused as refused:
        return refused.reason
    return None


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        (" file:///etc/passwd", Refusal.CHARACTERS),
        ("file:///etc/passwd", Refusal.SCHEME),
        ("FILE:///etc/passwd", Refusal.SCHEME),
        ("JavaScript:alert(1)", Refusal.SCHEME),
        ("javascript:alert(document.cookie)", Refusal.SCHEME),
        ("data:text/html,<script>alert(1)</script>", Refusal.SCHEME),
        ("view-source:https://example.com", Refusal.SCHEME),
        ("chrome://settings", Refusal.SCHEME),
        ("devtools://devtools/bundled/inspector.html", Refusal.SCHEME),
        ("blob:https://example.com/uuid", Refusal.SCHEME),
        ("ftp://example.com/file", Refusal.SCHEME),
        ("http:\\\\127.0.0.1\\admin", Refusal.CHARACTERS),
        ("https://example.com\\@127.0.0.1/", Refusal.CHARACTERS),
        ("http://user:pass@example.com/", Refusal.CREDENTIALS),
        ("http://example.com@127.0.0.1/", Refusal.CREDENTIALS),
        ("http://127.0.0.1/", Refusal.PRIVATE),
        ("http://127.1/", Refusal.PRIVATE),
        ("http://2130706433/", Refusal.PRIVATE),
        ("http://0x7f000001/", Refusal.PRIVATE),
        ("http://0x7f.0.0.1/", Refusal.PRIVATE),
        ("http://0177.0.0.1/", Refusal.PRIVATE),
        ("http://017700000001/", Refusal.PRIVATE),
        ("http://127.0.0.1./", Refusal.PRIVATE),
        ("http://%31%32%37.0.0.1/", Refusal.PRIVATE),
        ("http://１２７.０.０.１/", Refusal.PRIVATE),
        ("http://127。0。0。1/", Refusal.PRIVATE),
        ("http://0/", Refusal.PRIVATE),
        ("http://0.0.0.0:8080/", Refusal.PRIVATE),
        ("http://[::1]/", Refusal.PRIVATE),
        ("http://[0:0:0:0:0:0:0:1]/", Refusal.PRIVATE),
        ("http://[::]/", Refusal.PRIVATE),
        ("http://[::ffff:127.0.0.1]/", Refusal.PRIVATE),
        ("http://[::ffff:7f00:1]/", Refusal.PRIVATE),
        ("http://[64:ff9b::7f00:1]/", Refusal.PRIVATE),
        ("http://[2002:7f00:1::]/", Refusal.PRIVATE),
        ("http://[fe80::1%25eth0]/", Refusal.PRIVATE),
        ("http://[fd12:3456::1]/", Refusal.PRIVATE),
        ("http://169.254.169.254/latest/meta-data/", Refusal.METADATA),
        ("http://0xa9fea9fe/", Refusal.METADATA),
        ("http://[::ffff:169.254.169.254]/", Refusal.METADATA),
        ("http://[fd00:ec2::254]/", Refusal.METADATA),
        ("http://192.0.0.192/opc/v2/instance/", Refusal.METADATA),
        ("http://[::ffff:192.0.0.192]/", Refusal.METADATA),
        ("http://[64:ff9b::a9fe:a9fe]/", Refusal.METADATA),
        ("http://[2002:a9fe:a9fe::]/", Refusal.METADATA),
        ("http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", Refusal.PRIVATE),
        ("http://192.0.2.10/", Refusal.PRIVATE),
        ("http://198.18.0.1/", Refusal.PRIVATE),
        ("http://240.0.0.1/", Refusal.PRIVATE),
        ("http://255.255.255.255/", Refusal.PRIVATE),
        ("http://[2001:db8::1]/", Refusal.PRIVATE),
        ("http://[ff02::1]/", Refusal.PRIVATE),
        ("http://metadata.google.internal/computeMetadata/v1/", Refusal.METADATA),
        ("http://10.0.0.1/", Refusal.PRIVATE),
        ("http://172.16.5.4/", Refusal.PRIVATE),
        ("http://192.168.1.1/", Refusal.PRIVATE),
        ("http://100.64.0.1/", Refusal.PRIVATE),
        ("http://localhost/", Refusal.PRIVATE),
        ("http://LOCALHOST/", Refusal.PRIVATE),
        ("http://localhost./", Refusal.PRIVATE),
        ("http://app.localhost/", Refusal.PRIVATE),
        ("localhost:3000", Refusal.PRIVATE),
        ("http://printer.local/", Refusal.PRIVATE),
        ("http://intranet/", Refusal.PRIVATE),
        ("http://example.com/\u202egnp.exe", Refusal.CHARACTERS),
        ("http://exa\u200bmple.com/", Refusal.CHARACTERS),
        ("http://example.com/\npath", Refusal.CHARACTERS),
        ("http://example.com/ path", Refusal.CHARACTERS),
        ("http:example.com", Refusal.MALFORMED),
        ("//example.com/", Refusal.MALFORMED),
        ("http://256.1.1.1/", Refusal.MALFORMED),
        ("http://1.2.3.4.5/", Refusal.MALFORMED),
        ("http://example.com:99999/", Refusal.MALFORMED),
        ("", Refusal.MALFORMED),
    ],
)
def test_bypass_spellings_are_refused(url: str, reason: Refusal) -> None:
    assert refusal(url) is reason


@pytest.mark.parametrize(
    ("url", "canonical"),
    [
        ("example.com", "https://example.com/"),
        ("HTTPS://Example.COM/Path?q=1#top", "https://example.com/Path?q=1#top"),
        ("http://example.com:8080/a", "http://example.com:8080/a"),
        ("http://8.8.8.8", "http://8.8.8.8/"),
        ("http://134744072/", "http://8.8.8.8/"),
        ("http://[2001:4860:4860::8888]/", "http://[2001:4860:4860::8888]/"),
        ("https://bücher.example/", "https://xn--bcher-kva.example/"),
        ("about:blank", "about:blank"),
        ("ABOUT:BLANK", "about:blank"),
    ],
)
def test_public_addresses_open_in_canonical_form(url: str, canonical: str) -> None:
    assert STRICT.check(url) == canonical


def test_refusals_are_fixed_phrases_without_the_address() -> None:
    with pytest.raises(UrlRefused) as caught:
        STRICT.check("http://169.254.169.254/secret-token")
    assert "169.254" not in caught.value.phrase
    assert "secret" not in caught.value.phrase


def test_allow_list_opens_named_private_hosts_only() -> None:
    policy = UrlPolicy(allow_hosts=("127.0.0.1", "localhost:8080"))
    assert policy.check("http://127.1:5000/x") == "http://127.0.0.1:5000/x"
    assert policy.check("http://localhost:9/") == "http://localhost:9/"
    assert refusal("http://127.0.0.2/", policy) is Refusal.PRIVATE
    assert refusal("http://[::1]/", policy) is Refusal.PRIVATE
    assert refusal("http://169.254.169.254/", policy) is Refusal.METADATA


def test_allow_private_still_refuses_metadata() -> None:
    policy = UrlPolicy(allow_private=True)
    assert policy.check("http://192.168.1.1/") == "http://192.168.1.1/"
    assert refusal("http://169.254.169.254/", policy) is Refusal.METADATA
    assert UrlPolicy(allow_hosts=("169.254.169.254",)).check("http://169.254.169.254/")


def test_block_list_beats_allow_list_and_covers_subdomains() -> None:
    policy = UrlPolicy(allow_hosts=("example.com",), block_hosts=("ads.example.com", "evil.test"))
    assert refusal("https://ads.example.com/", policy) is Refusal.BLOCKED
    assert refusal("https://x.ads.example.com/", policy) is Refusal.BLOCKED
    assert refusal("https://EVIL.test./", policy) is Refusal.BLOCKED
    assert policy.check("https://www.example.com/") == "https://www.example.com/"


def test_only_allowed_limits_pages_but_not_their_resources() -> None:
    policy = UrlPolicy(allow_hosts=("example.com",), only_allowed=True)
    assert refusal("https://other.org/", policy) is Refusal.NOT_ALLOWED
    assert policy.check_request("https://cdn.other.org/x.js", navigation=False).url
    with pytest.raises(UrlRefused):
        policy.check_request("https://other.org/", navigation=True)


def test_request_level_check_covers_websockets() -> None:
    with pytest.raises(UrlRefused):
        STRICT.check_request("ws://127.0.0.1:9222/devtools/browser", navigation=False)
    assert STRICT.check_request("wss://example.com/socket", navigation=False).url


# --- property-based ---------------------------------------------------------------------------

non_global_v4 = st.one_of(
    st.ip_addresses(v=4, network="127.0.0.0/8"),
    st.ip_addresses(v=4, network="10.0.0.0/8"),
    st.ip_addresses(v=4, network="172.16.0.0/12"),
    st.ip_addresses(v=4, network="192.168.0.0/16"),
    st.ip_addresses(v=4, network="169.254.0.0/16"),
    st.ip_addresses(v=4, network="0.0.0.0/8"),
    st.ip_addresses(v=4, network="100.64.0.0/10"),
)


def spellings(ip: ipaddress.IPv4Address, style: int) -> str:
    """One of the ways a browser accepts to write `ip`."""
    value = int(ip)
    octets = ip.packed
    match style:
        case 0:
            return str(ip)
        case 1:
            return str(value)
        case 2:
            return hex(value)
        case 3:
            return ".".join(f"0{o:o}" if o else "0" for o in octets)
        case 4:
            return ".".join(hex(o) for o in octets)
        case 5:  # a.b.c with the last part covering two bytes
            return f"{octets[0]}.{octets[1]}.{octets[2] * 256 + octets[3]}"
        case 6:  # a.b with the last part covering three bytes
            return f"{octets[0]}.{int.from_bytes(octets[1:], 'big')}"
        case 7:
            return str(ip) + "."
        case 8:
            return f"[::ffff:{ip}]"
        case _:
            return f"[::ffff:{value >> 16:x}:{value & 0xFFFF:x}]"


@given(non_global_v4, st.integers(0, 9), st.sampled_from(["http", "https", "HTTP", "hTtPs"]))
def test_private_addresses_are_refused_in_every_spelling(
    ip: ipaddress.IPv4Address, style: int, scheme: str
) -> None:
    url = f"{scheme}://{spellings(ip, style)}/path"
    assert refusal(url) in (Refusal.PRIVATE, Refusal.METADATA)


@given(st.ip_addresses(v=4), st.integers(0, 7))
def test_every_ipv4_spelling_reads_as_the_same_address(
    ip: ipaddress.IPv4Address, style: int
) -> None:
    assert parse_ipv4(spellings(ip, style)) == ip


@given(st.ip_addresses(v=4), st.integers(0, 7))
def test_public_addresses_pass_and_canonicalise(ip: ipaddress.IPv4Address, style: int) -> None:
    assume(blocked(ip) is None)
    assert STRICT.check(f"http://{spellings(ip, style)}/") == f"http://{ip}/"


invisible = st.sampled_from(
    [
        " ",
        "\t",
        "\n",
        "\r",
        "\x00",
        "\x7f",
        "\u00a0",
        "\u200b",
        "\u200e",
        "\u202e",
        "\u2028",
        "\ufeff",
    ]
)


@given(
    st.from_regex(r"https?://[a-z]{1,10}\.com/[a-z]{0,10}", fullmatch=True), invisible, st.data()
)
def test_any_invisible_character_is_refused(url: str, char: str, data: st.DataObject) -> None:
    position = data.draw(st.integers(0, len(url)))
    assert refusal(url[:position] + char + url[position:]) is Refusal.CHARACTERS


@given(st.text(max_size=60))
def test_check_never_fails_unexpectedly_and_is_idempotent(text: str) -> None:
    try:
        canonical = STRICT.check(text)
    except UrlRefused:
        return
    assert canonical == "about:blank" or canonical.startswith(("http://", "https://"))
    assert STRICT.check(canonical) == canonical


@given(st.from_regex(r"[a-z]{1,8}", fullmatch=True), st.from_regex(r"[a-z]{2,8}", fullmatch=True))
def test_credentials_anywhere_in_the_authority_are_refused(user: str, host: str) -> None:
    assert refusal(f"http://{user}@{host}.com/") is Refusal.CREDENTIALS
    assert refusal(f"http://{host}.com@127.0.0.1/") is Refusal.CREDENTIALS
