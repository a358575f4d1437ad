"""What a browser action really affects, where it lands, how risky that is, what an approval
covered, and what its target is by meaning (for routines)."""
