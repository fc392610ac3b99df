"""tmemviz: exact data layouts of NVIDIA Blackwell Tensor Memory instructions.

Data flows one way: ``layouts/*.yaml`` -> :mod:`tmemviz.catalog` (load and
validate) -> :mod:`tmemviz.mapper` (pure layout functions) -> :mod:`tmemviz.render`
(tables, exports, figures) -> :mod:`tmemviz.cli` (the ``tmemviz`` command).
"""

__version__ = "0.1.0"
