"""The phone path's last look (issue 38, rounds seven and eight): a code no dark square names is
still a square busier than the ring round it (``texture_spots``), a code whose dark modules
light has thinned to strokes reads once they are thickened (``_thickened``), and where nothing
was read the kit's codebook weighs the squares of a code's size round a spot (``spot_quads``).
Squares found before any code was read are looked at again at the codes' size."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

import cv2
import numpy as np
import pytest
import qrcode  # type: ignore[import-untyped]

import vision.codebook as codebook
import vision.decode as decode
from vision.codebook import candidate_quads, spot_quads
from vision.decode import _thickened, decode_crop, texture_spots
from vision.herazeus import studio  # rasterises the kit with pypdfium2 (the test extra)
from vision.herazeus.cards import read_cards
from vision.herazeus.synth import demo_kit

KIT = demo_kit()
TEXT = "https://example.org/not-a-kit-code"


def thinned_code(module_px: int = 5) -> tuple[np.ndarray, tuple[float, float], float]:
    """A grey picture of a code whose dark modules a bright light has thinned to strokes a px
    wide (the white round them grown by 2 px each way, then a little blur), its centre and side."""
    qr = qrcode.QRCode(border=0, box_size=1)
    qr.add_data(TEXT)
    modules = ~np.array(qr.get_matrix(), bool)
    sym = np.kron(modules.astype(np.uint8) * 255, np.ones((module_px, module_px), np.uint8))
    img = np.full((400, 400), 255, np.uint8)
    img[100 : 100 + sym.shape[0], 100 : 100 + sym.shape[1]] = sym
    thin = cv2.dilate(img, np.ones((module_px, module_px), np.uint8))
    side = float(sym.shape[0])
    return cv2.GaussianBlur(thin, (0, 0), 0.6), (100 + side / 2, 100 + side / 2), side


def test_a_code_thinned_to_strokes_reads_once_its_dark_modules_are_thickened() -> None:
    img, _, _ = thinned_code()
    assert decode_crop(img, (0, 0, 400, 400)) == []  # upscaled, sharpened, equalised: no
    assert [c.text for c in _thickened(img)] == [TEXT]


def test_a_code_is_a_spot_busier_than_the_ring_round_it() -> None:
    """On a plain picture with one code, the busiest spot at the code's size is the code."""
    img, centre, side = thinned_code()
    page = np.full((720, 1280), 235, np.uint8)
    page[200:600, 500:900] = img
    (score, at, size), *_ = texture_spots(page, side)
    assert at == pytest.approx((500 + centre[0], 200 + centre[1]), abs=side / 4)
    assert 0.6 * side <= size <= 1.2 * side
    assert score > 0


@pytest.mark.parametrize(
    ("seed", "cards", "tail", "why"),
    [
        # a fan of five, three read; a thumb against a fourth card's code merges it with its shade
        (970_034, 5, "AF7T", "beside codes read"),
        # a fan of four with one code in full view, pale and thin under the lamp
        (970_033, 4, "TXT3", "nothing read"),
    ],
)
def test_a_code_no_dark_square_names_is_read_at_its_spot(
    monkeypatch: pytest.MonkeyPatch, seed: int, cards: int, tail: str, why: str
) -> None:
    """Photos of the held-out generator's family (diagnostic seeds, never the named held-out
    sets): the code is read only by the spots' look (the codebook's second way to read, a
    lower score with a wide lead, left off: it also matches 970 033's code on a square)."""
    monkeypatch.setattr(codebook, "WIDE_SCORE", 2.0)
    scene = studio.phone_scene(KIT, seed, "1080p", cards=cards)
    (payload,) = (c["payload"] for c in scene.truth["cards"] if c["payload"].endswith(tail))
    assert payload in {d.payload for d in read_cards(scene.image, KIT)}, why

    def no_spots(*args: Any) -> list[Any]:
        return []

    monkeypatch.setattr(decode, "_spots_left", no_spots)
    assert payload not in {d.payload for d in read_cards(scene.image, KIT)}, why


