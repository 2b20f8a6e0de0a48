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


def decode_image(data: bytes, name: str = "upload") -> NDArray[Any]:
    """A BGR image from encoded bytes (JPEG, PNG, ...). Raises SourceError naming ``name``
    when the bytes are empty, too many, not an image, or decode to too many pixels."""
    if not data:
        raise SourceError(f"{name}: empty, not an image")
    if len(data) > MAX_UPLOAD_BYTES:
        raise SourceError(f"{name}: {len(data) // 1_000_000} MB is larger than the 25 MB limit")
    buf = np.frombuffer(data, np.uint8)
    if not _pixels_ok(data):
        raise SourceError(f"{name}: the image has more than {MAX_PIXELS // 1_000_000} MP")
    img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if img is None or img.size == 0:
        raise SourceError(f"{name}: not an image OpenCV can read (JPEG, PNG, WebP, ...)")
    out: NDArray[Any] = img
    return out


def _pixels_ok(data: bytes) -> bool:
    """Reads the size from the header (PIL, lazily) before decoding; unknown formats pass."""
    try:
        import io

        from PIL import Image

        with Image.open(io.BytesIO(data)) as im:
            w, h = im.size
        return w * h <= MAX_PIXELS
    except Exception:  # not a format PIL knows: OpenCV decides
        return True


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
