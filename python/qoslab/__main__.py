"""`python -m qoslab`: the command-line interface."""

from qoslab.cli import main

raise SystemExit(main())
