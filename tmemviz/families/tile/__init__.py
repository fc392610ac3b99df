"""A whole accumulator tile D (M x N) loaded from Tensor Memory by one or two warpgroups of tcgen05.ld."""
