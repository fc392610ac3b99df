"""tcgen05.mma: the instruction descriptor and the spelling of tcgen05.mma lines."""
