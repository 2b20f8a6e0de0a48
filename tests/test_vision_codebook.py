"""Issue 14, item 2: a code of the kit too blurred or too small for any decoder is read by
matching it against every code the kit printed (vision.codebook), and nothing else ever is:
not another kit's code, not card art, not a blank label. Each reading test first checks that
no decoder reads the code, so it cannot pass by the decoders."""

from __future__ import annotations

import hashlib
from typing import Any

import cv2
import numpy as np
import pytest

import vision.decode
from printables.herazeus.payload import face_payload
from printables.sheets import qr_modules
from vision.codebook import (
    MIN_SCORE,
    PX,
    QUIET,
    SIDE,
    STROKES,
    WIDE_SCORE,
    Codebook,
    Match,
    _smooth_basis,
    aligned_corners,
    codebook,
    matched_codes,
    square_matches,
)
from vision.decode import find_codes, finder_l_quads, finder_pair_quads
from vision.herazeus import studio  # rasterises the kit with pypdfium2 (the test extra)
from vision.herazeus.cards import read_cards
from vision.herazeus.synth import demo_kit, fan_phone_scene, foreign_phone_scene, hard_phone_scene

KIT = demo_kit()
BOOK = codebook(KIT.payloads)
OURS = sorted(KIT.payloads)[5]
PAPER, INK = 235, 30


def label(
    modules: Any, module_px: float, blur: float, turns: int = 0, seed: int = 1, glare: float = 0
) -> tuple[Any, list[tuple[float, float]]]:
    """A sticker photographed straight on: ``modules`` (dark True) turned ``turns`` quarter
    turns clockwise, 4 modules of quiet zone, ``module_px`` px a module, lifted by ``glare``
    grey levels (past white: the camera clips it), blurred by ``blur`` modules, with sensor
    noise. Returns the image and the symbol's own top-left, top-right, bottom-right,
    bottom-left in it."""
    quiet, pad = 4, 40
    m = np.pad(np.rot90(np.asarray(modules, bool), -turns), quiet)
    side = round(m.shape[0] * module_px)
    fine = np.where(np.kron(m, np.ones((8, 8))), INK, PAPER).astype(np.float32)
    img: Any = np.pad(cv2.resize(fine, (side, side), interpolation=cv2.INTER_AREA), pad, "edge")
    img = img + glare
    img = cv2.GaussianBlur(img, (0, 0), blur * module_px) if blur else img
    img = img + np.random.default_rng(seed).normal(0, 3, img.shape)
    lo, hi = pad + quiet * module_px, pad + (quiet + 21) * module_px
    square = [(lo, lo), (hi, lo), (hi, hi), (lo, hi)]
    return np.clip(img, 0, 255).astype(np.uint8), square[turns:] + square[:turns]


def test_a_kit_code_no_decoder_reads_is_read_by_matching_with_its_corners() -> None:
    img, corners = label(qr_modules(OURS), module_px=2, blur=0.8)
    assert find_codes(img, retries=True)[0] == []  # the decoders, deblurring and our finder
    codes, _ = find_codes(img, retries=True, book=BOOK)
    assert [c.text for c in codes] == [OURS]
    assert np.abs(np.subtract(codes[0].corners, corners)).max() < 2  # px: a module


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
def test_a_matched_code_turned_keeps_its_own_top_left(turns: int) -> None:
    img, corners = label(qr_modules(OURS), module_px=2, blur=0.8, turns=turns)
    [(payload, got, match)] = matched_codes(img, BOOK)
    assert payload == OURS and match.turns == (4 - turns) % 4  # turned back upright
    assert np.abs(np.subtract(got, corners)).max() < 2


def test_a_matched_card_says_so_and_its_confidence_is_the_score() -> None:
    img, _ = label(qr_modules(OURS), module_px=2, blur=0.8)
    [d] = read_cards(img, KIT)
    assert d.card == KIT.cards[OURS] and d.matched and d.refused is None
    assert MIN_SCORE <= d.confidence < 1.0
    assert d.to_json()["matched"] is True


def test_a_code_a_decoder_read_is_not_matched_again() -> None:
    img, _ = label(qr_modules(OURS), module_px=3, blur=0.3)
    [decoded] = find_codes(img)[0]
    assert decoded.matched is None
    assert matched_codes(img, BOOK, [decoded.centre]) == []
    [(payload, _, _)] = matched_codes(img, BOOK)  # the square is there to match
    assert payload == OURS
    [d] = read_cards(img, KIT)
    assert not d.matched and d.confidence == 1.0


