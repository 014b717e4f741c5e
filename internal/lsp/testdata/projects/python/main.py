"""The entry point of the Python fixture."""

from shapes import Shape, new_square
from total import total

sq = new_square(3)
big = new_square(10)
everything: list[Shape] = [sq, big]
print(total(everything))
print(total([]))
