"""The questions the window asks the person: may Claude do this, approve this plan, download a browser."""
