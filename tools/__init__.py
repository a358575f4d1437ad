"""Everything the model can call. Never imports Qt, `desktop` or `ui`."""
