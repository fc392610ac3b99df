"""tcgen05.shift: the implicit .31x256b shape, which lanes' 32-byte elements move down, spellings, views, figures."""

from tmemviz.entry import answer_when_called

answer_when_called(__name__)  # tmemviz.shift(...) is tmemviz.api.shift(...)
