//go:build unix

package datadir

import "syscall"

// freeBytes returns the bytes available to this user on dir's file system.
func freeBytes(dir string) (uint64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return st.Bavail * uint64(st.Bsize), true
}
