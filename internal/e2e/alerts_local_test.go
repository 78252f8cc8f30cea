package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// docBlock returns the first fenced code block after marker in a doc.
func docBlock(t *testing.T, doc, marker string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", doc))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, marker)
	if i < 0 {
		t.Fatalf("docs/%s has no %s", doc, marker)
	}
	s = s[i:]
	s = s[strings.Index(s, "```"):]
	s = s[strings.Index(s, "\n")+1:]
	return s[:strings.Index(s, "```")]
}

// TestAlertsLocalReceiver runs the walkthrough of docs/alerts.md
// ("Receiving deliveries locally") as written — the receiver program and
// the shell steps against the mi binary — with only the ports moved, and
// requires the signed test delivery to be verified by the receiver. It
// also checks the development flag is refused with a payee address, and the
// CA flag without it.
func TestAlertsLocalReceiver(t *testing.T) {
	mi := miBinary(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "receiver.go"), []byte(docBlock(t, "alerts.md", "<!-- receiver-go -->")), 0o644); err != nil {
		t.Fatal(err)
	}
	rp, hp, kp := strconv.Itoa(freePort(t)), strconv.Itoa(freePort(t)), strconv.Itoa(freePort(t))
	steps := docBlock(t, "alerts.md", "<!-- receiver-steps -->")
	steps = strings.ReplaceAll(steps, "8443", rp)
	steps = strings.ReplaceAll(steps, "localhost:8080", "127.0.0.1:"+hp)
	steps = strings.ReplaceAll(steps, "$MI run ", "$MI run --http-addr 127.0.0.1:"+hp+" --kafka-listen 127.0.0.1:"+kp+" ")
	if !strings.Contains(steps, "--dev-allow-loopback-webhooks") || strings.Count(steps, rp) < 2 {
		t.Fatalf("unexpected walkthrough:\n%s", steps)
	}
	// Job control on, as in an interactive shell, so that stopping a job
	// stops its children (go run's binary); stop both at the end.
	script := "set -m\ntrap 'kill %1 %2 2>/dev/null; wait' EXIT\nexport RECEIVER_ADDR=127.0.0.1:" + rp + "\n" + steps + "\nsleep 1\n"
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MI="+mi)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	got := out.String()
	if err != nil || !strings.Contains(got, `"delivered":true`) || !strings.Contains(got, "verified: {") || !strings.Contains(got, `"event":"test"`) {
		t.Fatalf("walkthrough failed (%v):\n%s", err, got)
	}
	if !strings.Contains(got, "DEVELOPMENT MODE") {
		t.Fatalf("no development warning in the log:\n%s", got)
	}

	// Refused with a payee address, and the CA flag alone.
	for _, args := range [][]string{
		{"--dev-allow-loopback-webhooks", "--pay-to-evm", "0x000000000000000000000000000000000000dEaD"},
		{"--dev-webhook-ca", filepath.Join(dir, "receiver.pem")},
	} {
		o, err := exec.Command(mi, append([]string{"run", "--data-dir", t.TempDir(), "--http-addr", "127.0.0.1:0", "--kafka-listen", "127.0.0.1:0"}, args...)...).CombinedOutput()
		if err == nil || !strings.Contains(string(o), "--dev-") {
			t.Fatalf("mi run %v: %v\n%s", args, err, o)
		}
	}
}
