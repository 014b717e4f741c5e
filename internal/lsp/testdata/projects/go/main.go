// Command fixture is the Go project of the language-server tests.
package main

import (
	"fmt"

	"example.com/fixture/shapes"
)

func main() {
	sq := shapes.NewSquare(3)
	big := shapes.NewSquare(10)
	fmt.Println(Total([]shapes.Shape{sq, big}))
	fmt.Println(Total(nil))
}
