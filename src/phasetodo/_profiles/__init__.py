"""The private profiles: how a call is parsed, applied and reported (parity, strict)."""
