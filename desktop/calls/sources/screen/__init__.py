"""The screen as a tool source: the computer toolset per chat, the `screen` tool's elements, and the hooks the window gives them."""
