"""Other apps' elements through the platform's accessibility API: AT-SPI on Linux, AX on macOS."""
