"""The club's test photos (issue 38, point 5): a player's still saved, with his consent, to the
folder the server was started with (``STILLS_DIR``, ``referee serve --stills``), labelled with
the codes he confirms it shows, in the layout ``benchmarks/vision.py --photos`` scores.

What is checked: without the consent nothing is written; with it, ``NAME.jpg`` and ``NAME.txt``
hold the still and exactly the codes he ticked, and the folder scores; a still is his seat's
only (the other player and the judge can neither see nor save it); a code not read in the
still, or none ticked, is refused naming it; a server without the folder shows no control and
refuses a save; the picture is written without a phone's metadata (its location).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask import Flask
from test_web_camera import VK, cards_photo, flashes, jpeg, kit_game, payload_of
from web_helpers import Browser, make_app
from werkzeug.test import TestResponse

from benchmarks.photos import expected_texts, labelled_photos, score, score_folders
from web.stills import held_stills, without_metadata

AMAZON = payload_of("hera", "Amazon")
APOLLO = payload_of("zeus", "Apollo")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "club"


@pytest.fixture
def app(folder: Path) -> Flask:
    folder.mkdir()
    return make_app(FRAME_BURST=20, STILLS_DIR=str(folder))


def still(b: Browser, game: str, data: bytes) -> TestResponse:
    """The camera page's full-resolution still, as its script sends it."""
    h = {"X-CSRF-Token": b.csrf(game), "Content-Type": "image/jpeg"}
    r = b.client.post(f"/api/v1/games/{game}/frames?still=1", headers=h, data=data)
    assert r.status_code == 200, r.data
    return r


def keep(b: Browser, game: str, **form: Any) -> str:
    """Posts the save form; returns the page it leads to (with its flashes)."""
    r = b.client.post(f"/g/{game}/camera/keep", data={"csrf": b.csrf(game), **form})
    assert r.status_code == 303, r.data
    return b.get(r.headers["Location"]).get_data(as_text=True)


