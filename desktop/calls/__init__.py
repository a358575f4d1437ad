"""The call pipeline: the tool-source contract, run_gated, the chat's runner, the gate, permissions, approvals and the toolbox."""
