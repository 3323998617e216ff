"""Tavolo's Telegram bot: translates between Telegram and the engines (issue: the bot)."""
