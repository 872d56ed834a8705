"""``python -m horizax`` runs the ``horizax`` command."""

import sys

from horizax.cli import main

sys.exit(main())
