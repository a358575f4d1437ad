"""What a browser action really affects, how risky that is, and what an approval covered."""
