"""The screen backends: X11 and macOS input and capture, behind one small interface."""
