"""Computer players: pure and seedable; they decide from ``view(seat)`` and the legal actions.

``engine.ai.scala40`` and ``engine.ai.scopone`` each offer ``choose(match, level, seed)``; the
levels are ``facile`` and ``esperto``.
"""

LEVELS = ("facile", "esperto")
