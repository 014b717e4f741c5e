"""Shapes: one abstract base class and one implementation of it."""

from abc import ABC, abstractmethod


class Shape(ABC):
    """Anything that has an area."""

    @abstractmethod
    def area(self) -> float:
        """Return the shape's area."""


class Square(Shape):
    """A square whose side is side."""

    def __init__(self, side: float) -> None:
        self.side = side

    def area(self) -> float:
        """Return the square's area, side times side."""
        return self.side * self.side


def new_square(side: float) -> Square:
    """Return a square of the given side."""
    return Square(side)
