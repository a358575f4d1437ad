"""The browser's network: the egress proxy and its one check, per-tab guards, the URL policy, grants and refusals."""
