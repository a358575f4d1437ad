"""The browser the model drives (Playwright); for now, finding which browser to use."""
