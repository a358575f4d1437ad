"""The command line beyond the window: `deskhand ui` (its socket, client and standalone runner),
`deskhand apps`, `deskhand doctor`, `deskhand routine` (saving on its own, running in the app,
starting the app when none runs), the options every command shares and the JSON answers, error
codes and exit codes of `--json` (schemas in `schemas/` at the top of the repository)."""
