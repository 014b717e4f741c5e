"""The sum of the areas of shapes."""

from shapes import Shape


def total(all_shapes: list[Shape]) -> float:
    """Return the sum of the areas of all the shapes."""
    return sum(s.area() for s in all_shapes)
