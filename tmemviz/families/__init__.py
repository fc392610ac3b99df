"""One folder per instruction family: shape-file loader, pure layout, spelling, views, figures, document.

The families are reached through :mod:`tmemviz.api` (``tmemviz.cp(...)``); their folders live here, apart
from the API's names, so importing a family never rebinds an API function.
"""
