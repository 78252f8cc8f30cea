package e2e

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/fixtures"
)

// tmpfs mounts a tmpfs of size bytes (read-only with ro) at a new
// directory, or skips: mounting needs root with CAP_SYS_ADMIN.
func tmpfs(t *testing.T, size int, ro bool) string {
	t.Helper()
	dir := t.TempDir()
	opts := "size=" + strconv.Itoa(size)
	if ro {
		opts += ",ro"
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", opts, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (needs root with CAP_SYS_ADMIN): %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	return dir
}

// runMi runs mi with args until it exits (at most limit) and returns its
// exit code and output.
func runMi(t *testing.T, limit time.Duration, cred *syscall.Credential, bin string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("mi %v did not exit within %s:\n%s", args, limit, out)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("mi %v: %v", args, err)
	}
	return code, string(out)
}

// TestDataDirErrorsNameThePathAndCause runs mi run on a data directory it
// may not write (another user's), a read-only file system and a file
// system that fills up during a replay: each exits non-zero with an error
// naming the directory and the cause, not SQLite's "unable to open
// database file (14)" or the broker's UNKNOWN_SERVER_ERROR alone.
func TestDataDirErrorsNameThePathAndCause(t *testing.T) {
	bin := miBinary(t)
	base := func(dir string) []string {
		return []string{"run", "--data-dir", dir, "--http-addr", "127.0.0.1:" + strconv.Itoa(freePort(t)),
			"--kafka-listen", "127.0.0.1:" + strconv.Itoa(freePort(t))}
	}
	want := func(code int, out, dir string, causes ...string) {
		t.Helper()
		if code == 0 {
			t.Fatalf("mi exited 0:\n%s", out)
		}
		last := out[strings.LastIndex(strings.TrimRight(out, "\n"), "\n")+1:]
		for _, w := range append(causes, dir) {
			if !strings.Contains(last, w) {
				t.Fatalf("the error does not say %q:\n%s", w, out)
			}
		}
		t.Logf("mi exited %d: %s", code, last)
	}

	t.Run("permission denied", func(t *testing.T) {
		owned := t.TempDir() // 0700, ours
		dir := filepath.Join(owned, "data")
		var cred *syscall.Credential
		runBin := bin
		if os.Getuid() == 0 {
			// root writes anywhere: run mi as nobody, from a copy it may
			// execute, on a directory only root may write.
			for _, d := range []string{filepath.Dir(owned), owned} {
				if err := os.Chmod(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			runBin = filepath.Join(owned, "mi")
			copyFile(t, bin, runBin, 0o755)
			cred = &syscall.Credential{Uid: 65534, Gid: 65534}
		} else if err := os.Chmod(owned, 0o555); err != nil {
			t.Fatal(err)
		}
		code, out := runMi(t, time.Minute, cred, runBin, base(dir)...)
		want(code, out, dir, "permission denied (EACCES)")
	})

	t.Run("read-only file system", func(t *testing.T) {
		dir := tmpfs(t, 1<<20, true)
		code, out := runMi(t, time.Minute, nil, bin, base(dir)...)
		want(code, out, dir, "read-only file system (EROFS)")
	})

	t.Run("disk fills up", func(t *testing.T) {
		dir := tmpfs(t, 3<<20, false)
		replay := "replay:" + fixtures.Path(t, "trades/binance_spot_BTCUSDT_ws_raw_2024-08-08.txt.gz") + "," +
			fixtures.Path(t, "trades/binance_spot_BTCUSDT_ws_raw_2024-08-09.txt.gz")
		code, out := runMi(t, 3*time.Minute, nil, bin, append(base(dir), "--source", replay, "--retention", "off")...)
		want(code, out, dir, "no space left on device (ENOSPC)")
	})
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
