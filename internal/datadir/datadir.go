// Package datadir checks that mi's data directory can hold what mi writes
// there (broker logs, ledger, history files), and turns the storage
// failures of the libraries writing in it — SQLite's "unable to open
// database file (14)", the embedded broker's UNKNOWN_SERVER_ERROR — into
// errors that name the directory and the cause.
package datadir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// MinFree is the free space below which a directory counts as full: less
// than one broker segment write or one SQLite page cache flush needs.
const MinFree = 1 << 20

// ErrStorage is wrapped by every error of Check and Diagnose that names a
// storage cause.
var ErrStorage = errors.New("data directory unusable")

// Check makes sure dir exists (creating it and its parents) and that a file
// can be created, written, synced and removed in it, and that it has at
// least MinFree bytes free. The error names dir, the cause (permission
// denied, read-only file system, no space left, quota) and what to do.
func Check(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return explain(dir, err)
	}
	f, err := os.CreateTemp(dir, ".mi-write-check-*")
	if err != nil {
		return explain(dir, err)
	}
	name := f.Name()
	_, err = f.Write(make([]byte, 4096))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if rerr := os.Remove(name); err == nil {
		err = rerr
	}
	if err != nil {
		return explain(dir, err)
	}
	if free, ok := freeBytes(dir); ok && free < MinFree {
		return explain(dir, syscall.ENOSPC)
	}
	return nil
}

// Diagnose explains err, the failure of something that writes under dir:
// if dir now fails Check (full, read-only, not writable), it returns an
// error naming dir and the cause that wraps err; otherwise err itself. A
// nil err stays nil.
func Diagnose(dir string, err error) error {
	if err == nil || errors.Is(err, ErrStorage) {
		return err
	}
	if cerr := Check(dir); cerr != nil {
		return fmt.Errorf("%w (what failed: %w)", cerr, err)
	}
	return err
}

// explain names the cause of a storage error under dir.
func explain(dir string, err error) error {
	abs, aerr := filepath.Abs(dir)
	if aerr != nil {
		abs = dir
	}
	cause, fix := "", "choose another --data-dir"
	var errno syscall.Errno
	switch {
	case errors.As(err, &errno) && errno == syscall.ENOSPC:
		cause, fix = "no space left on device (ENOSPC)", "free space on that file system or choose another --data-dir"
	case errors.As(err, &errno) && errno == syscall.EDQUOT:
		cause, fix = "disk quota exceeded (EDQUOT)", "raise the quota or choose another --data-dir"
	case errors.As(err, &errno) && errno == syscall.EROFS:
		cause, fix = "read-only file system (EROFS)", "mount it read-write or choose another --data-dir"
	case errors.As(err, &errno) && (errno == syscall.EACCES || errno == syscall.EPERM):
		cause = "permission denied (" + errnoName(errno) + ")"
		fix = "let user " + strconv.Itoa(os.Getuid()) + " write there (owner or mode) or choose another --data-dir"
	case errors.As(err, &errno) && errno == syscall.ENOTDIR:
		cause = "a component of the path is a file, not a directory (ENOTDIR)"
	default:
		cause = err.Error()
	}
	return fmt.Errorf("%w: cannot write to the data directory %s: %s; %s: %w", ErrStorage, abs, cause, fix, err)
}

func errnoName(e syscall.Errno) string {
	if e == syscall.EPERM {
		return "EPERM"
	}
	return "EACCES"
}
