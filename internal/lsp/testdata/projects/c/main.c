#include <stdio.h>

#include "shapes.h"

int main(void)
{
	struct square sq = new_square(3);
	struct square big = new_square(10);
	printf("%g\n", square_area(&sq) + square_area(&big));
	return 0;
}
