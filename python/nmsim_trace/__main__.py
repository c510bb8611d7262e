"""`python3 -m nmsim_trace ...` is the same as the `nmsim-trace` command."""

import sys

from .cli import main

sys.exit(main())
