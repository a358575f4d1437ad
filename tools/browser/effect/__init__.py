"""What a browser action really affects, where it lands, how risky that is, and what an approval covered."""
