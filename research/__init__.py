"""AI research: trainers and probes for Scala 40 ``esperto``; not part of the package.

Run from the repository root (``python -m research.ai_learn ...``, see ``research/README.md``).
They use only public names of ``engine.ai.scala40`` and its parts (``scala40_discard``,
``scala40_reading``).
"""
