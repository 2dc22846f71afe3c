"""Where the pages for people live: the links the API hands out to them, written once here."""

from __future__ import annotations

from urllib.parse import quote


def play_url(match_id: str, token: str) -> str:
    """A seat's play page, its token in the fragment: browsers never send a fragment to a server, so the
    token stays out of access logs and ``Referer`` headers. Relative: the server cannot know the address
    its clients reach it by (behind a proxy its own Host is not theirs), and a relative link resolves
    against the one each client already uses."""
    return f"/play/{quote(match_id)}#token={quote(token)}"


def spectate_url(match_id: str) -> str:
    """The match's page for anyone (the viewer: live while the match runs, a replay after)."""
    return f"/matches/{quote(match_id)}"
