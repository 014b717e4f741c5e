import type { Shape } from "./shapes";

/** Returns the sum of the areas of all the shapes. */
export function total(all: Shape[]): number {
  let sum = 0;
  for (const s of all) {
    sum += s.area();
  }
  return sum;
}
