"""The window's chrome: the main window, toolbar, menus, sidebar, composer, tray, the approval and plan sheets and the plan chip."""
