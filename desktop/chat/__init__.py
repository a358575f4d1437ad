"""The conversation: sending, one turn of the agent, the request it sends, the reply's tool calls, its events, replay, versions, attachments, export."""
