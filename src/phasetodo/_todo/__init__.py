"""The reference's current ``todo`` tool: one op per call (private; see :mod:`phasetodo.todo`)."""
