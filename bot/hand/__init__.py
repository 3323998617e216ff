"""The private hand's building blocks, shared by every game: its state (:mod:`.state`: the
selection, the staged melds, the card order and the pending step, and how presses turn into
engine actions) and its keyboard and cockpit header (:mod:`.keys`). Each game draws its own
hand from them (:mod:`bot.games`); :mod:`bot.hands` takes the presses on it."""
