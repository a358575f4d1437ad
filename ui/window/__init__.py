"""The window's chrome: the main window, toolbar, menus, sidebar, composer, tray and the approval sheet."""
