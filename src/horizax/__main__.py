"""``python -m horizax`` runs the ``horizax`` command."""

import sys

from horizax.cli import main

# Guarded so that importing the module (as an import-hygiene walk does) runs nothing.
if __name__ == "__main__":
    sys.exit(main())
