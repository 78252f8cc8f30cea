//go:build !unix

package datadir

// freeBytes is unknown off Unix.
func freeBytes(string) (uint64, bool) { return 0, false }
