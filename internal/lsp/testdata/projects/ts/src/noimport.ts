/** Returns the area of a square of side 2; newSquare is not imported. */
export function make(): number {
  return newSquare(2).area();
}
