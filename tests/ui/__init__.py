"""GUI tests: offscreen Qt through pytest-qt, the real AsyncAnthropic client, the scripted server."""
