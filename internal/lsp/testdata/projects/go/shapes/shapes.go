// Package shapes has one interface and one implementation of it.
package shapes

// Shape is anything that has an area.
type Shape interface {
	// Area returns the shape's area.
	Area() float64
}

// Square is a square whose side is Side.
type Square struct {
	Side float64
}

// Area returns the square's area, Side times Side.
func (s Square) Area() float64 {
	return s.Side * s.Side
}

// NewSquare returns a square of the given side.
func NewSquare(side float64) Square {
	return Square{Side: side}
}
