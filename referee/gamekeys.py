"""Which key signs a game: this server's, or an imported log's when this server trusts it (the
key it imported the game with, in the heads journal, or a key of the tournament's trusted
keys). A key stored in the database is never taken on its word."""

from __future__ import annotations

from referee.anchors import Anchors
from referee.keys import Signer, fingerprint_of, parse_public_key


class Untrusted(Exception):
    """The key stored for a game is not one this server trusts; the message says why."""


def game_key(game: str, stored: str | None, signer: Signer, anchors: Anchors) -> str:
    """The public key ``game``'s records are signed with, given the key ``stored`` for it in
    the database (if any). Raises Untrusted."""
    own = signer.public_b64
    anchor = anchors.journal.get(game)
    if anchor is not None and anchor.fingerprint == signer.fingerprint:
        return own  # this server made the game: whatever key the database names
    if stored is None or stored == own:
        return own
    try:
        fp = fingerprint_of(parse_public_key(stored))
    except ValueError:
        raise Untrusted("the key stored for it is not a key") from None
    if (anchor is not None and anchor.fingerprint == fp) or anchors.trust.trusts(fp, stored):
        return stored
    raise Untrusted(
        f"it is signed by key {fp}, which this server does not trust (not its own key "
        f"{signer.fingerprint}, not a trusted key, not the key it was imported with): "
        "a key was written into the database"
    )
