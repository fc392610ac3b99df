"""One thread -> color rule shared by terminal tables and figures.

Eight light qualitative colors cycled by thread id, in the spirit of CuTe's
8-color ``print_latex`` cycle: neighbouring threads differ, and black text stays
readable on every color.
"""

THREAD_COLORS = (
    "#a6cee3",
    "#b2df8a",
    "#fb9a99",
    "#fdbf6f",
    "#cab2d6",
    "#ffff99",
    "#8dd3c7",
    "#d9d9d9",
)


def thread_color(thread: int) -> str:
    """The hex fill color of ``thread``.

    >>> thread_color(0) == thread_color(8)
    True
    """
    return THREAD_COLORS[thread % len(THREAD_COLORS)]
