"""The questions the window asks the person: may Claude do this, approve this plan, download a
browser, save this chat as a routine, keep a routine Deskhand did not write, run a routine on
schedule, sign in to a connector."""
