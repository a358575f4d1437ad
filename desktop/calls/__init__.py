"""The call pipeline: the tool-source contract (`contract`), one call behind the gate (`gated`),
a chat reply's calls (`runner`), the gate, permissions (pure decisions), approvals, plans, the
toolbox and the sources."""
