"""Where frames come from, behind one small interface: image files, an uploaded image
(bytes from a phone), a webcam (``cv2.VideoCapture``), and a fake for tests.

A :class:`FrameSource` gives BGR frames until it has none (``read`` returns None). The
recognition stages never see a source: the caller reads a frame and passes the array on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

MAX_UPLOAD_BYTES = 25 * 1024 * 1024  # a 12 MP phone JPEG is 3-8 MB
MAX_PIXELS = 50_000_000  # refuse decompression bombs


class SourceError(ValueError):
    """A frame that cannot be had: unreadable file, not an image, too large, no camera.
    The message names the input."""


class FrameSource(Protocol):
    """A source of BGR frames."""

    def read(self) -> NDArray[Any] | None:
        """The next frame, or None when the source has no more. Raises SourceError when a
        frame exists but cannot be decoded."""
        ...

    def close(self) -> None: ...


class ImageTooBig(SourceError):
    """An image whose header declares more pixels than the limit (a decompression bomb, or
    simply too large a photo). Raised before any decoding."""


def image_size(data: bytes) -> tuple[int, int] | None:
    """``(width, height)`` as the header of a PNG, JPEG or WebP declares it, read without
    decoding; None for another format or a header that does not read."""
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        if len(data) >= 24 and data[12:16] == b"IHDR":
            return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        return None
    if data[:2] == b"\xff\xd8":
        return _jpeg_size(data)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP" and len(data) >= 30:
        chunk = data[12:16]
        if chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":
            w = int.from_bytes(data[26:28], "little") & 0x3FFF
            h = int.from_bytes(data[28:30], "little") & 0x3FFF
            return w, h
        if chunk == b"VP8L" and data[20] == 0x2F:
            bits = int.from_bytes(data[21:25], "little")
            return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
        if chunk == b"VP8X":
            w = int.from_bytes(data[24:27], "little") + 1
            h = int.from_bytes(data[27:30], "little") + 1
            return w, h
    return None


_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """The size in a JPEG's first start-of-frame segment (walking the segments' lengths)."""
    i, n = 2, len(data)
    while i + 4 <= n:
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # no length
            i += 2
            continue
        if marker in (0xD9, 0xDA):  # end of image, start of scan: no frame header came
            return None
        length = int.from_bytes(data[i + 2 : i + 4], "big")
        if length < 2:
            return None
        if marker in _SOF:
            if i + 9 > n:
                return None
            h = int.from_bytes(data[i + 5 : i + 7], "big")
            w = int.from_bytes(data[i + 7 : i + 9], "big")
            return w, h
        i += 2 + length
    return None


def check_pixels(data: bytes, name: str = "upload", limit: int = MAX_PIXELS) -> None:
    """Refuses an image whose header declares more than ``limit`` pixels, before decoding.
    Raises ImageTooBig naming ``name``, the size and the limit, and SourceError for a header
    that declares no size (or a zero one), in a format whose size cannot be read first."""
    size = image_size(data)
    if size is None:
        size = _pil_size(data, name)
    w, h = size
    if w <= 0 or h <= 0:
        raise SourceError(f"{name}: the image header declares {w} × {h} pixels, not an image")
    if w * h > limit:
        raise ImageTooBig(
            f"{name}: the image is {w} × {h} pixels ({w * h / 1e6:.0f} MP), more than the "
            f"{limit / 1e6:g} MP limit; it was not decoded (send a smaller photo)"
        )


def _pil_size(data: bytes, name: str) -> tuple[int, int]:
    """The size of another format as PIL reads it lazily from the header (PIL's own bomb
    error is a refusal too). Raises SourceError when PIL is absent or cannot read it."""
    try:
        import io
        import warnings

        from PIL import Image
    except ImportError:  # pragma: no cover - Pillow comes with fpdf2
        raise SourceError(f"{name}: not a JPEG, PNG or WebP image") from None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as im:
                w, h = im.size
    except Image.DecompressionBombError:
        raise ImageTooBig(
            f"{name}: the image declares more pixels than the {MAX_PIXELS / 1e6:g} MP limit; "
            "it was not decoded (send a smaller photo)"
        ) from None
    except Exception:
        raise SourceError(f"{name}: not an image OpenCV can read (JPEG, PNG, WebP, ...)") from None
    return int(w), int(h)


def decode_image(data: bytes, name: str = "upload", limit: int = MAX_PIXELS) -> NDArray[Any]:
    """A BGR image from encoded bytes (JPEG, PNG, ...). Its size is read from its header
    first (:func:`check_pixels`). Raises SourceError naming ``name`` when the bytes are empty,
    too many, not an image, and ImageTooBig when the header declares more than ``limit``
    pixels."""
    if not data:
        raise SourceError(f"{name}: empty, not an image")
    if len(data) > MAX_UPLOAD_BYTES:
        raise SourceError(f"{name}: {len(data) // 1_000_000} MB is larger than the 25 MB limit")
    check_pixels(data, name, limit)
    buf = np.frombuffer(data, np.uint8)
    img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if img is None or img.size == 0:
        raise SourceError(f"{name}: not an image OpenCV can read (JPEG, PNG, WebP, ...)")
    if img.shape[0] * img.shape[1] > limit:  # the header lied
        raise ImageTooBig(f"{name}: the image has more than {limit / 1e6:g} MP")
    out: NDArray[Any] = img
    return out


def read_image_file(path: str | Path) -> NDArray[Any]:
    """A BGR image from a file. Raises SourceError naming the file."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise SourceError(f"{path}: cannot read: {e.strerror or e}") from None
    return decode_image(data, str(path))


