"""What a browser action really did: the page settled, compared before and after, as `Effect:` lines."""
