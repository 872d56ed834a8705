"""Vehicle state components."""
