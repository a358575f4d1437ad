"""The X11 backend: input through XTest and capture (`backend`), reading X events until a time
(`events`), and typing any character through a spare keycode (`keyboard`)."""
