"""The bench's usage error (its own module, so the bench's modules import it without
importing the package that runs them: no import cycle)."""


class UsageError(Exception):
    """A bad argument: reported as one line, exit code 2."""
