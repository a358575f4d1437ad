"""The bundled app's entry point: the same `main()` as the `deskhand` command and `python -m desktop`."""

import sys

from desktop.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
