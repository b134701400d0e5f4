"""``phasetodo-api``: one API page per public module, every name of its ``__all__`` on it.

``.. phasetodo-api:: phasetodo.profiles`` writes the module's docstring, then each name of the
module's ``__all__`` in order: a class or function through autodoc, a constant as a ``py:data``
with the ``#:`` comment of the module that defines it. A class or function that an earlier
module of :data:`MODULES` already documents (the same object under the same name) gets a link
there instead of a second description. A page for a module not in :data:`MODULES`, or a module
of :data:`MODULES` that no page names, is a warning (so an error under ``-W``).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import types
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.pycode import ModuleAnalyzer
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from phasetodo import _public

logger = logging.getLogger(__name__)

#: The public modules (in the order that decides where a shared name is described) and the
#: ones documented as guides instead: the package's own list, read by its face and its tests too.
MODULES, APPS = _public.MODULES, _public.APPS

#: Packages documented as one page: their submodules are the implementation, and the names
#: meant for callers are the ones the package's ``__all__`` re-exports.
WHOLE = ("phasetodo.web",)

#: Where the definitions live: searched for the ``#:`` comment of a constant.
_SOURCES = (
    "phasetodo._version",
    "phasetodo._core.limits",
    "phasetodo._core.model",
    "phasetodo._core.schema",
    "phasetodo._core.ops",
    "phasetodo._profiles.builtin",
    "phasetodo._profiles.parity",
    "phasetodo._profiles.strict",
    "phasetodo._profiles.team",
    "phasetodo._views.markdown",
    "phasetodo.stores._base",
    "phasetodo._planmerge",
)


def _exports(modname: str) -> list[str]:
    module = importlib.import_module(modname)
    return list(getattr(module, "__all__", ()))


def _owner_of(modname: str, name: str, obj: Any) -> str:
    """The first module of MODULES that exports ``obj`` as ``name``."""
    if not (inspect.isclass(obj) or inspect.isfunction(obj) or inspect.isbuiltin(obj)):
        return modname
    for candidate in MODULES:
        module = importlib.import_module(candidate)
        if name in getattr(module, "__all__", ()) and getattr(module, name, None) is obj:
            return candidate
    return modname


def _attr_doc(modname: str, name: str) -> list[str]:
    """The ``#:`` comment of ``name`` in its module or one of the defining modules."""
    for source in (modname, *_SOURCES):
        try:
            docs = ModuleAnalyzer.for_module(source).find_attr_docs()
        except Exception:
            continue
        lines = docs.get(("", name))
        if lines:
            return [line for line in lines if line.strip()]
    return []


def _is_alias(obj: Any) -> bool:
    return hasattr(obj, "__origin__") or type(obj).__module__ in {"typing", "types"}


def _value(obj: Any) -> str | None:
    if isinstance(obj, str | int | float | bool | tuple) and not isinstance(obj, type):
        text = repr(obj)
        if len(text) <= 100 and "\n" not in text:
            return text
    return None


class PhasetodoApi(SphinxDirective):
    required_arguments = 1
    has_content = False
    #: ``:no-module-docstring:`` declares the module without its docstring, for a module
    #: whose docstring is not valid reStructuredText yet (its page says where the guide is).
    option_spec: ClassVar[dict[str, Any]] = {"no-module-docstring": directives.flag}

    def run(self) -> list[nodes.Node]:
        modname = self.arguments[0]
        if modname not in MODULES:
            logger.warning("phasetodo-api: %s is not in MODULES", modname, location=self.get_location())
        _pages(self.env)[self.env.docname] = modname
        module = importlib.import_module(modname)
        if "no-module-docstring" in self.options:
            rst = [f".. py:module:: {modname}", "", f".. currentmodule:: {modname}", ""]
        else:
            rst = [f".. automodule:: {modname}", ""]
        links: list[str] = []
        for name in _exports(modname):
            if not hasattr(module, name):
                logger.warning("phasetodo-api: %s.__all__ names %s, which is missing", modname, name)
                continue
            obj = getattr(module, name)
            if isinstance(obj, types.ModuleType):
                continue
            owner = _owner_of(modname, name, obj)
            if owner != modname:
                role = "class" if inspect.isclass(obj) else "func"
                links.append(f"* :py:{role}:`{name} <{owner}.{name}>` (described in :py:mod:`{owner}`)")
            elif inspect.isclass(obj):
                rst += [f".. autoclass:: {modname}.{name}", "   :members:", "   :show-inheritance:", ""]
            elif callable(obj) and not hasattr(obj, "__origin__"):
                rst += [f".. autofunction:: {modname}.{name}", ""]
            else:
                rst += [f".. py:data:: {name}"]
                value = _value(obj)
                if value is not None:
                    rst += [f"   :value: {value}"]
                rst += [""]
                doc = _attr_doc(modname, name)
                if not doc:
                    doc = [f"A type: ``{obj!r}``." if _is_alias(obj) else f"A ``{type(obj).__name__}``."]
                rst += [f"   {line}" for line in doc]
                rst += [""]
        if links:
            rst += ["", f"Also exported by ``{modname}``:", "", *links, ""]
        # The page is MyST: its parser reads the generated reStructuredText through eval-rst.
        fence = "````"
        text = [f"{fence}{{eval-rst}}", *rst, fence]
        container = nodes.section()
        container.document = self.state.document
        self.state.nested_parse(StringList(text, source=f"<phasetodo-api {modname}>"), 0, container)
        return list(container.children)


def _pages(env: Any) -> dict[str, str]:
    """Which page documents which module, kept in the environment across incremental builds."""
    if not hasattr(env, "phasetodo_api_pages"):
        env.phasetodo_api_pages = {}
    pages: dict[str, str] = env.phasetodo_api_pages
    return pages


def _purge(app: Sphinx, env: Any, docname: str) -> None:
    _pages(env).pop(docname, None)


def _public_modules() -> list[str]:
    """Every importable module of the package whose dotted name has no ``_`` part."""
    import phasetodo

    found = ["phasetodo"]
    for info in pkgutil.walk_packages(phasetodo.__path__, "phasetodo."):
        parts = info.name.split(".")
        if any(part.startswith("_") for part in parts) or any(
            info.name == app or info.name.startswith(app + ".") for app in APPS
        ) or any(info.name.startswith(package + ".") for package in WHOLE):
            continue
        found.append(info.name)
    return found


def _check_coverage(app: Sphinx, env: Any) -> None:
    documented = set(_pages(env).values())
    for name in MODULES:
        if name not in documented:
            logger.warning("phasetodo-api: no API page documents %s", name)
    for name in _public_modules():
        if name not in MODULES:
            logger.warning("phasetodo-api: public module %s is in neither MODULES nor APPS", name)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("phasetodo-api", PhasetodoApi)
    app.connect("env-purge-doc", _purge)
    app.connect("env-check-consistency", _check_coverage)
    return {"parallel_read_safe": False, "parallel_write_safe": True}
