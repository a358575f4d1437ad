"""The model's stream: the API client and requests, read in a process of its own so the window stays free."""
