// Package noimport uses strings.ToUpper without importing strings.
package noimport

// Shout returns s in upper case.
func Shout(s string) string {
	return strings.ToUpper(s)
}
