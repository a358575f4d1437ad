"""Scheduled routines: when a routine runs (`times.py`), the person's one approval of its
schedule, kept signed (`book.py`), the scheduler that starts its runs (`scheduler.py`), and
what an unattended run does when a sheet would ask (`unattended.py`)."""
