"""Shared test helpers (scripted Anthropic model server, ...)."""
