"""Routines in the window: the sidebar's Routines section (Run, its parameters' form, the menu),
running one into its own chat "▶ NAME", the quick entry's offer of a routine by name, and the
bar that offers a healed run's steps as the routine's update. What a routine is and how it runs
is `desktop/routines`; this package only shows it and asks."""
