"""Scripted opponents: glideslope guidance, a phased bandit, a lead pursuer, an evader and a
Sun-line blocker.

Every policy is a frozen dataclass called as ``policy(policy_state, agent_view, key, t) ->
(command, next_policy_state)`` with the side's flat observation (or a belief with ``mean``)
as ``agent_view``. They are pure and branch-free on traced values, so they run under
``jax.jit``, ``jax.vmap`` and ``lax.scan``; bad knobs are rejected when the policy is built.
"""

from __future__ import annotations

from horizax.orbital.policies.heuristic.evader import OrthogonalEvader
from horizax.orbital.policies.heuristic.glideslope import GlideslopeIntercept, GlideslopeToLady
from horizax.orbital.policies.heuristic.lead_intercept import LeadInterceptPursuer
from horizax.orbital.policies.heuristic.phased_bandit import PhasedBandit, PhasedBanditState
from horizax.orbital.policies.heuristic.sun_tracker import SunTrackerBlocker

__all__ = [
    "GlideslopeIntercept",
    "GlideslopeToLady",
    "LeadInterceptPursuer",
    "OrthogonalEvader",
    "PhasedBandit",
    "PhasedBanditState",
    "SunTrackerBlocker",
]
