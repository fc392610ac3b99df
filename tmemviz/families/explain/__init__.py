"""Read whole PTX modules and explain every tcgen05 instruction (``tmemviz explain``)."""
