"""``tmemviz check``: Tensor Memory bugs of whole kernels, found in their PTX before the GPU finds them."""
