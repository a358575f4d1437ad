"""The bundled app's entry point: the same `main()` as the `deskhand` command and `python -m desktop`."""

import multiprocessing
import sys

from desktop.__main__ import main

if __name__ == "__main__":
    # The model stream process is this same executable, started by multiprocessing.
    multiprocessing.freeze_support()
    sys.exit(main())
