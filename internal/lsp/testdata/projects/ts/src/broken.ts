/** One type error. */
export const count: number = "three";
