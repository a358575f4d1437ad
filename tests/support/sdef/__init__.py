"""Scripting dictionaries for tests: synthetic app bundles, the Finder-like and Mail-like
dictionaries in `fixtures/`, and the standard suite they include."""
