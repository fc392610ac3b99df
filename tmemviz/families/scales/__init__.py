"""Block-scaled MMA scale factors: shared memory -> tcgen05.cp -> TMEM -> the SF ID each MMA reads."""
