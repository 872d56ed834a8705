"""Adapters exposing horizax environments through other RL APIs (gymnax, gymnasium, dm_env, ...).

Each adapter lives in its own module and imports its third-party library only when that module
is imported, so `import horizax` never needs the optional extras.
"""
