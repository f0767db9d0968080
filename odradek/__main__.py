"""``python -m odradek`` runs the command line."""

from odradek.cli.entry import main

raise SystemExit(main())
