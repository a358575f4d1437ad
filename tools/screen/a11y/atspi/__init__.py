"""Linux accessibility: other apps' elements over AT-SPI's D-Bus bus, its batched client, and its tables."""
