"""What gets printed: the sticker kit (``kit.json``, face and back stickers) and the play mat,
as print-ready PDFs (``referee kit``). The kit model here is the one ``vision`` reads."""
