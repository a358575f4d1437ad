"""The call pipeline: the tool-source contract (`contract`), one call behind the gate (`gated`),
a chat reply's calls (`runner`), the gate, permissions (pure decisions), approvals, plans, the
toolbox, the sources, and the guard of Deskhand's own places (`own_paths`, `own_guard`)."""
