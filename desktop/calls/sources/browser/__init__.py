"""The browser as a tool source: Settings → Browser mapped onto the driver, and the person taking over its controls."""
