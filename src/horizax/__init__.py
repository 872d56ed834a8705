"""horizax: JAX-native RL environments with exact episode boundaries.

Importing horizax has no side effects: no environment variables, precision flags, file loads
or registrations happen until you call `make` or `registered_ids`.
"""

from horizax.core.registry import make, registered_ids

__version__ = "0.1.0"

__all__ = ["__version__", "make", "registered_ids"]
