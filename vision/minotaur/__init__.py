"""Minotaur Lords's camera input: the cards its kit's stickers name in a photo
(:mod:`vision.minotaur.cards`), and on the table camera (issue 38) each lane's cards in order
and the deities from an overhead frame of its mat (:mod:`vision.minotaur.table`), and the
events since a seat's view (:mod:`vision.minotaur.diff`); seeded synthetic frames to test and
measure them (:mod:`vision.minotaur.synth`, :mod:`vision.minotaur.bench`)."""
