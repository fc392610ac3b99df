"""Shared-memory canonical layouts of tcgen05 MMA operands and their 64-bit descriptors (PTX 9.7.16.3).

Pure core: :mod:`.shapes` reads the swizzle modes, :mod:`.layout` builds and checks layouts,
:mod:`.descriptor` encodes and decodes descriptors. No printing, no CLI.
"""
