"""macOS accessibility: other apps' elements through the Accessibility API, its answers as the shared model, and its tables."""
