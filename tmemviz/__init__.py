"""tmemviz: exact data layouts of NVIDIA Blackwell Tensor Memory instructions.

Data flows one way: ``layouts/<family>/*.yaml`` -> a family's ``shapes``
(load and validate) -> its ``layout`` (pure functions) -> its ``views``,
``answers`` and ``figures`` (plain data) -> :mod:`tmemviz.draw` (Rich, JSON/CSV,
matplotlib) -> :mod:`tmemviz.cli` (the ``tmemviz`` command). Families:
:mod:`tmemviz.ldst` (tcgen05.ld/st) and :mod:`tmemviz.cp` (tcgen05.cp).
"""

__version__ = "0.1.0"
