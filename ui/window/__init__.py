"""The window's chrome: the main window, toolbar, menus, sidebar, composer, tray, the approval
and plan sheets, the plan chip, and the quick entry (the floating composer the system-wide
shortcut opens)."""
