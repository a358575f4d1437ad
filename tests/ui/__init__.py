"""GUI tests: the main window, its thread and the Markdown view.

PySide6 6.12.0 on Python 3.11 hands back None (from void methods) and True (from
`Signal.emit`) without taking a reference, so their reference counts fall with every
such call until CPython aborts ("none_dealloc" / "bool_dealloc"), within one long reply.
Python 3.12+ made these objects immortal, and PySide6 6.11 is not affected. Until the
project pins around it, give them enough references that these tests cannot run out.
"""

import ctypes
import sys

import PySide6

if sys.version_info < (3, 12) and PySide6.__version__ == "6.12.0":
    for immortal in (None, True, False):
        ctypes.c_ssize_t.from_address(id(immortal)).value += 1 << 40
