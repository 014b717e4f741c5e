package main

import "example.com/fixture/shapes"

// Total returns the sum of the areas of all the shapes.
func Total(all []shapes.Shape) float64 {
	sum := 0.0
	for _, s := range all {
		sum += s.Area()
	}
	return sum
}
