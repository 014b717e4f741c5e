/* Shapes: a function declared here and defined in shapes.c. */
#ifndef SHAPES_H
#define SHAPES_H

/** A square whose side is side. */
struct square {
	double side;
};

/** Returns the area of the square s, side times side. */
double square_area(const struct square *s);

/** Returns a square of the given side. */
struct square new_square(double side);

#endif
