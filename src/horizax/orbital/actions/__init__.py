"""Action components."""
