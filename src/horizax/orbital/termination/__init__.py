"""Terminations. Import them from their modules (``.reference``, ``.lbg_events``,
``.max_distance``), as orbitalgym's users do."""
