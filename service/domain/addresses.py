"""The address a client is counted by, wherever a limit, a cap or a budget is kept per client address.

A host, or a home, is routinely given a whole IPv6 /64: counted by its full address, one client would have
2^64 windows, slots and budgets. So an IPv6 client is counted by its /64, and an IPv4 address written in IPv6
(``::ffff:192.0.2.7``, as a dual-stack socket shows an IPv4 peer) as that IPv4 address.
"""

from __future__ import annotations

import ipaddress

UNKNOWN = "?"
"""What a client whose address is unknown is counted by: all of them together."""


def counted_address(client: str | None) -> str:
    """The address ``client`` is counted by: an IPv4 address as it is, an IPv6 one by its /64, an IPv4-mapped
    IPv6 one as its IPv4 address; ``?`` when unknown."""
    if not client:
        return UNKNOWN
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return client  # not an IP address (a Unix socket's peer): one count for whatever it is
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)
