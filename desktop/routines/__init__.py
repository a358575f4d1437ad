"""Routines: a finished chat's task kept as data, and done again without the model, through
the same gate, healing only the step that no longer matches."""

# The action of the approval a schedule asks for ("Run NAME on schedule, within …"): the window
# tells its sheet by it before the routines' modules are in.
SCHEDULE_ACTION = "schedule"
