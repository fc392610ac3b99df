"""tcgen05.shift: the implicit .31x256b shape, which lane each 32-byte element moves to, views, figures."""
