"""The PTX reader shared by every family: statements as compilers print them (:mod:`.line`)."""
