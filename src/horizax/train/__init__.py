"""Training with exact episode boundaries.

`horizax.train.advantages` computes advantages and value targets that bootstrap from the
real last observation on a truncation and from nothing on a termination; it needs only JAX.
"""
