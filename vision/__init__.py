"""Camera input (issue 8): pure stages from an image to what a game's kit says it shows (frame
in, data out; the camera and the clock stay outside).

Shared by every game: :mod:`vision.decode` (every face QR code in a photo), :mod:`vision.codebook`
(codes too blurred to decode, matched against a kit's own), :mod:`vision.sources` (image files,
uploaded bytes, a webcam, and fakes, each bounded before it is decoded). Each game's own stages
(its kit, mat, table and proposals) are in its package here; :mod:`vision.games` lists them for
the commands (:mod:`vision.cli`).

``vision.decode_all(image)`` is the phone photo path's decoding on anyone's QR codes (texts and
corners, :class:`vision.decode.DecodedCode`), before any kit's check.

Importing this package does not import OpenCV (``decode_all`` and ``DecodedCode`` load
:mod:`vision.decode` when first used).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vision.decode import DecodedCode, decode_all

__all__ = ["DecodedCode", "decode_all"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from vision import decode

        return getattr(decode, name)
    raise AttributeError(f"module 'vision' has no attribute {name!r}")
