"""The one exception type the core raises; the CLI turns it into a message."""


class TmemvizError(ValueError):
    """Bad input or an impossible request, described in one sentence.

    The message is written for the user: it says what is wrong and what is
    allowed, so the command line can print it as is and exit with status 2.
    """
