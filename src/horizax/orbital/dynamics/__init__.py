"""Translational dynamics (closed-form HCW)."""

from horizax.orbital.dynamics.hcw import hcw_rt_step, hcw_rt_stm, hcw_rtn_step, hcw_rtn_stm

__all__ = ["hcw_rt_step", "hcw_rt_stm", "hcw_rtn_step", "hcw_rtn_stm"]
