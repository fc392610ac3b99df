"""Views of the mapper's cells: Rich tables, JSON/CSV, sentences (and, lazily, figures)."""
