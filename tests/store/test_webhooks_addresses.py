"""Webhook destinations: no IPv6 form that carries an IPv4 address inside it is delivered to, whatever
that address is (a NAT64 gateway, a 6to4 relay, the kernel itself for ::ffff:a.b.c.d may deliver to
it), and public addresses still are. Literal addresses only: no DNS is asked."""

from __future__ import annotations

import pytest

from service.store.webhooks import BadWebhookUrl, check_url

IPV4_INSIDE = [
    ("::ffff:0:0/96 (IPv4-mapped)", ["::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:8.8.8.8"]),
    ("::ffff:0:0:0/96 (IPv4-translated)", ["::ffff:0:127.0.0.1", "::ffff:0:10.0.0.1", "::ffff:0:8.8.8.8"]),
    ("::/96 (IPv4-compatible)", ["::127.0.0.1", "::10.0.0.1", "::8.8.8.8"]),
    ("64:ff9b::/96 (NAT64)", ["64:ff9b::127.0.0.1", "64:ff9b::a00:1", "64:ff9b::8.8.8.8"]),
    (
        "64:ff9b:1::/48 (local-use NAT64)",
        ["64:ff9b:1::a00:1", "64:ff9b:1::7f00:1", "64:ff9b:1:ffff::808:808"],
    ),
    ("2002::/16 (6to4)", ["2002:7f00:1::", "2002:a00:1::1", "2002:808:808::1"]),
    ("2001::/32 (Teredo)", ["2001:0:4136:e378:8000:63bf:f5ff:fffe", "2001:0:808:808::1", "2001::1"]),
    ("ISATAP interface id", ["2a00:1450:4001:82b::5efe:a00:1", "2a00:1450:4001:82b:200:5efe:808:808"]),
]


@pytest.mark.parametrize("form,address", [(form, a) for form, addresses in IPV4_INSIDE for a in addresses])
def test_an_ipv6_form_with_an_ipv4_address_inside_is_refused(form, address):
    with pytest.raises(BadWebhookUrl, match="private address"):
        check_url(f"http://[{address}]:8080/hook", allow_private=False)


@pytest.mark.parametrize("address", ["[2a00:1450:4001:82b::200e]", "[2606:4700::6810:84e5]", "8.8.8.8"])
def test_public_addresses_are_still_delivered_to(address):
    assert check_url(f"https://{address}/hook", allow_private=False)


def test_the_operator_may_allow_them_with_private_addresses():
    assert check_url("http://[64:ff9b:1::a00:1]/hook", allow_private=True) == ["64:ff9b:1::a00:1"]


@pytest.mark.parametrize(
    "address",
    [
        "192.0.0.8",
        "192.0.0.170",
        "192.88.99.1",
        "198.18.0.1",
        "[fec0::1]",
        "[3fff::1]",
        "[5f00::1]",
        "[2001:db8::1]",
    ],
)
def test_every_address_the_iana_registries_call_not_globally_reachable_is_refused(address):
    """Python 3.11's ``is_global`` calls 192.0.0.8 and fec0::1 global; the registries do not."""
    with pytest.raises(BadWebhookUrl, match="private address"):
        check_url(f"http://{address}/hook", allow_private=False)


def test_the_registries_globally_reachable_exceptions_are_delivered_to():
    assert check_url("http://192.0.0.9/hook", allow_private=False) == ["192.0.0.9"]
