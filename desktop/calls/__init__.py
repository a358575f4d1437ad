"""The call pipeline: the tool-source contract (`contract`), one call behind the gate (`gated`),
the gate, permissions (pure decisions), approvals, plans, the audit's export, the toolbox, the
sources, and the guard of Deskhand's own places (`own_places`)."""