def framed_code(module_px: float = 1.4) -> tuple[np.ndarray, tuple[float, float], float]:
    """A small code on a white label with a card's dark frame line a px from it, as a fan shows
    a code at 1.3-1.5 px a module (a grey picture, its code's centre and side)."""
    qr = qrcode.QRCode(border=0, box_size=1)
    qr.add_data(TEXT)
    modules = ~np.array(qr.get_matrix(), bool)
    big = np.kron(modules.astype(np.float32) * 200 + 40, np.ones((10, 10), np.float32))
    side = 21 * module_px
    sym = cv2.resize(big, (round(side), round(side)), interpolation=cv2.INTER_AREA)
    img = np.full((200, 200), 235, np.float32)
    img[80 : 80 + sym.shape[0], 80 : 80 + sym.shape[1]] = sym
    img[77:79, 20:180] = 90  # the frame, 2 px wide and a px off the code, along its top
    blurred = cv2.GaussianBlur(img, (0, 0), 0.5)
    return blurred.astype(np.uint8), (80 + side / 2, 80 + side / 2), side


def test_a_small_code_beside_a_frame_line_is_a_square_round_its_spot() -> None:
    """Smoothed by 1.5 px only, the code and the frame line are one dark region (no square of
    the code's size); smoothed over a module, the line fades and the code stands alone."""
    img, centre, side = framed_code()

    def of_its_size(quads: list[np.ndarray]) -> list[np.ndarray]:
        return [
            q
            for q in quads
            if np.linalg.norm(q.mean(axis=0) - centre) < side / 4
            and 0.8 * side <= np.linalg.norm(q[0] - q[2]) / np.sqrt(2) <= 1.2 * side
        ]

    assert of_its_size(candidate_quads(img)) == []
    assert of_its_size(spot_quads(img, centre, [side]))
    # a spot's side is coarse: the sizes looked for are kept within SPOT_FIT of each
    for q in spot_quads(img, centre, [2 * side]):
        assert np.linalg.norm(q[0] - q[2]) / np.sqrt(2) >= codebook.SPOT_FIT[0] * 2 * side


def test_where_nothing_was_read_the_codebook_weighs_the_squares_round_a_spot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fan of five at 1080p (a diagnostic held-out seed): one code in full view at 1.3 px a
    module, its label touching the frame of the card above it. No decoder reads it and no dark
    square names it; the codebook matches it on a square round its spot, and only there."""
    scene = studio.phone_scene(KIT, 970_018, "1080p", cards=5)
    (payload,) = (c["payload"] for c in scene.truth["cards"] if c["payload"].endswith("XI4K"))
    assert payload in {d.payload for d in read_cards(scene.image, KIT)}

    def no_squares(*args: Any) -> list[Any]:
        return []

    monkeypatch.setattr(decode, "spot_quads", no_squares)
    assert payload not in {d.payload for d in read_cards(scene.image, KIT)}


def test_squares_found_before_any_code_was_read_are_looked_at_again_at_the_codes_size() -> None:
    """A fan of six at 12 MP (a diagnostic held-out seed) where the first pass reads nothing:
    the squares then found on two washed codes are their finders, a third of a code across.
    Once codes are read, each such square is tried at the codes' size, and both codes read."""
    scene = studio.phone_scene(KIT, 972_011, "12mp", cards=6)
    want = {c["payload"] for c in scene.truth["cards"] if not c["foreign"]}
    assert len(want) == 4
    assert want <= {d.payload for d in read_cards(scene.image, KIT)}


