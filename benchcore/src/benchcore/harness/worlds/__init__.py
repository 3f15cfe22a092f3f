"""The temp worlds an arm works in, and what is run inside them.

- ``temp``        the tagged temp root, one fresh world per cell, a case's setup
- ``assertions``  a case's hard assertions, run against the new arm's output in its world
- ``samples``     a case's samples checked against its assertions (``benchcore validate``)
"""
