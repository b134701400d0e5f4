"""The tool as an Anthropic Messages API tool (built by ``TodoWriteTool.to_anthropic()``)."""

from __future__ import annotations

from .._specs import anthropic_strict_schema, anthropic_tool

__all__ = ["anthropic_strict_schema", "anthropic_tool"]
