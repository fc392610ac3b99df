"""Read whole PTX modules and explain every tcgen05 instruction (``tmemviz explain``)."""

from tmemviz.entry import answer_when_called

answer_when_called(__name__)  # tmemviz.explain(...) is tmemviz.api.explain(...)