def test_squares_tried_again_at_the_codes_size_get_the_re_reads_once_a_place(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fan of five at 12 MP (a diagnostic held-out seed): one code is read, by the ladder,
    after a dozen small squares of card art were found where nothing was read. Tried again at
    the codes' size, such squares overlap: each place gets one crop, and only the crop's
    re-reads (a code whose blur merged its modules is a square of the codes' size, which the
    look at that size names afresh with the costly passes)."""
    scene = studio.phone_scene(KIT, 972_002, "12mp", cards=5)
    tried: list[tuple[decode.Left, int]] = []
    ladder = decode._ladder

    def recorded(gray: Any, left: decode.Left, known: Any, *args: Any, **kw: Any) -> Any:
        tried.append((left, len(known)))
        return ladder(gray, left, known, *args, **kw)

    monkeypatch.setattr(decode, "_ladder", recorded)
    (payload,) = (c["payload"] for c in scene.truth["cards"] if not c["foreign"])
    assert payload in {d.payload for d in read_cards(scene.image, KIT)}
    beside = [left for left, known in tried if known and not left.spot]
    (size, _), *_ = Counter(left.side for left in beside).most_common(1)
    again = [left for left in beside if left.side == size and left.texture != float("inf")]
    assert len(again) >= 2  # squares found before any code, now at the codes' size
    assert not any(left.deep for left in again)
    for i, a in enumerate(again):
        for b in again[i + 1 :]:
            assert np.hypot(a.centre[0] - b.centre[0], a.centre[1] - b.centre[1]) >= size / 2


def ladders_tried(monkeypatch: pytest.MonkeyPatch) -> list[decode.Left]:
    """The places the phone path runs a ladder round, in order, from now on (recorded)."""
    tried: list[decode.Left] = []
    ladder = decode._ladder

    def recorded(gray: Any, left: decode.Left, *args: Any, **kw: Any) -> Any:
        tried.append(left)
        return ladder(gray, left, *args, **kw)

    monkeypatch.setattr(decode, "_ladder", recorded)
    return tried


def test_a_spot_inside_a_much_larger_square_tried_still_gets_its_own_look(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fan of five at 1080p (a held-out seed): nothing is read first, and the squares named
    are card art, one five times a code's side. Its ladder reads its crop scaled down to
    LADDER_SIDE_PX, where the code of 2.4 px a module beside the art has 1.2: that look did not
    cover the code's spot, which gets its own and reads the code. (The codebook's second way to
    read, a lower score with a wide lead, is left off: it reads the code before its spot.)"""
    monkeypatch.setattr(codebook, "WIDE_SCORE", 2.0)
    scene = studio.phone_scene(KIT, 979_002, "1080p", cards=5)
    tried = ladders_tried(monkeypatch)
    (card,) = (c for c in scene.truth["cards"] if not c["foreign"] and c.get("expect", True))
    assert card["payload"] in {d.payload for d in read_cards(scene.image, KIT)}
    at = np.mean(np.array(card["corners"], np.float32), axis=0)
    side = float(np.linalg.norm(np.subtract(card["corners"][0], card["corners"][1])))

    def near(left: decode.Left) -> bool:
        return bool(np.hypot(*(np.array(left.centre) - at)) < max(left.side, side) / 2)

    art = [t for t in tried if not t.spot and near(t)]
    assert art and all(t.side > 4 * side for t in art)  # the art's square, tried first
    assert any(t.spot and t.side < 2 * side and near(t) for t in tried)
    assert not decode._covers(art[0], (float(at[0]), float(at[1])), side)


def test_a_paler_code_beside_a_code_read_gets_its_spot_looked_at() -> None:
    """A fan of five at 1080p (a held-out seed, traced): one code is read, and beside it two
    codes of 2.1 px a module are paler (each square's mean 0.87-0.88 of the label's grey,
    against its 0.83): no dark square names them, and their spots score 0.49 and 0.56 of the
    read code's own. Above SPOT_SHARE they get the crop's re-reads, and the one no shadow
    crosses is read."""
    scene = studio.phone_scene(KIT, 982_006, "1080p", cards=5)
    gray = decode.as_gray(scene.image)
    codes, _ = decode.phone_codes(gray, codebook.codebook(KIT.payloads))
    pale = next(c for c in scene.truth["cards"] if c["payload"].endswith("ESDT"))
    assert pale["payload"] in {c.text for c in codes}
    (dark,) = (c for c in codes if c.text != pale["payload"])
    spots = decode.texture_spots(gray, dark.side_px)

    def score(at: Any, side: float) -> float:
        return max(v for v, p, _ in spots if np.hypot(*(np.subtract(p, at))) < side / 2)

    own = score(np.mean(np.array(pale["corners"], np.float32), axis=0), dark.side_px)
    ref = score(dark.centre, dark.side_px)
    assert decode.SPOT_SHARE * ref <= own < 0.65 * ref  # the share it was, and missed it


def test_where_nothing_is_read_the_costly_passes_run_round_the_most_detailed_square_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fan of three at 1080p (a diagnostic held-out seed) with no code in full view: the first
    pass reads nothing and the search names six squares with a code's module detail, card art.
    The most detailed gets every pass, the next three the crop's re-reads, the rest none: a
    budget (NOTHING_DEEP, NOTHING_TRIES), not a rule that the rest is art."""
    scene = studio.phone_scene(KIT, 973_016, "1080p", cards=3)
    gray = decode.as_gray(scene.image)
    codes, errors = decode.first_pass(gray)
    named = [o for o in decode.left_undecoded(gray, codes, errors) if o.texture != float("inf")]
    assert not codes and len(named) > decode.NOTHING_TRIES
    tried: list[decode.Left] = []
    ladder = decode._ladder

    def recorded(gray: Any, left: decode.Left, known: Any, *args: Any, **kw: Any) -> Any:
        if not known and not left.spot and left.texture != float("inf"):
            tried.append(left)
        return ladder(gray, left, known, *args, **kw)

    monkeypatch.setattr(decode, "_ladder", recorded)
    decode.phone_codes(gray, codebook.codebook(KIT.payloads))
    assert [t.centre for t in tried] == [o.centre for o in named[: decode.NOTHING_TRIES]]
    assert [t.deep for t in tried] == [True] + [False] * (decode.NOTHING_TRIES - 1)


def test_a_spot_where_a_square_got_only_the_re_reads_still_gets_its_own_look() -> None:
    """A square whose ladder stopped at the crop's re-reads (the budget where nothing is read)
    has not had the codebook: a spot at its place is still looked at. A square that had every
    pass there covers the spot."""
    img, _, _ = thinned_code()
    page = np.full((720, 1280), 235, np.uint8)
    page[200:600, 500:900] = img
    (spot, *_) = decode._spots_left(page, [], [])
    square = decode.Left(spot.centre, spot.side, texture=20.0)
    shallow = decode.Left(spot.centre, spot.side, texture=20.0, deep=False)
    assert decode._covers(square, spot.centre, spot.side)
    assert decode._covers(shallow, spot.centre, spot.side)
    assert spot.centre not in [s.centre for s in decode._spots_left(page, [], [square])]
    assert spot.centre in [s.centre for s in decode._spots_left(page, [], [shallow])]


def test_a_ladder_makes_each_scale_of_its_crop_once_and_reads_what_each_rung_read_alone() -> None:
    """The first re-read, the thickened rung and the first retry all read the crop at 2x: made
    once (Scales), the same pixels each rung made for itself, so the same codes."""
    img, _, _ = thinned_code()
    crop = cv2.GaussianBlur(img, (0, 0), 1.2)
    scales = decode.Scales(crop)
    assert scales.at(2.0) is scales.at(2.0) and scales.soft(2.0, 2.0) is scales.soft(2.0, 2.0)
    assert np.array_equal(
        scales.at(2.0), cv2.resize(crop, None, fx=2.0, fy=2.0, interpolation=cv2.INTER_CUBIC)
    )
    assert np.array_equal(
        scales.at(0.5), cv2.resize(crop, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    )
    box = (0, 0, crop.shape[1], crop.shape[0])
    assert decode.decode_crop(crop, box, scales=scales) == decode.decode_crop(crop, box)
    assert decode._thickened(crop, scales) == decode._thickened(crop)
    for scale, amount, binarizer in decode.RETRIES:
        alone = decode._retry(crop, scale, amount, binarizer)
        assert decode._retry(crop, scale, amount, binarizer, scales) == alone
    assert [c.text for c in decode._thickened(img, decode.Scales(img))] == [TEXT]


def kit_code(module_px: float) -> tuple[np.ndarray, np.ndarray]:
    """The kit's first code at ``module_px`` on its white label, slightly blurred, on a page
    whose top is a card's dark art; the picture and the symbol's corners."""
    from printables.sheets import qr_modules

    modules = np.array(qr_modules(KIT.payloads[0]), bool)
    big = np.kron(np.where(modules, 40.0, 235.0), np.ones((10, 10))).astype(np.float32)
    side = round(21 * module_px)
    sym = cv2.resize(big, (side, side), interpolation=cv2.INTER_AREA)
    size = side + 240  # the code at (100, 120), light round it
    img = np.full((size, size), 235.0, np.float32)
    img[:60, :] = 90
    img[120 : 120 + side, 100 : 100 + side] = sym
    corners = np.array([[100, 120], [100 + side, 120], [100 + side, 120 + side], [100, 120 + side]])
    return cv2.GaussianBlur(img, (0, 0), 0.6).astype(np.uint8), corners.astype(np.float32)


def test_a_large_codes_square_round_its_spot_is_found_scaled_down_and_matched() -> None:
    """A square larger than SPOT_WORK_PX is looked for on the crop scaled down to it (a 12 MP
    photo's code of 8 px a module: a blur of 10 px and a window of 250 at its own px). Its
    corners come back within a module of the code's, and the codebook matches it there."""
    img, corners = kit_code(8.0)
    side = float(corners[1, 0] - corners[0, 0])
    assert side > 2 * codebook.SPOT_WORK_PX
    quads = spot_quads(img, tuple(corners.mean(axis=0)), [side])
    close = [q for q in quads if float(np.abs(codebook._ordered(q) - corners).max()) < side / 21]
    assert close
    got = codebook.straighten(img, close[0])
    assert got is not None
    match = codebook.codebook(KIT.payloads).best(got[0])
    assert match.accepted and match.payload == KIT.payloads[0]


def test_a_spot_covers_a_later_spot_at_its_place_only_of_about_its_own_side() -> None:
    """A spot's codebook weighed squares of its own side's SPOT_SIZES: a box of 26 tried covers
    a box of 26 at its place, not one of 36 or 52 there."""
    small = decode.Left((100.0, 100.0), 26.0, spot=True)
    assert decode._covers(small, (104.0, 100.0), 26.0)
    assert not decode._covers(small, (104.0, 100.0), 36.0)
    assert not decode._covers(small, (104.0, 100.0), 52.0)
    assert not decode._covers(small, (160.0, 100.0), 26.0)


def test_a_code_whose_busiest_spot_is_a_smaller_box_on_its_edge_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fan of five at 1080p (a diagnostic held-out seed, traced): nothing is read first, and
    the one code in full view (46 px, washed by a glare of 80 grey levels) is busiest as a box
    of 26 on its edge, and busy as boxes of 36 and 52 at its place. The box of 26 weighed
    squares of 14-26 px; the larger boxes get their own look, and the code is read. Left to
    the first look (any spot at its place covered), it is not."""
    scene = studio.phone_scene(KIT, 989_002, "1080p", cards=5)
    (card,) = (c for c in scene.truth["cards"] if not c["foreign"])
    assert card["payload"] in {d.payload for d in read_cards(scene.image, KIT)}
    monkeypatch.setattr(decode, "SPOT_SAME", 10.0)
    assert card["payload"] not in {d.payload for d in read_cards(scene.image, KIT)}


def test_a_square_whose_codebook_weighed_only_larger_squares_does_not_cover_a_spot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fan of four at 1080p (a diagnostic held-out seed, traced): nothing is read first, and
    the most detailed square is card art three times a code's side beside a pale code of 1.3 px
    a module. Its ladder's codebook weighed only the squares the search found there (71 and 83
    px), none of the code's size: that look does not cover the code's spot, whose own look
    matches the code."""
    scene = studio.phone_scene(KIT, 989_021, "1080p", cards=4)
    (card,) = (c for c in scene.truth["cards"] if c["payload"].endswith("GVY"))
    tried = ladders_tried(monkeypatch)
    assert card["payload"] in {d.payload for d in read_cards(scene.image, KIT)}
    at = np.mean(np.array(card["corners"], np.float32), axis=0)
    side = float(np.linalg.norm(np.subtract(card["corners"][0], card["corners"][1])))
    (art, *_) = tried
    assert not art.spot and art.deep and art.side > 2.5 * side
    assert np.hypot(*(np.array(art.centre) - at)) < art.side / 2
    unsearched = replace(art, searched=False)
    assert not decode._covers(unsearched, (float(at[0]), float(at[1])), side)
    assert decode._covers(replace(art, searched=True), (float(at[0]), float(at[1])), side)


def test_a_code_whose_spot_ranks_past_the_spots_tried_is_read_at_a_glance(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fan of six at 1080p (a diagnostic held-out seed, traced): nothing is read first, and
    the one code in full view, washed by a glare of 51 grey levels, is busier than its ring
    less than card art is: its spots rank past the SPOT_TRIES that get the whole look. A glance
    (the crop's first re-read, on a crop twice as wide) reads it; with no glances, nothing
    does."""
    scene = studio.phone_scene(KIT, 991_027, "1080p", cards=6)
    (card,) = (c for c in scene.truth["cards"] if not c["foreign"])
    reads: list[tuple[decode.Left, set[str]]] = []
    ladder = decode._ladder

    def recorded(gray: Any, left: decode.Left, *args: Any, **kw: Any) -> Any:
        for found in ladder(gray, left, *args, **kw):
            reads.append((left, {c.text for c in found}))
            yield found

    monkeypatch.setattr(decode, "_ladder", recorded)
    assert card["payload"] in {d.payload for d in read_cards(scene.image, KIT)}
    at = next(i for i, (_, texts) in enumerate(reads) if card["payload"] in texts)
    assert reads[at][0].glance
    before = {id(left) for left, _ in reads[:at] if left.spot and not left.glance}
    assert len(before) == decode.SPOT_TRIES  # the spots that got the whole look: none read it
    monkeypatch.setattr(decode, "SPOT_GLANCES", 0)
    assert card["payload"] not in {d.payload for d in read_cards(scene.image, KIT)}


def test_a_glance_is_one_re_read_of_a_crop_of_at_most_glance_px(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A glance decodes a crop four of its spot's sides across, upscaled 2x but to at most
    GLANCE_PX: a spot of 144 px at 12 MP is read at 400 px, not 1152."""
    calls: list[tuple[tuple[int, int, int, int], float]] = []

    def recorded(gray: Any, box: tuple[int, int, int, int], upscale: float = 2.0) -> list[Any]:
        calls.append((box, upscale))
        return []

    monkeypatch.setattr(decode, "decode_crop", recorded)
    gray = np.full((3000, 4000), 200, np.uint8)
    for side, want in ((26.0, 2.0), (144.0, decode.GLANCE_PX / 576)):
        calls.clear()
        glance = decode.Left((2000.0, 1500.0), side, spot=True, deep=False, glance=True)
        assert list(decode._ladder(gray, glance, [], None)) == [[]]
        (((x, y, w, h), up),) = calls
        assert w == pytest.approx(4 * side, abs=2) and h == pytest.approx(4 * side, abs=2)
        assert (x + w / 2, y + h / 2) == pytest.approx((2000, 1500), abs=1)
        assert up == pytest.approx(want)


def test_a_glance_covers_no_spot_that_gets_the_whole_look() -> None:
    """A glance ran one re-read: a later spot at its place is still looked at wholly."""
    glance = decode.Left((100.0, 100.0), 26.0, spot=True, deep=False, glance=True)
    assert not decode._looked_at(glance)
    assert decode._looked_at(replace(glance, glance=False))


def pale_turned_code(degrees: float) -> tuple[np.ndarray, tuple[float, float], float, Any]:
    """A code of 3 px a module, its dark modules 200 on a label of 240 (pale: no cut of its
    grey makes a square of it), turned by ``degrees`` and blurred by a px: the picture, the
    code's centre and side, and the turn (an affine map)."""
    qr = qrcode.QRCode(border=0, box_size=1)
    qr.add_data(TEXT)
    modules = np.array(qr.get_matrix(), bool)
    sym = np.kron(np.where(modules, 200, 240).astype(np.uint8), np.ones((3, 3), np.uint8))
    page = np.full((300, 300), 240, np.uint8)
    side = float(sym.shape[0])
    at = 150 - sym.shape[0] // 2
    page[at : at + sym.shape[0], at : at + sym.shape[0]] = sym
    centre = (at + side / 2 - 0.5, at + side / 2 - 0.5)
    turn = cv2.getRotationMatrix2D(centre, -degrees, 1.0)
    photo = cv2.GaussianBlur(cv2.warpAffine(page, turn, (300, 300), borderValue=240), (0, 0), 1.0)
    return photo, centre, side, turn


@pytest.mark.parametrize("degrees", [0.0, 17.0, 38.0, 61.0, 84.0])
def test_a_codes_square_is_turned_as_its_module_edges_run(degrees: float) -> None:
    """The square round a pale code's centre is turned as the code, within 3 degrees (modulo
    a right angle), its corners within a module of the code's."""
    photo, centre, side, turn = pale_turned_code(degrees)
    quad = codebook.turned_square(photo, centre, side)
    edge = quad[1] - quad[0]
    got = float(np.degrees(np.arctan2(edge[1], edge[0]))) % 90
    assert min(abs(got - degrees), 90 - abs(got - degrees)) < 3
    h = side / 2
    truth = cv2.transform(
        np.array([[(centre[0] + u * h, centre[1] + v * h)] for u, v in codebook._CORNER_SIGNS]),
        turn,
    )[:, 0]
    assert (
        min(float(np.abs(np.roll(quad, k, axis=0) - truth).max()) for k in range(4)) < 3
    )  # a module


def test_a_pale_code_at_a_spot_is_matched_on_a_square_turned_as_its_edges_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fan of five at 1080p (a diagnostic held-out seed, traced): nothing is read, and the
    one code in full view, 1.85 px a module and blurred (its modules 113 against 212), lies 4 px
    from a spot the path looks at wholly. No cut of its grey makes its square; the square of
    the spot's side turned as its module edges run, the likeliest of its sizes, is matched by
    the codebook. Without the turned square, it is not read."""
    scene = studio.phone_scene(KIT, 979_034, "1080p", cards=5)
    (card,) = (c for c in scene.truth["cards"] if not c["foreign"])
    assert card["payload"] in {d.payload for d in read_cards(scene.image, KIT)}
    monkeypatch.setattr(decode, "likeliest_turned", lambda *_: None)
    assert card["payload"] not in {d.payload for d in read_cards(scene.image, KIT)}


def test_of_a_codes_turned_squares_the_likeliest_is_of_its_own_size() -> None:
    """Told a side 10% short, the square whose grey correlates best with a code's fixed parts
    is within 5% of the code's own side; on a plain label, or on noise, there is none."""
    photo, centre, side, _ = pale_turned_code(23.0)
    quad = codebook.likeliest_turned(photo, centre, 0.9 * side)
    assert quad is not None
    assert float(np.linalg.norm(quad[1] - quad[0])) == pytest.approx(side, rel=0.05)
    assert codebook.likeliest_turned(np.full((300, 300), 240, np.uint8), centre, side) is None
    noise = np.random.default_rng(7).integers(0, 256, (300, 300)).astype(np.uint8)
    assert codebook.likeliest_turned(noise, centre, side) is None
