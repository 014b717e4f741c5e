package main

// tokens estimates the tokens of n bytes of text, at four bytes a token: the estimate
// /context uses (no tokenizer is shipped).
func tokens(n int) int { return (n + 3) / 4 }
