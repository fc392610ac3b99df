"""tcgen05.ld / tcgen05.st: shape files, the register layout, its spellings, views and figures."""
