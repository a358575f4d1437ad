"""A simulation of macOS's JXA runtime and osascript under Node, for tests without a Mac."""
