"""The tcgen05.mma data-path layouts A-G (PTX ISA 9.7.16.10.5) and how each warp reads them."""
