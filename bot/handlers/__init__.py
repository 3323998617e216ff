"""Telegram handlers: one small function per user intention, registered in :mod:`bot.app`."""
