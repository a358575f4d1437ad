"""The command line beyond the window: `deskhand ui` (its socket, client and standalone runner) and `deskhand apps`."""
