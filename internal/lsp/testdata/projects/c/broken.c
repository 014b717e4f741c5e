/* One type error. */
#include "shapes.h"

double broken_radius(void)
{
	struct square s = {1};
	return s.radius;
}
