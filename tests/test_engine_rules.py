"""Rules of the engine, the summary and the Markdown reader, one behaviour per test."""

from __future__ import annotations
