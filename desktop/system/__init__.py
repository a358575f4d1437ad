"""The machine around the app: paths and own places, the key, settings (signed permissions), the store, notifications, the doctor, browser and Mac setup."""
