"""What the camera reads in the web app (issue 8): the game's kit, photos of cards, frames of
the mat. The pages that send them are :mod:`web.games.herazeus.camera`; the API's are in
:mod:`web.api`. Hera & Zeus only (its kit, mat and cards), reached through its page module
(:mod:`web.games.herazeus.page`) and the API, never assumed by the page shell.

Two ways in, both read with the game's own sticker kit (``Referee.kit``: kept on the server,
secret included, never sent to a page):

- **A photo of cards** (the seat page's file input, ``capture=environment``, which works over
  plain HTTP; or ``POST /api/v1/games/<g>/photos``): :func:`read_photo` hands it to
  ``vision.read_cards``. Nothing is recorded: the seat page lists the cards read (its own deck,
  with their confidence; the other deck's and refused codes with the reason) and the player
  confirms them with the same actions tapping names makes (:func:`entry_raw`): the setup deal's
  nine cards, the hostage's replacement, a drawn card, or an observation of an unknown hand
  card. What was read stays in this browser's session for this seat; no other seat sees it.
- **A frame of the mat** (the camera page ``/g/<game>/camera``, or
  ``POST /api/v1/games/<g>/frames``): :func:`read_frame` runs ``vision.read_table`` and
  ``vision.propose`` against the view of the seat that sent it, and returns the snapshot, the
  proposals (each with the request that confirms it) and the rectified mat with what was read
  drawn over it, as a small JPEG data URL in the same response: the image goes back to the
  uploader only and is never stored. Frames are bounded: :data:`web.uploads.FRAME_LIMIT`
  bytes, a token bucket per seat (:data:`FRAME_BURST`, ``FRAME_RATE`` per second) and at most
  ``FRAME_WORKERS`` frames read at once on the server (429 and 503 with ``Retry-After``).

Every image, photo or frame, is bounded before it is decoded (issue 12): its size is read from
its header (PNG IHDR, JPEG SOF, WebP VP8/VP8L/VP8X; :func:`vision.sources.image_size`) and
an image declaring more than ``IMAGE_PIXELS`` pixels (default 50 MP) is refused with 413 naming
its size and the limit, never decoded, so a small compressed file cannot unpack into gigabytes.
Photos and frames share the ``FRAME_WORKERS`` slots of image work (503 ``Busy`` with
``Retry-After`` when all are taken), so the memory of image work is bounded: a request holds at
most its body (``MAX_CONTENT_LENGTH``, 8 MB) and one decoded image of at most ``IMAGE_PIXELS``
× 3 bytes (150 MB at 50 MP) with the working copies vision makes of it, and at most
``FRAME_WORKERS`` requests do so at once.

A game created without a kit refuses both with 409 ``NoKit`` (unless the server was started
with ``referee serve --kit``, whose kit then reads for every such game). The public seat sends
neither (403).
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from flask import current_app, session

from engine.herazeus.cards import HOSTAGE_NAME, Player
from engine.say import N_, Say
from referee.herazeus.game import PLAYERS
from referee.service import Forbidden
from web.errors import (
    BadImage,
    Busy,
    NoKit,
    TooManyFrames,
)
from web.request import get_referee, seat_of
from web.stills import archive, held_stills
from web.uploads import check_image, decode

FRAME_BURST = 3  # frames a seat may send back to back
FRAME_RATE = 2.0  # frames per second a seat may send on average (the page sends one a second)
FRAME_WORKERS = 2  # frames read at once on the whole server (OpenCV work is CPU bound)
MAT_PX_PER_MM = 1.25  # the annotated mat: 320 x 1022 px for the standard 256 x 818 mm mat
MAT_JPEG_QUALITY = 70
PHOTO_KEEP = 24  # cards remembered per seat from its photos (a hand is at most ~15)
KITS_CACHED = 64
PHOTO_SESSION = "hz_photo"
PLAYER_SEATS = PLAYERS  # the camera reads Hera & Zeus's kit


# ---- the game's kit ----------------------------------------------------------------------------


def game_kit(game: str) -> Any:
    """The game's kit as vision reads it (a :class:`vision.herazeus.kit.VisionKit`), else the
    server's
    ``VISION_KIT``. Raises NoKit when there is neither, and NoKit too when the stored kit no
    longer reads (it was checked when the game was created, so that is a damaged store)."""
    ref = get_referee()
    raw = ref.kit(game)
    if raw is None:
        fallback = current_app.config.get("VISION_KIT")
        if fallback is not None:
            return fallback
        raise NoKit(
            Say(
                "this game was created without a sticker kit, so the camera cannot check card "
                "codes; tap the card names instead (or create the game with the kit.json from "
                "'referee kit')"
            )
        )
    digest = hashlib.sha256(json.dumps(raw, sort_keys=True).encode()).hexdigest()
    cache: OrderedDict[str, Any] = current_app.extensions.setdefault("hz_kits", OrderedDict())
    hit = cache.get(digest)
    if hit is not None:
        cache.move_to_end(digest)
        return hit
    from printables.herazeus.kit import Kit
    from vision.herazeus.kit import as_vision_kit

    try:
        vk = as_vision_kit(Kit.from_json(raw, "the game's kit"))
    except ValueError as e:
        raise NoKit(
            Say("the game's stored kit cannot be read (%(reason)s); call the judge", reason=str(e))
        ) from None
    cache[digest] = vk
    while len(cache) > KITS_CACHED:
        cache.popitem(last=False)
    return vk


def has_kit(game: str) -> bool:
    """True when photos and frames of ``game`` can be read (its own kit, or the server's)."""
    return get_referee().kit(game) is not None or current_app.config.get("VISION_KIT") is not None


def parse_kit(data: object, where: str = "kit.json") -> Any:
    """A :class:`printables.herazeus.kit.Kit` from a parsed ``kit.json``. Raises ValueError
    (KitError) naming ``where`` and the field."""
    from printables.herazeus.kit import Kit

    return Kit.from_json(data, where)


def parse_kit_upload(raw: bytes, where: str) -> Any:
    """A :class:`printables.herazeus.kit.Kit` from an uploaded ``kit.json`` file, read strictly
    (:func:`referee.jsonin.loads_strict`: no duplicate keys, bounded size and depth). Raises
    ValueError naming ``where`` and the problem (not UTF-8, not JSON, or the field)."""
    from printables.herazeus.kit import MAX_KIT_JSON_BYTES
    from referee.jsonin import loads_strict

    if len(raw) > MAX_KIT_JSON_BYTES:
        raise ValueError(f"{where}: larger than {MAX_KIT_JSON_BYTES // 1024} kB; not a kit file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{where}: not UTF-8 text; not a kit file") from None
    return parse_kit(loads_strict(text, where, max_bytes=MAX_KIT_JSON_BYTES), where)


@dataclass(frozen=True)
class Camera:
    """Who sends an image of a game, and the kit it is read with: checked once per request
    (:func:`camera_for`), before the upload is read."""

    game: str
    seat: str
    kit: Any


def camera_for(game: str) -> Camera:
    """The seat sending an image of ``game`` and the game's kit. Raises Forbidden for the
    public seat, NoKit for a game the camera cannot read."""
    seat = seat_of(game)
    if seat == "public":
        raise Forbidden(
            Say("the public seat cannot send photos or frames; open your seat's join link first")
        )
    return Camera(game, seat, game_kit(game))


# ---- photos of cards ----------------------------------------------------------------------------


def _card_entry(d: Any, seat: str) -> dict[str, Any]:
    """One checked card of a photo, as the seat enters it."""
    c = d.card
    holder = seat if seat in PLAYER_SEATS else c.deck
    return {
        "name": c.notation(holder),
        "card": c.name,
        "deck": c.deck,
        "serial": c.serial,
        "own": seat == "judge" or c.deck == seat,
        "confidence": round(float(d.confidence), 3),
        "payload": d.payload,
        "corners": [[round(x, 1), round(y, 1)] for x, y in d.corners],
        "upscaled": bool(d.upscaled),
        "matched": bool(d.matched),
    }


def sort_detections(dets: Sequence[Any], seat: str) -> dict[str, Any]:
    """The detections of a photo for ``seat``: ``cards`` (checked codes; ``own`` tells the
    seat's deck, the ones it may enter; the judge's are all his) and ``refused`` (codes of
    another kit, misprints, fakes, with the reason). Each physical card once (its serial)."""
    cards: dict[tuple[str, int], dict[str, Any]] = {}
    refused: list[dict[str, Any]] = []
    for d in dets:
        if d.card is not None:
            e = _card_entry(d, seat)
            cards.setdefault((e["deck"], e["serial"]), e)
        else:
            refused.append(
                {
                    "payload": str(d.payload)[:64],
                    "reason": str(d.refused or N_("not a code of this kit")),
                    "corners": [[round(x, 1), round(y, 1)] for x, y in d.corners],
                }
            )
    ordered = sorted(cards.values(), key=lambda e: (not e["own"], e["deck"], e["serial"]))
    return {"cards": ordered, "refused": refused}


def read_photo(cam: Camera, data: bytes) -> dict[str, Any]:
    """The cards in a photo for the camera's seat (see :func:`sort_detections`); records
    nothing. Raises BadImage (ImageTooLarge above the pixel limit, read from the header), Busy
    (the server reads as many images as it may)."""
    check_image(data, "photo")
    gate = _gate()
    gate.enter("photos")
    try:
        return _read_photo(cam.seat, cam.kit, data)
    finally:
        gate.leave()


def _read_photo(seat: str, kit: Any, data: bytes) -> dict[str, Any]:
    image = decode(data, "photo")
    from vision.herazeus import read_cards

    t0 = time.perf_counter()
    try:
        dets = read_cards(image, kit)
    except ValueError as e:  # ImageError: a shape OpenCV decoded but vision cannot use
        raise BadImage(f"photo: {e}"[:300], "photo") from None
    del image
    out = sort_detections(dets, seat)
    out["ms"] = round((time.perf_counter() - t0) * 1000, 1)
    return out


def remember_photo(game: str, seat: str, read: Mapping[str, Any]) -> dict[str, Any]:
    """Adds what a photo read to this browser's list for ``game`` (the session; the same
    physical card read twice counts once) and returns the list."""
    old = session.get(PHOTO_SESSION)
    keep: dict[str, Any] = (
        dict(old)
        if isinstance(old, dict) and old.get("game") == game and old.get("seat") == seat
        else {"game": game, "seat": seat, "cards": [], "refused": []}
    )
    have = {(c["deck"], c["serial"]) for c in keep["cards"]}
    for c in read.get("cards", []):
        if (c["deck"], c["serial"]) not in have and len(keep["cards"]) < PHOTO_KEEP:
            have.add((c["deck"], c["serial"]))
            keep["cards"].append(
                {k: c[k] for k in ("name", "card", "deck", "serial", "own", "confidence")}
            )
    keep["refused"] = [str(r["reason"])[:120] for r in read.get("refused", [])][:6]
    keep["photos"] = int(keep.get("photos", 0)) + 1
    session[PHOTO_SESSION] = keep
    return keep


def remembered(game: str, seat: str) -> dict[str, Any] | None:
    """What this browser's photos read for ``seat`` at ``game``, or None."""
    got = session.get(PHOTO_SESSION)
    if isinstance(got, dict) and got.get("game") == game and got.get("seat") == seat:
        return got
    return None


@dataclass(frozen=True)
class PhotoUses:
    """What the cards a seat photographed can be entered as, now."""

    deal: bool = False
    redraw: bool = False
    draw: bool = False
    hand: bool = False


def photo_uses(view: Mapping[str, Any], seat: str, legal: Sequence[str]) -> PhotoUses:
    """The entries open to ``seat`` in its own view: the nine dealt cards (setup, not dealt
    yet), the hostage's replacement (the hostage is in the hand in setup), a drawn card (a
    draw is legal), or a card of the hand the referee does not know yet (``?`` in the hand)."""
    if seat not in PLAYER_SEATS:
        return PhotoUses()
    mine = view.get(seat, {})
    hand = list(mine.get("hand", []))
    setup = view.get("phase") == "setup"
    hostage = HOSTAGE_NAME[Player.parse(seat)]
    return PhotoUses(
        deal=setup and not hand and not any(mine.get("field", [])),
        redraw=setup and hostage in hand,
        draw="draw" in legal,
        hand="?" in hand,
    )


def entry_raw(use: str, seat: str, names: Sequence[str]) -> dict[str, Any]:
    """The action that enters ``names`` as ``use`` (what tapping the names would submit).
    Raises ValueError naming the problem (wrong count, unknown use)."""
    if use == "deal":
        if not names or len(names) > 9:
            raise ValueError(
                Say("the deal is nine cards: choose 1 to 9 of them, not %(num)s", num=len(names))
            )
        return {"do": "deal", "player": seat, "cards": [*names, *["?"] * (9 - len(names))]}
    if use in ("draw", "redraw"):
        if len(names) != 1:
            raise ValueError(Say("choose the one card you drew, not %(num)s", num=len(names)))
        if use == "draw":
            return {"do": "draw", "card": names[0]}
        return {"do": "redraw", "player": seat, "card": names[0]}
    raise ValueError(
        Say("use: unknown entry %(use)s (deal, redraw, draw or hand)", use=repr(use[:20]))
    )


def hand_observation(seat: str, name: str) -> dict[str, Any]:
    """The observation that names an unknown card of ``seat``'s hand from a photo."""
    return {"player": seat, "zone": "hand", "card": name, "source": "camera"}


# ---- frames of the table -------------------------------------------------------------------------


class FrameGate:
    """Bounds frame reading: a token bucket per (game, seat) and a cap on frames read at
    once. Thread safe."""

    def __init__(self, burst: int, rate: float, workers: int) -> None:
        self.burst, self.rate = float(burst), float(rate)
        self._workers = threading.BoundedSemaphore(max(1, workers))
        self._buckets: OrderedDict[tuple[str, str], tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, game: str, seat: str, now: float | None = None) -> None:
        """Spends one token of the seat's bucket. Raises TooManyFrames when it is empty."""
        t = time.monotonic() if now is None else now
        with self._lock:
            tokens, last = self._buckets.get((game, seat), (self.burst, t))
            tokens = min(self.burst, tokens + (t - last) * self.rate)
            if tokens < 1.0:
                self._buckets[(game, seat)] = (tokens, t)
                wait = (1.0 - tokens) / self.rate if self.rate > 0 else 60.0
                raise TooManyFrames(
                    Say(
                        "frames come faster than %(rate)s a second from this seat; "
                        "wait for the answer to the last one",
                        rate=f"{self.rate:g}",
                    ),
                    wait,
                )
            self._buckets[(game, seat)] = (tokens - 1.0, t)
            self._buckets.move_to_end((game, seat))
            while len(self._buckets) > 4096:
                self._buckets.popitem(last=False)

    def enter(self, what: str = "frames") -> None:
        """Takes a worker slot (photos and frames share them). Raises Busy when all are
        busy."""
        if not self._workers.acquire(blocking=False):
            if what == "photos":
                raise Busy(Say("the server is reading other photos; try again in a moment"), 1.0)
            raise Busy(Say("the server is reading other frames; try again in a moment"), 1.0)

    def leave(self) -> None:
        self._workers.release()


def _gate() -> FrameGate:
    g = current_app.extensions.get("hz_frame_gate")
    if g is None:
        cfg = current_app.config
        g = current_app.extensions.setdefault(
            "hz_frame_gate",
            FrameGate(
                int(cfg.get("FRAME_BURST", FRAME_BURST)),
                float(cfg.get("FRAME_RATE", FRAME_RATE)),
                int(cfg.get("FRAME_WORKERS", FRAME_WORKERS)),
            ),
        )
    assert isinstance(g, FrameGate)
    return g


def confirm_for(p: Mapping[str, Any], seat: str, view: Mapping[str, Any]) -> dict[str, Any]:
    """How ``seat`` confirms a proposal: ``endpoint`` (``actions`` or ``observations``, None
    when a person decides what to record), ``body`` (the request body), ``choices`` (the cards
    the seat may name for a play the camera saw face down; ``?`` leaves it unnamed), and
    ``by`` when the other player must confirm it on his own page."""
    raw = p.get("raw")
    out: dict[str, Any] = {"endpoint": None, "body": None, "choices": [], "by": None}
    if not isinstance(raw, Mapping):
        return out
    if "do" in raw and raw.get("do") == "pegasus" and raw.get("target") == "hand":
        return _confirm_pegasus(raw, seat, view, out)
    if "do" in raw:
        action = dict(raw)
        actor = action.get("by")
        if seat in PLAYER_SEATS and actor in PLAYER_SEATS and actor != seat:
            out["by"] = actor
            return out
        if action.get("do") == "play" and "card" not in action:
            action["card"] = "?"
            if seat in PLAYER_SEATS:
                playable = view.get("playable", [])
                out["choices"] = [n for n in dict.fromkeys(playable) if n != "?"]
        out.update(endpoint="actions", body={"action": action})
    elif "zone" in raw:
        out.update(endpoint="observations", body=dict(raw))
    return out


def _confirm_pegasus(
    raw: Mapping[str, Any], seat: str, view: Mapping[str, Any], out: dict[str, Any]
) -> dict[str, Any]:
    """A Pegasus placement the camera saw follows the table's order (D2, D22): the hand's
    owner (or the judge) states the card drawn when the referee asks for it, then the Pegasus
    player names the column; before anyone said "Pegasus", its player starts the action, naming
    nothing of the opponent's hand."""
    asked = view.get("asked") or {}
    needs = asked.get("needs")
    mine = seat == "judge" or seat in asked.get("asked", [])
    if needs == "pick" and mine:
        out.update(endpoint="answer", body={"value": raw.get("pick")})
    elif needs == "place" and mine:
        out.update(endpoint="answer", body={"value": raw.get("place")})
    elif needs is None and "waiting" not in view and seat in (raw.get("by"), "judge"):
        out.update(endpoint="actions", body={"action": {"do": "pegasus", "target": "hand"}})
    elif seat in PLAYER_SEATS:
        waiting = (view.get("waiting") or {}).get("for", [])
        others = [a for a in [*asked.get("asked", []), *waiting] if a != seat]
        out["by"] = others[0] if others else raw.get("by")
    return out


# The live camera proposes a change once STABLE_FRAMES frames saw it on the same view, with
# no frame between them contradicting it. Frames combined, not only in a row: a frame in which
# the change's column is hidden (a hand over it, a cell washed out: "unknown"), or the mat is
# not found, neither counts nor resets, for up to MISSED_FRAMES such frames (1.5 s at the
# camera page's 2 frames a second). A frame that reads any cell of the column otherwise than
# the frames that saw the change starts the count again.
STABLE_FRAMES = 2
MISSED_FRAMES = 3


@dataclass
class _Sighting:
    """A change proposed by earlier frames: how many saw it, how many since did not, and
    what its column's cells (both sides) read when it was seen ("unknown" where hidden)."""

    frames: int
    missed: int
    column: dict[str, str]


def cell_reading(cell: Mapping[str, Any]) -> str:
    """What one cell reads (``CellReading.to_json``, or a synthetic frame's truth of it):
    ``up:<payload>``, ``down:<deck>``, ``empty`` or ``unknown``."""
    state = str(cell.get("state", "unknown"))
    if state in ("up", "down"):
        return f"{state}:{cell.get('payload') if state == 'up' else cell.get('deck')}"
    return state


def cell_readings(snapshot: Mapping[str, Any] | None) -> dict[str, str]:
    """A frame's snapshot (``Snapshot.to_json``) as ``"side/column/row"`` ->
    :func:`cell_reading`; empty without one."""
    return {
        f"{side}/{c}/{r}": cell_reading(cell)
        for side in PLAYERS
        for c, column in enumerate((snapshot or {}).get(side, []), start=1)
        for r, cell in enumerate(column, start=1)
    }


def _column_of(proposal: Mapping[str, Any], cells: Mapping[str, str]) -> dict[str, str]:
    """The readings of the proposal's column on both sides (a challenge spans both)."""
    c = proposal.get("column")
    return {
        f"{side}/{c}/{r}": cells.get(f"{side}/{c}/{r}", "unknown")
        for side in PLAYERS
        for r in range(1, 5)
    }


def _agrees(seen: Mapping[str, str], now: Mapping[str, str]) -> bool:
    """No cell read otherwise now than when the change was seen (unknown agrees with all)."""
    return all(now.get(k, "unknown") in (v, "unknown") or v == "unknown" for k, v in seen.items())


class FrameMemory:
    """What the last live frames of each seat proposed (issue 14, items 1 and 2): a change
    is proposed only once :data:`STABLE_FRAMES` frames saw it on the same view, none between
    them reading its column otherwise (see :data:`MISSED_FRAMES`), so a card on its way down
    or a hand passing over the table proposes nothing, and a hand that hides the column in
    every other frame does not keep a change from being proposed. Bounded: the seats heard
    from least recently are forgotten first."""

    def __init__(self, size: int = 2048, missed: int = MISSED_FRAMES) -> None:
        self.size = size
        self.missed = missed  # frames in a row that may hide a change (0: only in a row)
        self._seen: dict[tuple[str, str], tuple[int, dict[str, _Sighting]]] = {}
        self._lock = threading.Lock()

    def stable(
        self,
        game: str,
        seat: str,
        seq: int,
        proposals: list[dict[str, Any]],
        cells: Mapping[str, str] | None = None,
    ) -> tuple[list[dict[str, Any]], int]:
        """The proposals seen in enough frames, and how many others of this frame wait for
        more. ``cells``: what this frame read in each cell (:func:`cell_readings`); None or
        empty when the mat was not found (every cell unknown)."""
        cells = cells or {}
        keys = [  # the same change, however sure each frame was of it
            json.dumps(
                {k: v for k, v in p.items() if k != "confidence"}, sort_keys=True, default=str
            )
            for p in proposals
        ]
        with self._lock:
            last_seq, before = self._seen.pop((game, seat), (seq, {}))
            if last_seq != seq:
                before = {}
            now: dict[str, _Sighting] = {}
            for p, k in zip(proposals, keys, strict=True):
                prior = before.get(k)
                column = _column_of(p, cells)
                if prior is not None and not _agrees(prior.column, column):
                    prior = None  # its column read otherwise between: counted afresh
                now[k] = _Sighting((prior.frames if prior else 0) + 1, 0, column)
            for k, prior in before.items():
                if k in now or prior.missed >= self.missed:
                    continue
                column = {c: cells.get(c, "unknown") for c in prior.column}
                if _agrees(prior.column, column):
                    known = {c: v for c, v in column.items() if v != "unknown"}
                    now[k] = _Sighting(prior.frames, prior.missed + 1, {**prior.column, **known})
            self._seen[(game, seat)] = (seq, now)
            while len(self._seen) > self.size:
                del self._seen[next(iter(self._seen))]
        ready = [p for p, k in zip(proposals, keys, strict=True) if now[k].frames >= STABLE_FRAMES]
        return ready, len(proposals) - len(ready)


def _memory() -> FrameMemory:
    memory = current_app.extensions.get("hz_frame_memory")
    if memory is None:
        memory = current_app.extensions["hz_frame_memory"] = FrameMemory()
    return cast(FrameMemory, memory)


def read_frame(cam: Camera, data: bytes, live: bool = False) -> dict[str, Any]:
    """One frame of the mat for the requesting seat: ``found`` (the mat), ``message`` when it
    was not found, else ``snapshot``, ``table`` (text), ``proposals`` (each with ``confirm``),
    ``seq`` (the view they were computed on) and ``image`` (the annotated mat as a JPEG data
    URL). ``live``: a frame of the live camera, whose proposals wait until
    :data:`STABLE_FRAMES` frames saw them, none between reading their column otherwise
    (``pending`` counts those waiting; :class:`FrameMemory`). A still (not ``live``) of a
    player's seat, on a server keeping test photos (:mod:`web.stills`), is held for that seat
    with the codes read in it, for him to save with his consent. Records nothing. Raises
    BadImage (ImageTooLarge above the pixel limit, read from the header), TooFast."""
    game, seat, kit = cam.game, cam.seat, cam.kit
    check_image(data, "frame")
    gate = _gate()
    gate.take(game, seat)
    gate.enter()
    codes: list[str] = []
    try:
        out = _read_frame(game, seat, kit, data, codes)
    finally:
        gate.leave()
    if not live and seat in PLAYER_SEATS and archive() is not None:
        held_stills().hold(game, seat, data, codes)  # his to save to the club's test photos
    if live:
        out["proposals"], out["pending"] = _memory().stable(
            game, seat, int(out["seq"]), out["proposals"], cell_readings(out.get("snapshot"))
        )
    return out


def _read_frame(
    game: str, seat: str, kit: Any, data: bytes, codes: list[str] | None = None
) -> dict[str, Any]:
    """See :func:`read_frame`; ``codes`` gets the text of every code read in the frame."""
    from vision.herazeus import propose, read_table
    from vision.herazeus.framing import check_pose, no_mat
    from vision.herazeus.markers import MatNotFound

    t0 = time.perf_counter()
    image = decode(data, "frame")
    view = get_referee().view(game, seat).to_json()  # what the proposals read: its JSON
    seq = int(view["seq"])
    height, width = image.shape[:2]
    try:
        snap = read_table(image, kit)
    except MatNotFound as e:
        return {
            "found": False,
            "message": Say(
                "%(reason)s. Hold the camera so that the mat's four corner squares show.",
                reason=str(e),
            ),
            "seq": seq,
            "proposals": [],
            "framing": no_mat(kit, width, height, str(e)).to_json(),
            "ms": round((time.perf_counter() - t0) * 1000, 1),
        }
    except ValueError as e:  # ImageError
        raise BadImage(f"frame: {e}"[:300], "frame") from None
    if codes is not None:
        codes += [str(d.payload) for d in snap.detections]
    proposals = []
    for p in propose(snap, view):
        q = dict(p)
        q["confirm"] = confirm_for(p, seat, view)
        proposals.append(q)
    snap_json = snap.to_json()
    jpeg = annotate(image, snap, kit.mat, proposals, seat)
    return {
        "found": True,
        "seq": seq,
        "snapshot": snap_json,
        "table": snap.text(),
        "proposals": proposals,
        "image": "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii"),
        "framing": check_pose(snap.pose, kit, width, height).to_json(),
        "ms": round((time.perf_counter() - t0) * 1000, 1),
    }


