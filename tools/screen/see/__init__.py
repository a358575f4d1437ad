"""The `screen` tool: see elements with ids, keep snapshots, pick targets, act on an id."""
