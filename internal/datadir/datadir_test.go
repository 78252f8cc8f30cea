package datadir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestExplain checks that each storage errno is named with the directory
// and what to do, and still wraps the original error.
func TestExplain(t *testing.T) {
	dir := t.TempDir()
	f := func(errno syscall.Errno, want ...string) {
		t.Helper()
		orig := &fs.PathError{Op: "open", Path: filepath.Join(dir, "ledger.db"), Err: errno}
		err := explain(dir, orig)
		if !errors.Is(err, ErrStorage) || !errors.Is(err, errno) {
			t.Fatalf("%v: %v does not wrap ErrStorage and the errno", errno, err)
		}
		for _, w := range append(want, dir, "--data-dir") {
			if !strings.Contains(err.Error(), w) {
				t.Fatalf("%v: %q does not say %q", errno, err, w)
			}
		}
	}
	f(syscall.ENOSPC, "no space left on device (ENOSPC)", "free space")
	f(syscall.EDQUOT, "disk quota exceeded (EDQUOT)")
	f(syscall.EROFS, "read-only file system (EROFS)", "read-write")
	f(syscall.EACCES, "permission denied (EACCES)", fmt.Sprintf("user %d", os.Getuid()))
	f(syscall.EPERM, "permission denied (EPERM)")
	f(syscall.ENOTDIR, "not a directory (ENOTDIR)")
}

// TestCheck checks a writable directory (created when missing, left
// clean), a path through a file, and that Diagnose leaves an error alone
// when the directory is fine and explains it when it is not.
func TestCheck(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	if err := Check(dir); err != nil {
		t.Fatalf("Check(%s) = %v", dir, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("Check left %d files behind", len(ents))
	}
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(file, "data")
	err := Check(bad)
	if !errors.Is(err, ErrStorage) || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "ENOTDIR") {
		t.Fatalf("Check(%s) = %v", bad, err)
	}
	boom := errors.New("UNKNOWN_SERVER_ERROR")
	if got := Diagnose(dir, boom); got != boom {
		t.Fatalf("Diagnose on a good directory = %v", got)
	}
	if got := Diagnose(bad, boom); !errors.Is(got, boom) || !errors.Is(got, ErrStorage) || !strings.Contains(got.Error(), "UNKNOWN_SERVER_ERROR") {
		t.Fatalf("Diagnose on a bad directory = %v", got)
	}
	if Diagnose(bad, nil) != nil {
		t.Fatal("Diagnose(nil) is not nil")
	}
}
