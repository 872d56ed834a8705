"""One module per MiniGrid family. Each defines ``ENVIRONMENTS`` (id -> factory) and
``ALIASES`` (alias -> id); the registry discovers them lazily on first use."""
