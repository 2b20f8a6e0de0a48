"""An uploaded image, bounded before it is read (issue 12): the upload of a request (a
multipart field or a whole image body) within a byte limit, and an image's size read from its
header before anything is decoded, within ``IMAGE_PIXELS`` pixels (default 50 MP). Every game's
photos and frames come in through here; what a game reads in them is its page module's."""

from __future__ import annotations

from typing import Any

from flask import current_app, request

from referee.language import Say
from web.errors import BadImage, ImageTooLarge, NoImage, WrongImageType

UPLOAD_TYPES = ("image/jpeg", "image/png", "image/webp")
FRAME_LIMIT = 4 * 1024 * 1024  # a 1080p JPEG from a canvas is 0.2-0.8 MB


def upload_bytes(field: str, limit: int) -> bytes:
    """The image of this request: the multipart field ``field``, or the whole body sent as
    ``image/jpeg``, ``image/png`` or ``image/webp``. Raises NoImage naming the field
    when there is none, WrongImageType for another type, ImageTooLarge above ``limit`` bytes."""
    if request.mimetype == "multipart/form-data":
        f = request.files.get(field)
        if f is None or (not f.filename and not f.mimetype):
            raise NoImage(
                Say("send the image as the multipart field %(field)s", field=repr(field)), field
            )
        if f.mimetype not in UPLOAD_TYPES:
            raise WrongImageType(
                Say(
                    "%(field)s: a JPEG, PNG or WebP image is needed, not %(type)s",
                    field=field,
                    type=repr(f.mimetype),
                ),
                field,
            )
        data = f.read(limit + 1)
    elif request.mimetype in UPLOAD_TYPES:
        if request.content_length is not None and request.content_length > limit:
            data = b"x" * (limit + 1)
        else:
            data = request.get_data(cache=False)
    else:
        raise WrongImageType(
            Say(
                "send the %(field)s as multipart/form-data (field %(name)s) or as an image/jpeg "
                "body, not %(type)s",
                field=field,
                name=repr(field),
                type=repr(request.mimetype or "nothing"),
            ),
            field,
        )
    if len(data) > limit:
        raise ImageTooLarge(
            Say("%(field)s: larger than %(mb)s MB", field=field, mb=limit // (1024 * 1024)), field
        )
    if not data:
        raise NoImage(Say("%(field)s: empty, not an image", field=field), field)
    return bytes(data)


def pixel_limit() -> int:
    from vision.sources import MAX_PIXELS

    return int(current_app.config.get("IMAGE_PIXELS", MAX_PIXELS))


def check_image(data: bytes, name: str) -> None:
    """Reads the image's size from its header, before anything is decoded. Raises
    ImageTooLarge (413) naming the size and the limit, BadImage for a header that declares no
    size."""
    from vision.sources import ImageTooBig, SourceError, check_pixels

    try:
        check_pixels(data, name, pixel_limit())
    except ImageTooBig as e:
        raise ImageTooLarge(str(e)[:300], name) from None
    except SourceError as e:
        raise BadImage(str(e)[:300], name) from None


def decode(data: bytes, name: str) -> Any:
    from vision.sources import ImageTooBig, SourceError, decode_image

    try:
        return decode_image(data, name, pixel_limit())
    except ImageTooBig as e:
        raise ImageTooLarge(str(e)[:300], name) from None
    except SourceError as e:
        raise BadImage(str(e)[:300], name) from None
