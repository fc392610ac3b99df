"""Block-scaled MMA scale factors: shared memory -> tcgen05.cp -> TMEM -> the SF ID each MMA reads."""

from tmemviz.entry import answer_when_called

answer_when_called(__name__)  # tmemviz.scales(...) is tmemviz.api.scales(...)
