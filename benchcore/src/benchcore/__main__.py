"""`python -m benchcore`: the same command line as the `benchcore` script."""

from .cli import main

raise SystemExit(main())
