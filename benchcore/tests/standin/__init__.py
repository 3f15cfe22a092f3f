"""The scripted stand-in agent for end-to-end tests (see agent.py)."""
