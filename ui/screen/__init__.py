"""What Claude does on the screen, drawn over it: the overlay with its Stop button."""
