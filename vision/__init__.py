"""Camera input (OpenCV): reading QR stickers. Arrives with its own issue."""
