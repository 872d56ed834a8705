"""Policies that drive a side."""

from horizax.orbital.policies.zero import ZeroControl

__all__ = ["ZeroControl"]
