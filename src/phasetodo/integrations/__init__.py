"""Ways to hand ``todo_write`` to an agent: provider specs, MCP, frameworks, whole-list tools.

Every module here is imported on its own and only pulls in its framework when
used, so ``import phasetodo`` never needs the optional extras.
"""