_COLOURS = {  # BGR
    "up": (40, 150, 40),
    "down": (170, 90, 40),
    "unknown": (0, 140, 230),
    "empty": (150, 150, 150),
}


def annotate(
    image: Any,
    snap: Any,
    geo: Any,
    proposals: Sequence[Mapping[str, Any]],
    seat: str,
    px_per_mm: float = MAT_PX_PER_MM,
) -> bytes:
    """The mat seen from above with each cell's reading drawn over it (green: a card face up,
    with its name; blue: a back, with its deck; orange: unknown; grey: empty) and the cells
    of proposals outlined in magenta; Zeus's copy is turned so that his side is at the
    bottom. Returns JPEG bytes."""
    import cv2

    from vision.herazeus.markers import rectify

    mat = rectify(image, snap.pose, geo, px_per_mm)
    H, W = mat.shape[:2]
    flip = seat == "zeus"
    if flip:
        mat = cv2.rotate(mat, cv2.ROTATE_180)
    marked = {(p.get("side"), p.get("column"), p.get("position")) for p in proposals}

    def box(rect: Sequence[float]) -> tuple[int, int, int, int]:
        x, y, w, h = (float(v) * px_per_mm for v in rect)
        if flip:
            x, y = W - x - w, H - y - h
        return round(x), round(y), round(x + w), round(y + h)

    font = cv2.FONT_HERSHEY_SIMPLEX
    for key, cell in snap.cells.items():
        x0, y0, x1, y1 = box(geo.cells[key])
        colour = _COLOURS.get(cell.state, (150, 150, 150))
        cv2.rectangle(mat, (x0, y0), (x1, y1), colour, 1 if cell.state == "empty" else 3)
        if key in marked:
            cv2.rectangle(mat, (x0 + 4, y0 + 4), (x1 - 4, y1 - 4), (200, 0, 200), 3)
        if cell.state == "up" and cell.card is not None:
            label = cell.card.notation(cell.side)
        elif cell.state == "down":
            label = f"back {str(cell.deck or '')[:1].upper()}"
        elif cell.state == "unknown":
            label = "?"
        else:
            continue
        _label(mat, label, (x0 + 4, y0 + 4), x1 - x0 - 8, colour, font)
    ok, buf = cv2.imencode(".jpg", mat, [cv2.IMWRITE_JPEG_QUALITY, MAT_JPEG_QUALITY])
    if not ok:  # pragma: no cover - OpenCV encodes any 8-bit BGR image
        raise BadImage("frame: the annotated mat could not be encoded", "frame")
    return bytes(buf.tobytes())


def _label(
    img: Any, text: str, at: tuple[int, int], width: int, colour: tuple[int, int, int], font: int
) -> None:
    """``text`` on a filled box at ``at``, shrunk to fit ``width`` px."""
    import cv2

    scale = 0.5
    (tw, th), base = cv2.getTextSize(text, font, scale, 1)
    while tw > width and scale > 0.3:
        scale -= 0.05
        (tw, th), base = cv2.getTextSize(text, font, scale, 1)
    x, y = at
    cv2.rectangle(img, (x, y), (x + min(tw, width) + 4, y + th + base + 4), colour, -1)
    cv2.putText(img, text, (x + 2, y + th + 2), font, scale, (255, 255, 255), 1, cv2.LINE_AA)


def photo_context(
    game: str, seat: str, view: Mapping[str, Any], legal: Sequence[str]
) -> dict[str, Any] | None:
    """What the seat page shows of this browser's photos: the cards and the entries open."""
    kept = remembered(game, seat)
    if kept is None:
        return None
    return {
        "cards": kept["cards"],
        "refused": kept.get("refused", []),
        "photos": kept.get("photos", 1),
        "uses": photo_uses(view, seat, legal),
    }
