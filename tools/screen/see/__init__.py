"""The `screen` tool: see elements with ids, keep snapshots, pick targets, act on an id, and
report each outcome as plain values for programs (`report.py`)."""
