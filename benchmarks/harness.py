"""The benchmark harness, now `horizax.bench.harness` (it also runs ``horizax bench``).

This name keeps the scripts' ``from harness import ...``; run them from a virtual environment
where horizax is installed (``pip install -e .``), as every peer venv here has it.
"""

from horizax.bench.harness import *  # noqa: F403
