"""benchcore: the mechanical half of a Claude Code skill benchmark."""

__version__ = "0.1.0"
