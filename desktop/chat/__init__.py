"""The conversation: sending, one turn of the agent, its events, replay, versions, attachments, export."""
