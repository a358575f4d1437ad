"""The connectors Claude uses: MCP servers from mcp.json, started once the person approved
their exact command (`approved`), and their tools as a tool source (`source`). Remote ones may
sign in (OAuth): their tokens are kept apart (`sign_ins`), and `remote` adds them, signs them
in and out, and gives their rows."""
