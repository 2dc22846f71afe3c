"""The versions of a dependency that code using its private API was written for: checked once, where that
code starts, so that an upgrade fails (or falls back) there, with a message that says where to look, and
nowhere else.

A private API of a dependency (an underscore name, a module's undocumented internals) is used in one module
only, which names here what it was written for: ``written_for("marshmallow", "4.")``.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


class UnexpectedVersion(RuntimeError):
    """A dependency's installed version is not one the private API's user was written for."""


def installed(distribution: str) -> str | None:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return None


def written_for(distribution: str, *series: str) -> bool:
    """Whether the installed ``distribution`` is of one of ``series`` (version prefixes: ``"4."``, ``"0.47."``)."""
    found = installed(distribution)
    return found is not None and any(found.startswith(prefix) for prefix in series)


def require(distribution: str, *series: str, user: str) -> None:
    """Raise at start-up unless ``written_for``: ``user`` (a module) uses a private API of ``distribution``."""
    if not written_for(distribution, *series):
        raise UnexpectedVersion(
            f"{user} uses a private API of {distribution} as {' or '.join(series)}x keep it; "
            f"{installed(distribution) or 'none'} is installed: check {user} against it, then add its version there"
        )
