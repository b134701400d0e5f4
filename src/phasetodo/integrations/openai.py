"""The tool as an OpenAI function tool, plain or in strict mode.

Strict mode (structured outputs) wants every object closed and every property
required; an optional property is made nullable instead, so a strict payload
spells an absent field as ``null``. :func:`strip_nulls` undoes that before
validation, which is what ``TodoWriteTool.execute(..., nulls_are_absent=True)``
does. The builders live in the tool layer; this module re-exports them.
"""

from __future__ import annotations

from .._specs import OPENAI_STRICT_SCHEMA, Api, openai_tool, strict_schema, strip_nulls

__all__ = ["OPENAI_STRICT_SCHEMA", "Api", "openai_tool", "strict_schema", "strip_nulls"]
