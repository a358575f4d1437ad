"""Every tool source, side by side: function tools, the SDK toolsets (browser, screen) with their
app-side hooks, the MCP connectors, and the task plan (`update_plan` and the book that checks
calls against it)."""