class ImageFiles:
    """Frames from image files, in order."""

    def __init__(self, paths: Iterable[str | Path]) -> None:
        self._paths: Iterator[str | Path] = iter(list(paths))

    def read(self) -> NDArray[Any] | None:
        p = next(self._paths, None)
        return None if p is None else read_image_file(p)

    def close(self) -> None:
        self._paths = iter(())


class UploadedImage:
    """One frame from uploaded bytes (a phone photo sent by the web app)."""

    def __init__(self, data: bytes, name: str = "upload") -> None:
        self._data: bytes | None = data
        self._name = name

    def read(self) -> NDArray[Any] | None:
        if self._data is None:
            return None
        data, self._data = self._data, None
        return decode_image(data, self._name)

    def close(self) -> None:
        self._data = None


class Capture(Protocol):
    """The part of ``cv2.VideoCapture`` a webcam source uses."""

    def isOpened(self) -> bool: ...

    def read(self) -> tuple[bool, Any]: ...

    def release(self) -> None: ...


class Webcam:
    """Frames from a camera through ``cv2.VideoCapture`` (or an injected capture)."""

    def __init__(
        self,
        device: int | str = 0,
        open_capture: Callable[[int | str], Capture] | None = None,
        size: tuple[int, int] | None = (1920, 1080),
    ) -> None:
        """Raises SourceError when the camera cannot be opened."""
        opener = open_capture or _open_cv
        self._cap: Capture | None = opener(device)
        if not self._cap.isOpened():
            self._cap.release()
            self._cap = None
            raise SourceError(f"camera {device!r}: cannot be opened")
        if size is not None and isinstance(self._cap, cv2.VideoCapture):
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])

    def read(self) -> NDArray[Any] | None:
        if self._cap is None:
            return None
        ok, frame = self._cap.read()
        if not ok or frame is None:
            return None
        out: NDArray[Any] = frame
        return out

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


def _open_cv(device: int | str) -> Capture:
    cap: Capture = cv2.VideoCapture(device)
    return cap


class FakeSource:
    """Frames given in advance (tests)."""

    def __init__(self, frames: Sequence[NDArray[Any]]) -> None:
        self._frames = list(frames)
        self.closed = False

    def read(self) -> NDArray[Any] | None:
        if self.closed or not self._frames:
            return None
        return self._frames.pop(0)

    def close(self) -> None:
        self.closed = True


class FakeCapture:
    """A stand-in for ``cv2.VideoCapture`` (tests of :class:`Webcam`)."""

    def __init__(self, frames: Sequence[NDArray[Any]], opened: bool = True) -> None:
        self._frames = list(frames)
        self._opened = opened
        self.released = False

    def isOpened(self) -> bool:
        return self._opened and not self.released

    def read(self) -> tuple[bool, Any]:
        if self.released or not self._frames:
            return False, None
        return True, self._frames.pop(0)

    def release(self) -> None:
        self.released = True
