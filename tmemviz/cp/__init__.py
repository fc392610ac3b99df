"""tcgen05.cp: shape files, where rows land, decompression, spellings, views and figures."""

from tmemviz.entry import answer_when_called

answer_when_called(__name__)  # tmemviz.cp(...) is tmemviz.api.cp(...)