def test_where_the_codes_size_is_known_only_squares_of_about_that_size_are_weighed() -> None:
    img, _ = label(qr_modules(OURS), module_px=2, blur=0.8)  # the symbol is 42 px across
    [(payload, _, _)] = matched_codes(img, BOOK, side=(34, 52))
    assert payload == OURS
    assert matched_codes(img, BOOK, side=(50, 80)) == []  # a square of another size
    assert matched_codes(img, BOOK, side=(20, 36)) == []


def test_told_not_to_search_the_codebook_weighs_only_the_squares_it_is_given() -> None:
    """search=False: the phone path has found the squares where something was left on the
    whole photo, once; the crop round it is not searched again, and only those are weighed."""
    img, corners = label(qr_modules(OURS), module_px=2, blur=0.8)
    assert matched_codes(img, BOOK, search=False) == []
    quad = np.array(corners, np.float32)
    [(payload, got, _)] = matched_codes(img, BOOK, quads=[quad], search=False)
    assert payload == OURS and np.abs(np.subtract(got, corners)).max() < 2


def test_a_square_found_on_the_whole_photo_is_matched_without_searching_its_crop_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The phone path, nothing read: the squares the whole photo's search found where a code
    may lie are what the codebook weighs on the crop round it (no second search there)."""
    searched: list[bool] = []
    real = vision.decode.matched_codes  # type: ignore[attr-defined]

    def spy(*args: Any, **kwargs: Any) -> Any:
        searched.append(kwargs["search"])
        return real(*args, **kwargs)

    monkeypatch.setattr(vision.decode, "matched_codes", spy)
    img, _ = label(qr_modules(OURS), module_px=2, blur=0.8)
    codes, _ = find_codes(img, retries=True, book=BOOK)
    assert [c.text for c in codes] == [OURS] and searched == [False]


def another_kit_secret(n: int) -> str:
    """Kit ``n`` of other players: its secret, fixed so that a test reads the same codes every
    run (with a fresh random secret one code in several hundred scored 0.70, still far from a
    match, and failed the test's 0.7 bound now and then; the benchmark's margins weigh
    thousands of squares of other kits)."""
    return hashlib.sha256(f"another kit {n}".encode()).hexdigest()[:32]


@pytest.mark.parametrize("serial", range(1, 40, 3))
@pytest.mark.parametrize("blur", [0.3, 0.6, 0.8])
def test_another_kits_code_is_never_matched(serial: int, blur: float) -> None:
    other = face_payload("ZZZZ2", another_kit_secret(serial), "zeus", serial)
    img, _ = label(qr_modules(other), module_px=2, blur=blur, turns=serial % 4, seed=serial)
    squares = list(square_matches(img, BOOK))
    assert squares  # the stage straightened it and weighed it against our codes ...
    assert all(not m.accepted and m.score < 0.7 for _, m in squares)  # ... and refused it


def matched_under_glare(module_px: float, blur: float, glare: float) -> tuple[Any, Any, Any]:
    """Our code on a label under ``glare``: no decoder reads it and the codebook matches it.
    Returns the image, the symbol's corners and the corners matched."""
    img, corners = label(qr_modules(OURS), module_px=module_px, blur=blur, glare=glare)
    assert find_codes(img, retries=True)[0] == []
    [(payload, got, _)] = matched_codes(img, BOOK)
    assert payload == OURS
    return img, corners, got


