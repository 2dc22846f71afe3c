"""The address a client is counted by (service/domain/addresses.py), for every per-address limit, cap and
budget: an IPv6 client by its /64, an IPv4 address written in IPv6 as that IPv4 address."""

from __future__ import annotations

from service.domain.addresses import counted_address


def test_an_ipv4_client_is_counted_by_its_address():
    assert counted_address("192.0.2.7") == "192.0.2.7"
    assert counted_address("192.0.2.8") != counted_address("192.0.2.7")


def test_an_ipv6_client_is_counted_by_its_64():
    # a host, or a home, is given a whole /64: by the address, one client would have 2^64 counts
    same = {
        counted_address(a) for a in ("2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:DB8:1:2::9")
    }
    assert same == {"2001:db8:1:2::/64"}
    assert counted_address("2001:db8:1:3::1") == "2001:db8:1:3::/64"  # the next /64: another client


def test_an_ipv4_address_written_in_ipv6_is_counted_as_the_ipv4_one():
    # a dual-stack socket shows an IPv4 peer so: it is the same client as by its IPv4 address
    assert counted_address("::ffff:192.0.2.7") == counted_address("192.0.2.7") == "192.0.2.7"


def test_an_unknown_address_counts_all_unknown_clients_together():
    assert counted_address(None) == counted_address("") == "?"
    assert counted_address("unix-peer") == "unix-peer"  # not an IP address (a Unix socket's peer): as it is
