"""The kernel sources in sources/ are compiler input, run only in scratch environments that hold the
compilers (benchmarks/corpus.py); pytest must not import them while collecting doctests."""

collect_ignore_glob = ["sources/*.py"]
