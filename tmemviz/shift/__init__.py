"""tcgen05.shift: the implicit .31x256b shape, which lane each 32-byte element moves to, views, figures."""

from tmemviz.entry import answer_when_called

answer_when_called(__name__)  # tmemviz.shift(...) is tmemviz.api.shift(...)
