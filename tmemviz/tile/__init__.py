"""A whole accumulator tile D (M x N) loaded from Tensor Memory by one or two warpgroups of tcgen05.ld."""

from tmemviz.entry import answer_when_called

answer_when_called(__name__)  # tmemviz.tile(...) is tmemviz.api.tile(...)
