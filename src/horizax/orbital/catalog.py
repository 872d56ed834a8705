"""Imports every bundled component module, so each has registered under its key.

`horizax.orbital` imports this module, hence any import of the package or one of its modules
fills the registry before `ScenarioConfig.from_json` (or anything else) looks a key up.
"""

from __future__ import annotations

from horizax.orbital import games as _games  # noqa: F401
from horizax.orbital.observations import comms_leak as _comms_leak  # noqa: F401
from horizax.orbital.observations import reference as _observations  # noqa: F401
from horizax.orbital.policies import heuristic as _heuristic  # noqa: F401
from horizax.orbital.policies import zero as _zero  # noqa: F401
from horizax.orbital.rewards import lbg_with_comms as _lbg_with_comms  # noqa: F401
from horizax.orbital.rewards import reference as _rewards  # noqa: F401
from horizax.orbital.sampling import mass as _mass  # noqa: F401
from horizax.orbital.sampling import side as _side  # noqa: F401
from horizax.orbital.sampling import validators as _validators  # noqa: F401
from horizax.orbital.termination import lbg_events as _lbg_events  # noqa: F401
from horizax.orbital.termination import max_distance as _max_distance  # noqa: F401
from horizax.orbital.termination import reference as _reference  # noqa: F401
