"""tcgen05.cp: shape files, where rows land, decompression, spellings, views and figures."""
