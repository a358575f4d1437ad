"""The call pipeline: the tool-source contract, run_gated, the chat's runner, the gate, permissions, approvals, plans and the toolbox."""
