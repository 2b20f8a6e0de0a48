"""Anchors outside the database: the heads this server signed, and the keys a tournament trusts.

Whoever can write the database file can delete a game's last records, replace a record, or
store a key of his own beside a game he re-signed with it. The log alone cannot tell: a log
cut short is still a valid log, and a log re-signed with another key verifies against that
key. So what a server trusts lives beside its signing key, not in the database:

- **the heads journal** (``<db>.heads``, :class:`HeadJournal`): one line per head this server
  wrote (``GAME SEQ HASH FINGERPRINT SIGNATURE``), signed with the server's key, appended and
  never edited, owner-only (0600). When the database ends before a head the server wrote, or
  holds another record there, the game is held with the reason for the judge. It also names
  the key each game is signed with (this server's, or the key an imported log was trusted
  with), so a key written into the database is never taken on its word. At start the journal
  is compacted to the last head of each game when it has grown to several lines a game.
- **the trusted keys** (``<db>.trust``, :class:`TrustList`): the keys of the tournament's
  other servers, by name (``referee trust add NAME KEYFILE|FINGERPRINT``), owner-only. A log
  signed by one of them may be imported, and a game imported with one is served.

The journal holds no secret (hashes and fingerprints); it is owner-only so that nobody else
can drop anchors from it. A line whose signature does not verify (a forged or torn line) is
ignored: it can only remove an anchor, never move one. Deleting the whole file removes the
anchors too: keep it where the key is, with the same care.

Raises :class:`AnchorError` when a file cannot be read or written.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import json
import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from referee.keys import Signer, fingerprint_of, parse_public_key, signature_ok

try:
    import fcntl
except ImportError:  # not on Windows: one process per database there
    fcntl = None  # type: ignore[assignment]

JOURNAL_DOMAIN = "hera-zeus-referee/heads/1:"  # a journal line's signature covers this prefix
COMPACT_LINES_PER_GAME = 4  # compacted at start when it holds more lines than this per game
COMPACT_MIN_LINES = 256
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$")
FINGERPRINT = re.compile(r"^[0-9a-f]{4}(-[0-9a-f]{4}){3}$")


class AnchorError(Exception):
    """A journal or trust file cannot be read or written. The message is one sentence."""


@dataclass(frozen=True, slots=True)
class Anchor:
    """A head a server wrote: the game's record ``seq`` had ``hash``; its records are signed
    by the key ``fingerprint``."""

    seq: int
    hash: str
    fingerprint: str


def _digest(game: str, a: Anchor) -> str:
    text = f"{JOURNAL_DOMAIN}{game} {a.seq} {a.hash} {a.fingerprint}"
    return hashlib.sha256(text.encode()).hexdigest()


def _owner_only(path: Path) -> None:
    with contextlib.suppress(OSError):  # not ours to change: the file still works
        os.chmod(path, 0o600)


class HeadJournal:
    """The heads this server wrote, in memory and (with a ``path``) in an append-only file.

    ``note`` records a head the server wrote, or read and verified whole (a line in the file);
    ``seen`` a head it read and verified record by record as another process appended it
    (memory only: that process notes it). ``get`` is the furthest head known for a game.
    Thread-safe."""

    def __init__(
        self, signer: Signer, path: str | Path | None = None, *, readonly: bool = False
    ) -> None:
        self.signer = signer
        self.path = Path(path) if path is not None else None
        self.readonly = readonly
        self.ignored = 0  # lines whose signature did not verify (forged, torn, another key)
        self._heads: dict[str, Anchor] = {}
        self._lock = threading.Lock()
        if self.path is not None:
            lines = self._read()
            if not readonly and lines > max(
                COMPACT_MIN_LINES, COMPACT_LINES_PER_GAME * len(self._heads)
            ):
                self._compact()

    def _read(self) -> int:
        """Loads the file's valid lines; returns how many lines it has. Raises AnchorError."""
        assert self.path is not None
        try:
            data = self.path.read_text("utf-8", errors="replace")
        except FileNotFoundError:
            return 0
        except OSError as e:
            raise AnchorError(
                f"{self.path}: cannot read the heads journal ({e.strerror})"
            ) from None
        n = 0
        for line in data.splitlines():
            n += 1
            parts = line.split(" ")
            if len(parts) != 5 or not parts[1].isdigit() or len(parts[1]) > 12:
                self.ignored += 1
                continue
            game, seq, hash_, fp, sig = parts
            a = Anchor(int(seq), hash_, fp)
            if not signature_ok(self.signer.public_key, _digest(game, a), sig):
                self.ignored += 1
                continue
            self._advance(game, a)
        return n

    def _advance(self, game: str, a: Anchor) -> bool:
        old = self._heads.get(game)
        if old is not None and old.seq >= a.seq:
            return False
        self._heads[game] = a
        return True

    def _line(self, game: str, a: Anchor) -> str:
        sig = self.signer.sign(_digest(game, a))
        return f"{game} {a.seq} {a.hash} {a.fingerprint} {sig}\n"

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """The journal's file lock (``<journal>.lock``), held while a line is appended or the
        file is rewritten: several processes serving one database share one journal, and a
        line appended to the old file while another process renames a compacted one over it
        would be lost. Raises OSError."""
        assert self.path is not None
        fd = os.open(self.path.with_name(self.path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def _compact(self) -> None:
        """Rewrites the file with the last head of each game (a new file, then a rename),
        under the file lock and after reading again what other processes appended since."""
        assert self.path is not None
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        try:
            with self._locked():
                self._read()
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    for game, a in sorted(self._heads.items()):
                        f.write(self._line(game, a))
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, self.path)
        except OSError as e:
            raise AnchorError(
                f"{self.path}: cannot compact the heads journal ({e.strerror})"
            ) from None

    def get(self, game: str) -> Anchor | None:
        with self._lock:
            return self._heads.get(game)

    def seen(self, game: str, seq: int, hash_: str, fingerprint: str) -> None:
        """A head read and verified: remembered in memory (only if it is further on)."""
        with self._lock:
            self._advance(game, Anchor(seq, hash_, fingerprint))

    def note(self, game: str, seq: int, hash_: str, fingerprint: str) -> None:
        """A head this server wrote: remembered and appended to the file. Raises AnchorError
        when the file cannot be written (the record itself is already stored)."""
        a = Anchor(seq, hash_, fingerprint)
        with self._lock:
            if not self._advance(game, a) or self.path is None or self.readonly:
                return
            line = self._line(game, a)
            try:
                with self._locked():
                    fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                    try:
                        os.write(fd, line.encode())
                    finally:
                        os.close(fd)
            except OSError as e:
                raise AnchorError(
                    f"{self.path}: cannot write the heads journal ({e.strerror})"
                ) from None


# ---- trusted keys --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TrustedKey:
    """A server key a tournament trusts: its name, fingerprint and (when known) public key."""

    name: str
    fingerprint: str
    public_key: str = ""  # base64 Ed25519, or "" when only the fingerprint was given


def parse_fingerprint(text: str) -> str:
    """A key fingerprint (16 hex digits in four groups). Raises ValueError."""
    fp = text.strip().lower()
    if not FINGERPRINT.match(fp):
        raise ValueError(f"{text[:40]!r} is not a key fingerprint (like 1a2b-3c4d-5e6f-7a8b)")
    return fp


def key_from_file(path: str | Path) -> TrustedKey:
    """The public key in a file: a server's key file (PEM, private or public: only the public
    key is kept) or an export (its header names the key). The name is left empty. Raises
    ValueError naming the file."""
    p = Path(path)
    try:
        data = p.read_bytes()[:1_000_000]
    except OSError as e:
        raise ValueError(f"{p}: cannot read ({e.strerror})") from None
    raw: bytes | None = None
    if b"-----BEGIN" in data:
        try:
            if b"PRIVATE KEY" in data:
                k = serialization.load_pem_private_key(data, password=None)
                pub = k.public_key() if isinstance(k, Ed25519PrivateKey) else None
            else:
                loaded = serialization.load_pem_public_key(data)
                pub = loaded if isinstance(loaded, Ed25519PublicKey) else None
        except (ValueError, TypeError):
            pub = None
        if pub is None:
            raise ValueError(f"{p}: not an Ed25519 key")
        raw = pub.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    else:
        first = data.split(b"\n", 1)[0]
        try:
            head = json.loads(first)
            raw = parse_public_key(head["public_key"])
        except (ValueError, TypeError, KeyError):
            raise ValueError(
                f"{p}: neither a key file (PEM) nor a log export (its first line names the key)"
            ) from None
    b64 = base64.b64encode(raw).decode("ascii")
    return TrustedKey("", fingerprint_of(raw), b64)


class TrustList:
    """The keys a tournament trusts, by name, in a file (``NAME FINGERPRINT [PUBLIC_KEY]`` a
    line, owner-only). Raises AnchorError when it cannot be read or written."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self.keys: dict[str, TrustedKey] = {}
        if self.path is None:
            return
        try:
            text = self.path.read_text("utf-8")
        except FileNotFoundError:
            return
        except (OSError, UnicodeDecodeError) as e:
            raise AnchorError(f"{self.path}: cannot read the trusted keys ({e})") from None
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split()
            try:
                if len(parts) not in (2, 3) or not NAME.match(parts[0]):
                    raise ValueError("not NAME FINGERPRINT [PUBLIC_KEY]")
                fp = parse_fingerprint(parts[1])
                pk = parts[2] if len(parts) == 3 else ""
                if pk and fingerprint_of(parse_public_key(pk)) != fp:
                    raise ValueError("the fingerprint is not that of the key")
            except (ValueError, binascii.Error) as e:
                raise AnchorError(f"{self.path}: line {n}: {e}") from None
            self.keys[parts[0]] = TrustedKey(parts[0], fp, pk)

    def trusts(self, fingerprint: str, public_key: str | None = None) -> TrustedKey | None:
        """The trusted key with this fingerprint (and this public key, when both are known)."""
        for k in self.keys.values():
            if k.fingerprint == fingerprint and (
                not k.public_key or public_key is None or k.public_key == public_key
            ):
                return k
        return None

    def add(self, key: TrustedKey) -> None:
        """Raises ValueError for a bad or used name, or a key trusted under another name."""
        if not NAME.match(key.name):
            raise ValueError(
                f"{key.name[:40]!r} is not a key name (letters, digits, '.', '_', '-'; 40 at most)"
            )
        if key.name in self.keys:
            raise ValueError(f"a key named {key.name!r} is trusted already")
        for k in self.keys.values():
            if k.fingerprint == key.fingerprint:
                raise ValueError(f"key {key.fingerprint} is trusted already, as {k.name!r}")
        self.keys[key.name] = key
        self._save()

    def remove(self, name: str) -> TrustedKey:
        """Raises KeyError when no key has this name."""
        k = self.keys.pop(name)
        self._save()
        return k

    def _save(self) -> None:
        if self.path is None:
            return
        tmp = self.path.with_name(self.path.name + ".tmp")
        text = "# the server keys this tournament trusts: NAME FINGERPRINT [PUBLIC_KEY]\n"
        text += "".join(
            f"{k.name} {k.fingerprint}{' ' + k.public_key if k.public_key else ''}\n"
            for k in sorted(self.keys.values(), key=lambda k: k.name)
        )
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, self.path)
        except OSError as e:
            raise AnchorError(
                f"{self.path}: cannot write the trusted keys ({e.strerror})"
            ) from None
        _owner_only(self.path)


# ---- both ----------------------------------------------------------------------------------


class Anchors:
    """What a server trusts besides its own key: the heads journal and the trusted keys."""

    def __init__(self, journal: HeadJournal, trust: TrustList) -> None:
        self.journal = journal
        self.trust = trust

    @classmethod
    def in_memory(cls, signer: Signer) -> Anchors:
        """Anchors that last as long as the process (tests, a memory store)."""
        return cls(HeadJournal(signer), TrustList())

    @classmethod
    def beside(cls, db: str | Path, signer: Signer, *, readonly: bool = False) -> Anchors:
        """The anchors of the database ``db``: ``<db>.heads`` and ``<db>.trust``. Raises
        AnchorError."""
        journal = HeadJournal(signer, Path(f"{db}.heads"), readonly=readonly)
        if journal.path is not None and journal.path.exists() and not readonly:
            _owner_only(journal.path)
        return cls(journal, TrustList(trust_path(db)))


def trust_path(db: str | Path) -> Path:
    """Where the trusted keys of the database ``db`` live: ``<db>.trust``."""
    return Path(f"{db}.trust")
