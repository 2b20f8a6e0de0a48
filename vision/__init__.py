"""Camera input (issue 8): pure stages from an image to what a game's kit says it shows (frame
in, data out; the camera and the clock stay outside).

Shared by every game: :mod:`vision.decode` (every face QR code in a photo), :mod:`vision.codebook`
(codes too blurred to decode, matched against a kit's own), :mod:`vision.sources` (image files,
uploaded bytes, a webcam, and fakes, each bounded before it is decoded). Each game's own stages
(its kit, mat, table and proposals) are in its package here; :mod:`vision.games` lists them for
the commands (:mod:`vision.cli`).

Importing this package does not import OpenCV.
"""
