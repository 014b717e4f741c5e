// Package broken has one type error.
package broken

// Count is a number given a string.
var Count int = "three"
