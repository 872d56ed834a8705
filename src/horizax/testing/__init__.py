"""Checks shipped for users: run `check_env(env)` on any environment you build."""

from horizax.testing.conformance import check_env

__all__ = ["check_env"]
