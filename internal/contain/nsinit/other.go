//go:build !linux

package nsinit
