"""Rendering: engine views to Telegram texts (HTML) and inline keyboards. No rules here."""
