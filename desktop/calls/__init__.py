"""The call pipeline: the tool-source contract, run_gated, the chat's runner, the gate, permissions, approvals, the toolbox, and the guard of Deskhand's own places."""
