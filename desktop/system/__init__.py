"""The machine around the app, at the bottom of `desktop/`: paths, the key, settings (signed
permissions) and the settings in force, the store, notifications, launcher entry, browser and Mac
setup, and `heavy` (what loads after the first paint). It imports nothing else of `desktop/`."""
