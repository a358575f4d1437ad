"""The machine around the app: paths, the key, settings, the store, notifications, the doctor, browser and Mac setup."""
