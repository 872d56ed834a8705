"""Rewards. Import them from their modules (``.reference``, ``.lbg_zero_sum``)."""
