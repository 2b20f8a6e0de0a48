"""The pure stages without photos: diff proposals, deck check, frame sources, kit loading
and the ``referee scan`` / ``referee table`` / ``referee deckcheck`` commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
import qrcode  # type: ignore[import-untyped]
from qrcode.constants import ERROR_CORRECT_M as ERROR_M  # type: ignore[import-untyped]
from qrcode.constants import ERROR_CORRECT_Q as ERROR_Q

from printables.herazeus.kit import KitError
from printables.herazeus.payload import Deck
from vision.decode import deblurred, decode_qr, find_codes, finder_codes
from vision.herazeus.cards import Detection
from vision.herazeus.deckcheck import check_deck
from vision.herazeus.diff import ViewError, parse_entry, propose
from vision.herazeus.kit import CardRef, VisionKit, load_kit
from vision.herazeus.markers import MatPose
from vision.herazeus.table import CellReading, Snapshot
from vision.sources import (
    FakeCapture,
    FakeSource,
    ImageFiles,
    SourceError,
    UploadedImage,
    Webcam,
    decode_image,
)
from web.cli import main

DATA = Path(__file__).resolve().parent / "data" / "vision"
POSE = MatPose(np.eye(3), (0, 1, 2, 3), 0.1, 1.0)
HYDRA = CardRef("hera", "Hydra", 12)
GIANT = CardRef("zeus", "Giant", 7)


@pytest.fixture(scope="module")
def kit() -> VisionKit:
    return load_kit(DATA / "kit.json")


# ---- diff -----------------------------------------------------------------------------------


def snap(**cells: Any) -> Snapshot:
    """A snapshot: every cell empty except ``hera_2_1="down:hera"``, ``zeus_1_1=GIANT`` ..."""
    out: dict[tuple[Deck, int, int], CellReading] = {}
    side: Any
    for side in ("hera", "zeus"):
        for c in range(1, 4):
            for r in range(1, 5):
                v = cells.get(f"{side}_{c}_{r}")
                key = (side, c, r)
                if v is None:
                    out[key] = CellReading(side, c, r, "empty", 0.9)
                elif isinstance(v, CardRef):
                    out[key] = CellReading(side, c, r, "up", 1.0, v.deck, v, "P")
                elif v == "unknown":
                    out[key] = CellReading(side, c, r, "unknown", 0.0)
                else:
                    out[key] = CellReading(side, c, r, "down", 0.98, v.split(":")[1])
    return Snapshot(out, POSE)


def view(hera: list[list[str]], zeus: list[list[str]], turn: str = "hera") -> dict[str, Any]:
    return {"turn": {"player": turn}, "hera": {"field": hera}, "zeus": {"field": zeus}}


def test_a_table_that_matches_the_view_proposes_nothing() -> None:
    s = snap(hera_1_1="down:hera", hera_1_2=HYDRA, zeus_3_1="down:zeus")
    assert propose(s, view([["?", "^Hydra"], [], []], [[], [], ["Giant"]])) == []


def test_a_new_back_in_column_2_row_1_is_a_play_there() -> None:
    s = snap(hera_2_1="down:hera", hera_2_2=HYDRA)
    (p,) = propose(s, view([[], ["^Hydra"], []], [[], [], []]))
    assert p["kind"] == "play"
    assert p["raw"] == {"do": "play", "column": 2, "position": 1, "by": "hera"}
    assert "card" not in p["raw"]  # the camera never names a face-down card


def test_a_play_between_identical_backs_offers_each_position() -> None:
    s = snap(zeus_1_1="down:zeus", zeus_1_2="down:zeus")
    props = propose(s, view([[], [], []], [["?"], [], []]))
    assert sorted(p["position"] for p in props) == [1, 2]
    assert all(p["kind"] == "play" and p["confidence"] == 0.49 for p in props)


def test_a_recorded_back_seen_face_up_is_a_reveal_observation() -> None:
    s = snap(hera_1_1=HYDRA)
    (p,) = propose(s, view([["?"], [], []], [[], [], []]))
    assert p["kind"] == "reveal"
    assert p["raw"] == {
        "player": "hera",
        "zone": "field",
        "column": 1,
        "position": 1,
        "card": "Hydra",
        "source": "camera",
    }


def test_a_face_up_card_seen_as_another_is_an_irregularity_for_the_service() -> None:
    s = snap(hera_1_1=HYDRA)
    (p,) = propose(s, view([["^Medusa"], [], []], [[], [], []]))
    assert p["kind"] == "irregularity"
    assert p["raw"]["card"] == "Hydra"  # observe() records the contradiction (D20)
    assert "recorded ^Medusa, seen ^Hydra" in p["description"]


def test_a_back_of_the_wrong_deck_is_an_irregularity() -> None:
    s = snap(hera_1_1="down:zeus")
    (p,) = propose(s, view([["?"], [], []], [[], [], []]))
    assert p["kind"] == "irregularity" and p["raw"] is None


def test_a_sirens_card_is_recognised_by_its_back() -> None:
    s = snap(hera_1_1="down:zeus")
    assert propose(s, view([["?/zeus"], [], []], [[], [], []])) == []


def test_a_challenge_reveal_and_loss_are_proposed_as_a_challenge() -> None:
    s = snap(hera_2_1=HYDRA)
    props = propose(s, view([[], ["?"], []], [[], ["?"], []], turn="hera"))
    kinds = [p["kind"] for p in props]
    assert kinds[0] == "challenge"
    assert props[0]["raw"] == {"do": "challenge", "column": 2, "by": "hera"}
    assert "reveal" in kinds and "removed" in kinds


def test_a_gap_in_a_column_is_an_irregularity() -> None:
    s = snap(hera_1_1="down:hera", hera_1_3="down:hera")
    (p,) = propose(s, view([["?", "?", "?"], [], []], [[], [], []]))
    assert p["kind"] == "irregularity" and p["position"] == 2


def test_unknown_cells_match_anything() -> None:
    s = snap(hera_1_1="unknown", zeus_2_1="unknown")
    assert propose(s, view([["^Hydra"], [], []], [[], ["@"], []])) == []


def test_a_face_up_card_at_the_front_of_a_longer_column_is_a_pegasus_placement() -> None:
    s = snap(hera_3_1=HYDRA, hera_3_2="down:hera")
    props = propose(s, view([[], [], ["?"]], [[], [], []], turn="zeus"))
    p = next(p for p in props if p["kind"] == "pegasus_place")
    assert p["raw"] == {
        "do": "pegasus",
        "target": "hand",
        "pick": "Hydra",
        "place": 3,
        "by": "zeus",
    }


@pytest.mark.parametrize("bad", ["", "^?", "Hydra/athena", "/zeus"])
def test_malformed_view_entries_are_refused(bad: str) -> None:
    with pytest.raises(ViewError):
        parse_entry(bad, "hera")


def test_a_view_without_a_field_is_refused() -> None:
    with pytest.raises(ViewError, match=r"zeus\.field"):
        propose(snap(), {"hera": {"field": [[], [], []]}})


# ---- deck check ----------------------------------------------------------------------------


def det(kit: VisionKit, payload: str, x: float = 0.0) -> Detection:
    quad = ((x, 0.0), (x + 10, 0.0), (x + 10, 10.0), (x, 10.0))
    return Detection(payload, quad, kit.card_for(payload), None, 1.0)


def test_deck_check_reports_missing_doubled_and_foreign(kit: VisionKit) -> None:
    hera = [p for p, c in kit.cards.items() if c.deck == "hera"]
    photos = [[det(kit, p) for p in hera[:20]], [det(kit, p) for p in hera[20:40]]]
    photos.append([det(kit, hera[40]), det(kit, hera[40], 50.0)])  # two cards, one code
    photos.append([Detection("HZZZZZ2H01AAAA", photos[0][0].corners, None, "another kit", 0.0)])
    report = check_deck(photos, kit, ("hera",))
    assert [c.serial for c in report.missing] == [42, 43]
    assert [c.serial for c in report.doubled] == [41]
    assert report.foreign == [("HZZZZZ2H01AAAA", "another kit")]
    assert not report.complete
    json.dumps(report.to_json())


def test_a_complete_deck_is_complete(kit: VisionKit) -> None:
    zeus = [p for p, c in kit.cards.items() if c.deck == "zeus"]
    report = check_deck([[det(kit, p) for p in zeus]], kit, ("zeus",))
    assert report.complete and len(report.seen) == 43
    assert "complete" in report.text()


def test_the_same_card_in_two_photos_is_repeated_not_doubled(kit: VisionKit) -> None:
    p = next(iter(kit.cards))
    report = check_deck([[det(kit, p)], [det(kit, p)]], kit, ("hera",))
    assert report.doubled == [] and report.repeated == [(kit.cards[p], 2)]


# ---- sources ----------------------------------------------------------------------------------


def test_uploaded_bytes_decode_once() -> None:
    img = np.full((20, 30, 3), 200, np.uint8)
    _ok, buf = cv2.imencode(".png", img)
    src = UploadedImage(buf.tobytes())
    got = src.read()
    assert got is not None and got.shape == (20, 30, 3)
    assert src.read() is None


@pytest.mark.parametrize("data", [b"", b"not an image at all"])
def test_bytes_that_are_not_an_image_are_refused_with_the_name(data: bytes) -> None:
    with pytest.raises(SourceError, match=r"photo\.jpg"):
        decode_image(data, "photo.jpg")


def test_image_files_in_order_and_a_missing_file_named(tmp_path: Path) -> None:
    a = tmp_path / "a.png"
    cv2.imwrite(str(a), np.zeros((5, 5, 3), np.uint8))
    src = ImageFiles([a, tmp_path / "missing.png"])
    assert src.read() is not None
    with pytest.raises(SourceError, match=r"missing\.png"):
        src.read()


def test_webcam_reads_through_its_capture_and_releases_it() -> None:
    frame = np.zeros((4, 4, 3), np.uint8)
    cap = FakeCapture([frame])
    cam = Webcam(0, open_capture=lambda _d: cap)
    assert cam.read() is frame
    assert cam.read() is None
    cam.close()
    assert cap.released


def test_a_camera_that_does_not_open_is_a_source_error() -> None:
    with pytest.raises(SourceError, match="cannot be opened"):
        Webcam(3, open_capture=lambda _d: FakeCapture([], opened=False))


def test_fake_source_gives_its_frames_then_none() -> None:
    src = FakeSource([np.zeros((2, 2, 3), np.uint8)])
    assert src.read() is not None and src.read() is None


# ---- kit ----------------------------------------------------------------------------------------


def test_the_kit_file_gives_every_sticker_and_the_mat(kit: VisionKit) -> None:
    assert len(kit.cards) == 86
    assert len(kit.mat.cells) == 24 and set(kit.mat.markers) == {0, 1, 2, 3}


def test_a_broken_kit_file_is_a_kit_error(tmp_path: Path) -> None:
    bad = tmp_path / "kit.json"
    bad.write_text("{}")
    with pytest.raises(KitError, match=r"kit\.json"):
        load_kit(bad)


# ---- the commands -----------------------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_scan_prints_the_cards_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "scan", str(DATA / "card_single.jpg"), "--kit", str(DATA / "kit.json"), "--json"
    )
    assert code == 0
    (d,) = json.loads(out)
    assert d["card"]["name"] == "Pegasus" and len(d["corners"]) == 4


def test_scan_of_a_foreign_card_exits_2_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "scan", str(DATA / "card_foreign.jpg"), "--kit", str(DATA / "kit.json")
    )
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "belongs to kit ZZZZ2" in err


def test_table_prints_sides_by_columns_by_rows(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "table", str(DATA / "table_plain.jpg"), "--kit", str(DATA / "kit.json"), "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert [len(c) for c in data["hera"]] == [4, 4, 4]


def test_table_in_words_lists_every_cell_it_could_not_read_with_why(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        capsys, "table", str(DATA / "table_plain.jpg"), "--kit", str(DATA / "kit.json")
    )
    assert code == 0 and out.strip()
    data = json.loads(
        run(
            capsys,
            "table",
            str(DATA / "table_plain.jpg"),
            "--kit",
            str(DATA / "kit.json"),
            "--json",
        )[1]
    )
    unknown = sum(
        c["state"] == "unknown" for side in ("hera", "zeus") for col in data[side] for c in col
    )
    assert out.count("unknown: ") == unknown


def test_table_with_a_view_that_is_no_view_exits_2_naming_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "view.json").write_text("[1, 2]")
    code, out, err = run(
        capsys,
        "table",
        str(DATA / "table_plain.jpg"),
        "--kit",
        str(DATA / "kit.json"),
        "--view",
        str(tmp_path / "view.json"),
    )
    assert code == 2 and out == "" and err.count("\n") == 1 and "view.json" in err


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("table", "card_single.jpg"), "the mat was not found"),
        (("table", "nothing.jpg"), "cannot read"),
        (("scan", "kit.json"), "not an image"),
    ],
)
def test_unreadable_inputs_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], args: tuple[str, str], says: str
) -> None:
    code, out, err = run(capsys, args[0], str(DATA / args[1]), "--kit", str(DATA / "kit.json"))
    assert code == 2 and out == "" and err.count("\n") == 1 and says in err


def test_a_bad_kit_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "k.json").write_text("[]")
    code, _, err = run(
        capsys, "scan", str(DATA / "card_single.jpg"), "--kit", str(tmp_path / "k.json")
    )
    assert code == 2 and err.count("\n") == 1


def test_deckcheck_lists_what_is_missing(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "deckcheck",
        str(DATA / "cards_fan.jpg"),
        "--kit",
        str(DATA / "kit.json"),
        "--deck",
        "zeus",
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert data["seen"] == 1 and len(data["missing"]) == 42 and len(data["foreign"]) == 1


def _blurred_code(text: str, module_px: int, sigma_px: float, ec: int = ERROR_M) -> np.ndarray:
    q = qrcode.QRCode(border=4, box_size=1, error_correction=ec)
    q.add_data(text)
    q.make()
    m = np.array(q.get_matrix(), dtype=np.uint8)
    fine = np.where(np.kron(m, np.ones((4 * module_px, 4 * module_px))), 0, 255).astype(np.uint8)
    img = cv2.resize(fine, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
    img = np.pad(img, 60, constant_values=255)
    img = cv2.GaussianBlur(img, (0, 0), sigma_px)
    noise = np.random.default_rng(1).normal(0, 2, img.shape)
    out: np.ndarray = np.clip(img + noise, 0, 255).astype(np.uint8)
    return out


def test_a_code_too_blurred_for_the_decoder_reads_once_the_blur_is_undone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    img = _blurred_code("HZ1-F-blurred-test-payload", module_px=3, sigma_px=2.0)
    assert decode_qr(img) == []
    assert any(decode_qr(sharp) for sharp in deblurred(img))
    codes, _ = find_codes(img, retries=True)
    assert [c.text for c in codes] == ["HZ1-F-blurred-test-payload"]
    monkeypatch.setattr("vision.decode.DEBLUR_SIGMAS", ())
    assert find_codes(img, retries=True)[0] == []  # the retry ladder alone does not read it


def test_our_finder_reads_only_codes_at_the_kits_error_correction() -> None:
    """Three finders of different stickers straightened as one code make a grid of stray
    modules that zxing-cpp decoded, now and then, as a code at a weak level (a refused
    '961006' on a photo of a sticker sheet). The kit prints every code at level Q."""
    for ec, read in ((ERROR_Q, True), (ERROR_M, False)):
        img = _blurred_code("HZ1-F-BLURRED-TEST-PAYLOAD", module_px=3, sigma_px=2.0, ec=ec)
        assert any(decode_qr(sharp) for sharp in deblurred(img))  # zxing-cpp reads either
        assert any(finder_codes(sharp) for sharp in deblurred(img)) is read


def test_a_code_no_decoder_detects_reads_through_our_finder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    img = _blurred_code("HZ1-F-BLURRED-TEST-PAYLOAD", module_px=3, sigma_px=2.2, ec=ERROR_Q)
    assert not any(decode_qr(sharp) for sharp in deblurred(img))  # zxing-cpp sees no symbol
    assert any(finder_codes(sharp) for sharp in deblurred(img))
    codes, _ = find_codes(img, retries=True)
    assert [c.text for c in codes] == ["HZ1-F-BLURRED-TEST-PAYLOAD"]
    x0, y0 = min(p[0] for p in codes[0].corners), min(p[1] for p in codes[0].corners)
    assert 40 < x0 < 90 and 40 < y0 < 90  # the corners map back onto the photo
    monkeypatch.setattr("vision.decode.FINDER_SIGMAS", ())
    assert find_codes(img, retries=True)[0] == []  # nothing else reads it
