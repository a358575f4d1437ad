"""The model's stream: the API client, read in a process of its own so the window stays free, and its errors in words."""
