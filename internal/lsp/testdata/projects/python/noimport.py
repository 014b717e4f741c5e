"""Uses new_square from shapes without importing it."""


def make() -> float:
    """Return the area of a square of side 2."""
    return new_square(2).area()
