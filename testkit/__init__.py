"""What the tests and the benchmarks share, run from the checkout (not installed): the fake
Telegram Bot API (:mod:`testkit.fake_telegram`, as strict as Telegram), the bot harness,
the players and positions the tests and ``python -m bench`` set up, and the processes they
start (a bot, a store writer, a store probe)."""
