"""What Claude does on the screen, drawn over it: the overlay (`overlay.py`) and the pill that
says who has the controls, with Take over, Resume / Hand back and Stop (`pill.py`)."""
