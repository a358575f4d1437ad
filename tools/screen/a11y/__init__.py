"""Other apps' elements through the platform's accessibility API: AT-SPI on Linux, AX on macOS,
and what an action changed in the window it acted on (`effect.py`)."""
