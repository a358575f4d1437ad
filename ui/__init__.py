"""Qt widgets: they render the agent's events and collect the person's answers."""
