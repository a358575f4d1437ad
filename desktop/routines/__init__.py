"""Routines: a finished chat's task kept as data, and done again without the model, through
the same gate, healing only the step that no longer matches."""
