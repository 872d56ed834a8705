"""One module per MiniGrid family (layouts and ids). Each family module defines
``ENVIRONMENTS`` (id -> factory) and ``ALIASES`` (alias -> id); `horizax.grid.registry` lists
them explicitly."""
