"""The window's chrome: the main window, toolbar, menus, sidebar, composer, tray, the approval
and plan sheets, the plan chip, the quick entry (the floating composer the system-wide
shortcut opens), and staying up in the tray while routines are scheduled."""
