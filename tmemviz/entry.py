"""Family packages that answer when called: ``tmemviz.cp(...)`` is the API function ``cp``.

A family's folder and its API function share a name (``tmemviz/cp/`` and ``tmemviz.cp(...)``).
Python binds a subpackage to its parent's attribute once it is imported, so after any
``import tmemviz.cp.layout`` the name ``tmemviz.cp`` is the package, whatever ``tmemviz``
defined. Rather than rename the folders, each such package makes itself callable: calling it
calls the function of the same name in :mod:`tmemviz.api`, looked up when called (the API
imports the families, so the families cannot import the API when they load).
"""

from __future__ import annotations

import sys
import types
from typing import Any


class Family(types.ModuleType):
    """A family package that is also its API function."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = self.__name__.rsplit(".", 1)[1]
        api = sys.modules.get("tmemviz.api") or __import__("tmemviz.api", fromlist=["api"])
        return getattr(api, name)(*args, **kwargs)


def answer_when_called(module_name: str) -> None:
    """Make the package ``module_name`` (``tmemviz.cp``) callable as ``tmemviz.api.cp``."""
    sys.modules[module_name].__class__ = Family
