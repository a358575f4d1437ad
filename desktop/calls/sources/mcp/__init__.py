"""The connectors Claude uses: MCP servers from mcp.json, started once the person approved
their exact command (`approved`), and their tools as a tool source (`source`)."""
