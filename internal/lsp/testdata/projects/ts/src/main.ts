import { newSquare, type Shape } from "./shapes";
import { total } from "./total";

const sq = newSquare(3);
const big = newSquare(10);
const everything: Shape[] = [sq, big];
console.log(total(everything));
console.log(total([]));
