"""The person's Mac apps: the osascript engine and its constant JXA scripts, the action tables (macos, apps, tabs), scripting dictionaries, and what each change left behind, read back by id."""
