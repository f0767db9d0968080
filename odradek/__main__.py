"""``python -m odradek`` runs the command line."""

from odradek.cli.main import main

raise SystemExit(main())