def written(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_a_still_is_saved_only_with_consent_and_labelled_with_the_codes_he_confirms(
    app: Flask, folder: Path
) -> None:
    g, b = kit_game(app)
    still(b["hera"], g, cards_photo([("hera", "Amazon"), ("zeus", "Apollo")]))
    page = b["hera"].get(f"/g/{g}/camera/keep").get_data(as_text=True)
    assert f'value="{AMAZON}"' in page and f'value="{APOLLO}"' in page
    assert "checked" not in page  # neither a code nor the consent is ticked for him
    assert "Save this still, with the codes I confirm, to the club's test photos" in page

    said = flashes(keep(b["hera"], g, use="save", code=[AMAZON, APOLLO]))
    assert "Nothing saved: tick the consent" in said
    assert written(folder) == []

    said = flashes(keep(b["hera"], g, use="save", consent="yes", code=[AMAZON]))
    assert "Saved to the club&#39;s test photos as still-" in said
    names = written(folder)
    assert len(names) == 2 and names[0].endswith(".jpg") and names[1].endswith(".txt")
    assert (folder / names[1]).read_text() == f"{AMAZON}\n"  # what he ticked, nothing else
    assert cv2.imread(str(folder / names[0])) is not None
    assert held_stills(app).get(g, "hera") is None  # saved once, then forgotten

    photos, unlabelled = labelled_photos(folder)
    assert unlabelled == 0 and [p.expected for p in photos[folder]] == [(AMAZON,)]
    out: list[str] = []
    totals = score_folders(folder, say=out.append)
    assert totals["zxing-cpp"].expected == 1 and totals["zxing-cpp"].photos == 1
    assert any("codes read" in line for line in out)


def test_a_still_is_his_seat_s_only_the_other_player_and_the_judge_can_neither_see_nor_save_it(
    app: Flask, folder: Path
) -> None:
    g, b = kit_game(app)
    still(b["hera"], g, cards_photo([("hera", "Amazon"), ("zeus", "Apollo")]))
    zeus = b["zeus"].get(f"/g/{g}/camera/keep").get_data(as_text=True)
    assert "No still of yours waits to be saved" in zeus and AMAZON not in zeus
    said = flashes(keep(b["zeus"], g, use="save", consent="yes", code=[AMAZON]))
    assert "Refused: no still of yours waits to be saved" in said
    for page in (f"/g/{g}/camera/keep", f"/g/{g}/camera"):
        judge = b["judge"].get(page, follow_redirects=True).get_data(as_text=True)
        assert AMAZON not in judge and "still-keep" not in judge
    said = flashes(keep(b["judge"], g, use="save", consent="yes", code=[AMAZON]))
    assert "Refused: only a player gives his own stills" in said
    assert written(folder) == []
    assert held_stills(app).get(g, "hera") is not None  # still his, untouched


def test_bad_input_is_refused_naming_it_and_writes_nothing(app: Flask, folder: Path) -> None:
    g, b = kit_game(app)
    still(b["hera"], g, cards_photo([("hera", "Amazon")]))
    said = flashes(keep(b["hera"], g, use="save", consent="yes", code=[APOLLO]))
    assert f"Refused: the code {APOLLO} was not read in this still." in said
    said = flashes(keep(b["hera"], g, use="save", consent="yes"))
    assert "Refused: tick the codes this still shows (none is ticked)." in said
    assert written(folder) == []
    said = flashes(keep(b["hera"], g, use="forget"))
    assert "Forgotten: the still was not saved." in said
    assert held_stills(app).get(g, "hera") is None and written(folder) == []


def test_the_camera_page_offers_the_save_only_on_a_server_with_the_folder(
    app: Flask, tmp_path: Path
) -> None:
    g, b = kit_game(app)
    assert 'id="still-keep" hidden' in b["hera"].get(f"/g/{g}/camera").get_data(as_text=True)
    still(b["hera"], g, cards_photo([("hera", "Amazon")]))
    assert 'id="still-keep">' in b["hera"].get(f"/g/{g}/camera").get_data(as_text=True)

    plain = make_app(FRAME_BURST=20)  # started without --stills
    g, b = kit_game(plain)
    assert "still-keep" not in b["hera"].get(f"/g/{g}/camera").get_data(as_text=True)
    still(b["hera"], g, cards_photo([("hera", "Amazon")]))
    assert held_stills(plain).get(g, "hera") is None  # nothing even held
    said = flashes(keep(b["hera"], g, use="save", consent="yes", code=[AMAZON]))
    assert "Refused: this server keeps no test photos" in said
    r = b["hera"].get(f"/g/{g}/camera/keep")
    assert r.status_code == 303 and not list(tmp_path.rglob("still-*"))


def test_the_still_is_written_without_the_phone_s_metadata() -> None:
    img = np.full((40, 60, 3), 200, np.uint8)
    plain = jpeg(img)
    exif = b"Exif\x00\x00GPS 48.8584 N 2.2945 E"
    tagged = plain[:2] + b"\xff\xe1" + (len(exif) + 2).to_bytes(2, "big") + exif + plain[2:]
    out, suffix = without_metadata(tagged)
    assert suffix == ".jpg" and b"GPS" not in out and out == plain
    ok, png = cv2.imencode(".png", img)
    assert ok
    chunk = b"tEXt" + b"Location\x00Paris"
    crc = b"\x00\x00\x00\x00"
    raw = png.tobytes()
    tagged_png = raw[:33] + (len(chunk) - 4).to_bytes(4, "big") + chunk + crc + raw[33:]
    out, suffix = without_metadata(tagged_png)
    assert suffix == ".png" and b"Paris" not in out and out == raw
    with pytest.raises(ValueError, match="neither a JPEG nor a PNG"):
        without_metadata(b"GIF89a")


# ---- the label files (benchmarks/photos.py) --------------------------------------------------


def test_a_label_lists_one_code_a_line_or_in_zxing_s_layout_one_text_a_file(
    tmp_path: Path,
) -> None:
    label = tmp_path / "1.txt"
    label.write_bytes(b"first\r\nsecond  \n\nthird")
    assert expected_texts(label) == ("first", "second  ", "third")
    assert expected_texts(label, whole_file=True) == ("first\r\nsecond  \n\nthird",)
    (tmp_path / "1.png").write_bytes(b"")
    (tmp_path / "2.jpg").write_bytes(b"")  # no label: not scored
    sub = tmp_path / "more"
    sub.mkdir()
    (sub / "10.png").write_bytes(b"")
    (sub / "10.txt").write_bytes(b"")  # a photo of no code
    photos, unlabelled = labelled_photos(tmp_path)
    assert unlabelled == 1
    assert {k.name: [p.expected for p in v] for k, v in photos.items()} == {
        tmp_path.name: [("first", "second  ", "third")],
        "more": [()],
    }


def test_a_text_read_that_the_label_does_not_list_is_wrong_and_a_code_read_twice_counts_once() -> (
    None
):
    assert score(["A", "B"], ["B", "B", "C"]) == (1, ["A"], ["C"])
    assert score([], ["X"]) == (0, [], ["X"])
    assert VK.card_for(AMAZON) is not None


def test_a_picture_is_not_read_from_a_still_that_is_no_image(app: Flask, folder: Path) -> None:
    g, b = kit_game(app)
    h = {"X-CSRF-Token": b["hera"].csrf(g)}
    body = {"frame": (io.BytesIO(b"not an image"), "p.jpg", "image/jpeg")}
    r = b["hera"].client.post(
        f"/api/v1/games/{g}/frames?still=1",
        headers=h,
        data=body,
        content_type="multipart/form-data",
    )
    assert r.status_code in (400, 415, 422)
    assert held_stills(app).get(g, "hera") is None and written(folder) == []


def test_serve_keeps_no_test_photos_unless_told_and_refuses_a_folder_it_cannot_use(
    tmp_path: Path,
) -> None:
    from web.cli import build_parser
    from web.serve import cmd_serve
    from web.stills import check_folder

    assert build_parser().parse_args(["serve"]).stills is None  # off by default
    args = build_parser().parse_args(["serve", "--stills", str(tmp_path), "--workers", "2"])
    with pytest.raises(SystemExit, match="--stills needs --workers 1"):
        cmd_serve(args)
    assert check_folder(str(tmp_path / "new")) == tmp_path / "new"
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match=f"--stills {tmp_path / 'file'}"):
        check_folder(str(tmp_path / "file"))


def test_held_stills_are_bounded_in_count_and_bytes_the_oldest_going_first() -> None:
    from web.stills import StillHold

    hold = StillHold(most=2, most_bytes=10)
    hold.hold("g", "a", b"1234", ["A"])
    hold.hold("g", "b", b"1234", ["B"])
    hold.hold("g", "c", b"1234", ["C"])  # three seats: the oldest goes
    assert hold.get("g", "a") is None and hold.get("g", "b") is not None
    hold.hold("g", "d", b"12345678", ["D"])  # 12 bytes: over 10, the oldest goes
    assert hold.get("g", "c") is None and hold.get("g", "d") is not None
