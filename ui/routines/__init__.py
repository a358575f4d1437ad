"""Routines in the window: the sidebar's Routines section (Run, its parameters' form, the menu),
running one into its own chat "▶ NAME", the quick entry's offer of a routine by name, the
bar that offers a healed run's steps as the routine's update, the routine's page (its schedule
picker, what a missed run does, its next run and its runs), and scheduled runs that wait for
the person (the sidebar's mark, the bar over the chat). What a routine is and how it runs
is `desktop/routines`; this package only shows it and asks."""
