"""The person's settings: the model and its file (`model`), the signed permission part and its
key (`signed`), the permission settings (`permissions`), the quick entry's shortcut
(`shortcut`), and the settings in force with every way to change them (`live`)."""