@pytest.mark.parametrize(("module_px", "blur", "glare"), [(2.0, 0.7, 100), (3.5, 0.5, 130)])
def test_a_code_under_glare_no_decoder_reads_is_found_by_its_dark_strokes_and_matched(
    module_px: float, blur: float, glare: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    # glare lifts the label past white: what stays of the code are its darkest strokes, and its
    # square is no longer darker than the label round it
    img, corners, got = matched_under_glare(module_px, blur, glare)
    assert np.abs(np.subtract(got, corners)).max() < 1.5 * module_px
    # neither the dark-square test alone, nor strokes looked for at the small codes' size only
    monkeypatch.setattr("vision.codebook.STROKES", STROKES[:1] if module_px > 3 else ())
    assert matched_codes(img, BOOK) == []


@pytest.mark.parametrize(("module_px", "blur", "glare"), [(1.7, 0.3, 160), (2.0, 0.5, 130)])
def test_under_glare_the_templates_are_clipped_as_the_photo_is(
    module_px: float, blur: float, glare: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    img, _, _ = matched_under_glare(module_px, blur, glare)

    def own_score() -> float:
        return max(m.score for _, m in square_matches(img, BOOK) if m.payload == OURS)

    clipped = own_score()
    monkeypatch.setattr("vision.codebook.MIN_CLIPPED", 2.0)  # templates never clipped
    assert clipped >= MIN_SCORE > own_score()  # clipped alike, the code explains the photo well


@pytest.mark.parametrize("seed", range(60))
def test_under_glare_card_art_and_another_kits_codes_are_never_matched(seed: int) -> None:
    rng = np.random.default_rng(seed)
    glare, blur = float(rng.uniform(60, 180)), float(rng.uniform(0.0, 0.9))
    other = face_payload("ZZZZ2", another_kit_secret(1000 + seed), "zeus", seed + 1)
    for thing in (art(rng)[8 * 2 : -8 * 2 : 8, 8 * 2 : -8 * 2 : 8], qr_modules(other)):
        px = float(rng.uniform(1.5, 4))
        img, _ = label(thing, module_px=px, blur=blur, turns=seed % 4, seed=seed, glare=glare)
        assert all(not m.accepted and m.score < 0.7 for _, m in square_matches(img, BOOK))


def _corners_match(quad: Any, corners: Any, tolerance: float = 0.5) -> bool:
    """The same four points, in any order."""
    return all(min(np.hypot(*(np.subtract(q, c))) for c in corners) < tolerance for q in quad)


@pytest.mark.parametrize("turn", [0.0, 30.0, 135.0])
def test_two_finder_patterns_stand_for_the_code_they_belong_to(turn: float) -> None:
    m, at = 3.0, np.array([100.0, 100.0])
    r = np.radians(turn)
    x, y = np.array([np.cos(r), np.sin(r)]) * m, np.array([-np.sin(r), np.cos(r)]) * m
    corners = [at, at + 21 * x, at + 21 * (x + y), at + 21 * y]
    tl, tr, bl = (
        tuple([*(at + a * x + b * y), m]) for a, b in ((3.5, 3.5), (17.5, 3.5), (3.5, 17.5))
    )
    side = finder_pair_quads([tl, tr])  # a side: the code lies on one side of it or the other
    assert len(side) == 2 and sum(_corners_match(q, corners) for q in side) == 1
    [diagonal] = finder_pair_quads([tr, bl])  # a diagonal: in one place
    assert _corners_match(diagonal, corners)
    assert finder_pair_quads([tl, (tr[0] + 10 * m, tr[1], m)]) == []  # too far apart for a code
    assert finder_pair_quads([tl, (*tr[:2], 1.5 * m)]) == []  # not the same code's size


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
def test_a_decoders_fourth_corner_a_module_off_is_pinned_by_the_finders(turns: int) -> None:
    """A decoder extrapolates a version-1 code's fourth corner from its three finders; under a
    wide lens it lands a module or more off (here 1.4). Aligned on the finders, every corner
    comes back within half a module, in the order given."""
    img, corners = label(qr_modules(OURS), module_px=3.5, blur=0.3, turns=turns)
    off = [*corners[:2], (corners[2][0] + 4.0, corners[2][1] - 3.0), corners[3]]
    pinned = aligned_corners(img, off)
    assert pinned is not None
    misses = [float(np.hypot(*np.subtract(p, c))) for p, c in zip(pinned, corners, strict=True)]
    assert max(misses) < 1.75


def unread(scene: Any) -> list[str]:
    """The last four characters of the kit's codes in a phone ``scene`` that are not read."""
    ours = {c["payload"] for c in scene.truth["cards"] if not c["foreign"]}
    read = {d.payload for d in read_cards(scene.image, KIT) if d.card is not None}
    return sorted(p[-4:] for p in ours - read)


def test_a_blurred_code_whose_third_finder_is_lost_is_matched_from_the_other_two(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a photo of the tuned overlapping fans (fan_phone_scene 1080p 8): a code the first pass
    # misses, blurred until its third finder merges with its data; two finders still stand
    # where a code would, on the crop round what is left
    scene = fan_phone_scene(KIT, "1080p", 8)
    assert unread(scene) == []
    monkeypatch.setattr("vision.decode.MAX_PAIR_QUADS", 0)
    assert unread(scene) == ["OOGU"]


def test_three_finder_patterns_span_the_tilted_code_they_belong_to() -> None:
    # a code seen tilted: one arm of its L foreshortened to 0.72 of the other (an affine
    # stand-in for perspective across one code)
    m, at = 3.0, np.array([200.0, 150.0])
    r = np.radians(150.0)
    x = np.array([np.cos(r), np.sin(r)]) * m
    y = np.array([-np.sin(r), np.cos(r)]) * m * 0.72
    corners = [at, at + 21 * x, at + 21 * (x + y), at + 21 * y]
    tl, tr, bl = (
        tuple([*(at + a * x + b * y), m]) for a, b in ((3.5, 3.5), (17.5, 3.5), (3.5, 17.5))
    )
    [quad] = finder_l_quads([bl, tl, tr])
    assert _corners_match(quad, corners)
    assert finder_l_quads([tl, tr]) == []  # two are a pair, not an L
    assert finder_l_quads([tl, tr, (bl[0] + 12 * m, bl[1], m)]) == []  # not at a right angle


def test_a_tilted_blurred_code_is_matched_in_the_shape_its_three_finders_span(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # fresh hard 1080p phone photo 2058: a code at 3.2 px a module, tilted so far that one arm
    # of its L of finders is 24% shorter than the other, and blurred past decoding. The square
    # two finders give lies off it (scored 0.41-0.47); the L's parallelogram is read
    scene = hard_phone_scene(KIT, "1080p", 2058)
    assert unread(scene) == []
    monkeypatch.setattr("vision.decode.L_SKEW", 0.25)  # the decoder's own Ls only
    assert unread(scene) == ["7V6C"]


def art(rng: np.random.Generator) -> Any:
    """A square of something that is not a code: card art (smooth blobs at a random scale),
    a blank or shaded label, stripes of text, or a checkerboard."""
    n = 25 * 8
    kind = rng.integers(4)
    if kind == 0:
        k = int(rng.integers(2, 40))
        blobs = cv2.resize(rng.random((k, k)), (n, n), interpolation=cv2.INTER_CUBIC)
        return blobs > rng.uniform(0.3, 0.7)
    if kind == 1:
        ramp = np.linspace(0, 1, n)[None, :] * np.ones((n, 1))
        return ramp > rng.uniform(0.2, 0.8)
    if kind == 2:
        rows = rng.random(n // 8) < 0.5
        return np.repeat(rows, 8)[:, None] & (rng.random((1, n)) < 0.6)
    cells = int(rng.integers(3, 30))
    return (np.indices((n, n)).sum(axis=0) // (n // cells)) % 2 == 1


def straightened(modules: Any, blur: float, seed: int) -> Any:
    """``modules`` as :func:`vision.codebook.straighten` leaves a square it found exactly:
    PX px a module, QUIET modules of quiet zone round the symbol."""
    img, corners = label(modules, module_px=PX, blur=blur, seed=seed)
    at = int(corners[0][0]) - QUIET * PX
    return img[at : at + SIDE * PX, at : at + SIDE * PX].astype(np.float32)


@pytest.mark.parametrize("blur", [0.0, 0.4, 0.8])
def test_a_kit_code_straightened_matches_itself_clearly(blur: float) -> None:
    m = BOOK.best(straightened(qr_modules(OURS), blur, seed=1))
    assert m.payload == OURS and m.accepted and m.score > 0.9 and m.margin > 0.3


@pytest.mark.parametrize("blur", [0.5, 0.7])
def test_a_code_lit_more_on_one_side_is_matched_with_the_slope_of_light_taken_out(
    blur: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    # glare or a lamp's fall-off: 140 grey levels more on the right of the square than the left
    flat = straightened(qr_modules(OURS), blur, seed=3)
    lit = np.clip(0.6 * flat + np.linspace(0, 140, flat.shape[1])[None, :], 0, 255)
    m = BOOK.best(lit)
    assert m.payload == OURS and m.accepted and m.score > 0.9
    # only the mean taken out, as before: the slope weighs against the code
    monkeypatch.setattr("vision.codebook._BASIS", _smooth_basis(0))
    assert not Codebook(KIT.payloads).best(lit).accepted


@pytest.mark.parametrize("seed", [1, 2])
def test_a_code_of_about_one_pixel_a_module_no_decoder_reads_is_matched(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a fan of six cards at 1080p, tilted: 1.04 px a module, blurred half a module
    img, corners = label(qr_modules(OURS), module_px=1.04, blur=0.5, seed=seed)
    assert find_codes(img, retries=True)[0] == []
    codes, _ = find_codes(img, retries=True, book=BOOK)
    assert [c.text for c in codes] == [OURS]
    assert np.abs(np.subtract(codes[0].corners, corners)).max() < 1.5  # px: a module and a half
    # the blur shrank the dark square the code leaves below 21 px: weighed all the same
    assert [p for p, _, _ in matched_codes(img, BOOK)] == [OURS]
    monkeypatch.setattr("vision.codebook.QUAD_SHRINK", 1.0)
    assert matched_codes(img, BOOK) == []


def test_a_code_under_the_smallest_module_matched_is_not_matched(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    img, _ = label(qr_modules(OURS), module_px=1.06, blur=0.5, seed=1)
    assert [c.text for c in find_codes(img, retries=True, book=BOOK)[0]] == [OURS]
    monkeypatch.setattr("vision.codebook.MIN_MODULE_PX", 1.1)
    assert find_codes(img, retries=True, book=BOOK)[0] == []


@pytest.mark.parametrize("seed", range(200))
def test_card_art_and_blank_labels_are_never_matched(seed: int) -> None:
    rng = np.random.default_rng(seed)
    thing = art(rng)[8 * 2 : -8 * 2 : 8, 8 * 2 : -8 * 2 : 8]
    blur = float(rng.uniform(0.0, 0.9))
    m = BOOK.best(straightened(thing, blur, seed))  # as if found exactly where a code would be
    assert not m.accepted and m.score < 0.7
    img, _ = label(thing, module_px=float(rng.uniform(1.5, 4)), blur=blur, seed=seed)
    assert matched_codes(img, BOOK) == []  # and wherever the stage finds squares in it


@pytest.mark.parametrize("i", range(4))
def test_beside_another_kits_cards_only_ours_are_read(i: int) -> None:
    scene = foreign_phone_scene(KIT, "1080p", i)
    ours = {c["payload"] for c in scene.truth["cards"] if not c["foreign"]}
    assert any(c["foreign"] for c in scene.truth["cards"])
    read = {d.payload for d in read_cards(scene.image, KIT) if d.card is not None}
    assert read <= ours


def test_a_codebook_needs_two_codes_to_tell_a_lead() -> None:
    with pytest.raises(ValueError, match="at least two codes"):
        Codebook([OURS])


@pytest.mark.parametrize(
    ("score", "margin", "read"),
    [
        (0.8, 0.15, True),
        (0.79, 0.29, False),
        (0.7, 0.3, True),
        (0.69, 0.6, False),
        (0.95, 0.14, False),
    ],
)
def test_a_match_is_read_by_its_score_with_a_lead_or_by_a_lower_score_with_a_wide_lead(
    score: float, margin: float, read: bool
) -> None:
    assert Match(OURS, score, margin, 0, 0.0).accepted is read


def test_codes_of_a_fan_that_explain_their_templates_less_but_lead_widely_are_read() -> None:
    """A fan of four at 1080p (a held-out seed, traced), three codes in view, each of 1.7 px a
    module: no decoder reads them; straightened round their spots they score 0.74-0.80
    against their own codes, with leads of 0.32-0.55 over the kit's next best. The first is
    matched where nothing was read yet; the two others at their spots beside it, a code only
    the codebook read, get the codebook too (beside a decoded code a spot gets the crop's
    re-read alone)."""
    scene = studio.phone_scene(KIT, 979_001, "1080p", cards=4)
    want = {
        c["payload"] for c in scene.truth["cards"] if not c["foreign"] and c.get("expect", True)
    }
    got = [d for d in read_cards(scene.image, KIT) if d.card is not None]
    assert {d.payload for d in got} == want and len(want) == 3
    wide = [d for d in got if d.matched and d.confidence < MIN_SCORE]
    assert len(wide) >= 2 and all(d.confidence >= WIDE_SCORE for d in wide)
