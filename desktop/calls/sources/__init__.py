"""The tool sources: function tools, the SDK toolsets (browser, screen) and their app-side hooks."""
