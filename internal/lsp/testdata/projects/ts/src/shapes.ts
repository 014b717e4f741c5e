/** Anything that has an area. */
export interface Shape {
  /** Returns the shape's area. */
  area(): number;
}

/** A square whose side is side. */
export class Square implements Shape {
  constructor(public side: number) {}

  /** Returns the square's area, side times side. */
  area(): number {
    return this.side * this.side;
  }
}

/** Returns a square of the given side. */
export function newSquare(side: number): Square {
  return new Square(side);
}
