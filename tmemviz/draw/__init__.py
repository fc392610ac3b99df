"""Presentation that knows no instruction family.

Families describe what to show as plain data (:mod:`tmemviz.draw.spec` for
figures, :mod:`tmemviz.draw.table` for terminal tables, dicts for records);
this package turns that data into Rich renderables (:mod:`~tmemviz.draw.terminal`),
matplotlib figures (:mod:`~tmemviz.draw.figure` and its :mod:`~tmemviz.draw.figtext`, the only
matplotlib code) and
JSON/CSV text (:mod:`~tmemviz.draw.records`).
"""
