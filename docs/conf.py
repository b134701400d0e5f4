"""Sphinx configuration: MyST pages in docs/, the API reference from the docstrings.

Build (warnings are errors, as in .ci/run):
    python -m pip install -e '.[docs]'
    python -m sphinx -W --keep-going -b html docs docs/_build/html
"""

from __future__ import annotations

import sys
from pathlib import Path

# Hypothesis loads phasetodo.testing through its entry point when it starts, so it is imported
# first: importing phasetodo.testing before Hypothesis would start Hypothesis half-way through.
import hypothesis  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

import phasetodo  # noqa: E402

project = "phasetodo"
author = "phasetodo developers"
copyright = "phasetodo developers"
release = phasetodo.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "phasetodo_api",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_preserve_defaults = False
autodoc_default_options: dict[str, object] = {}

html_theme = "furo"
html_title = f"phasetodo {release}"
html_static_path: list[str] = []
