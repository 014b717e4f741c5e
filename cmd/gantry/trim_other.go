//go:build !linux

package main

func releaseInitPages() {}
