package alerts

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// docSnippet returns the first fenced code block after marker in
// docs/alerts.md.
func docSnippet(t *testing.T, marker string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "alerts.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, marker)
	if i < 0 {
		t.Fatalf("docs/alerts.md has no %s", marker)
	}
	s = s[i:]
	start := strings.Index(s, "```")
	s = s[start:]
	s = s[strings.Index(s, "\n")+1:]
	return s[:strings.Index(s, "```")]
}

// TestDocsVerifySnippets runs the verification of docs/alerts.md — the
// receiver's VerifyDelivery and the openssl line — on a real signed
// delivery, and checks they reject a tampered body and a stale timestamp.
func TestDocsVerifySnippets(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	c.t = time.Now().Truncate(time.Second)
	st := openStore(t, openSQLite(t), DialectSQLite, c)
	rcv := newReceiver(t)
	_, secret, err := st.Create(ctx, NewSubscription{URL: rcv.srv.URL, Events: []string{"unusual_flow"}})
	if err != nil {
		t.Fatal(err)
	}
	st.AddEvent(ctx, flowEvent("e1", "BTCUSD", c.Now()))
	if n, err := testDispatcher(st, rcv.srv, DispatcherConfig{}).RunOnce(ctx); err != nil || n != 1 {
		t.Fatalf("RunOnce = %d, %v", n, err)
	}
	got := rcv.requests()[0]
	ts, sig := got.Header.Get(HeaderTimestamp), got.Header.Get(HeaderSignature)

	// openssl one-liner.
	dir := t.TempDir()
	line := strings.TrimSpace(docSnippet(t, "<!-- verify-openssl -->"))
	run := func(body []byte) string {
		if err := os.WriteFile(filepath.Join(dir, "body.json"), body, 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("sh", "-c", line)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TS="+ts, "SIG="+sig, "SECRET="+secret)
		out, _ := cmd.CombinedOutput()
		return strings.TrimSpace(string(out))
	}
	if out := run(got.Body); out != "ok" {
		t.Fatalf("openssl snippet on a valid delivery printed %q", out)
	}
	if out := run(append(got.Body, ' ')); out == "ok" {
		t.Fatal("openssl snippet accepted a tampered body")
	}

	// Go snippet, compiled as its own module with a test that feeds it the
	// delivery.
	mod := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module receiver\n\ngo 1.22\n")
	write("receiver.go", docSnippet(t, "<!-- receiver-go -->"))
	write("body.json", string(got.Body))
	write("receiver_test.go", `package main

import (
	"bytes"
	"net/http/httptest"
	"os"
	"testing"
	"time"
)

func TestVerify(t *testing.T) {
	body, _ := os.ReadFile("body.json")
	now := time.Unix(`+strconv.FormatInt(c.Now().Unix(), 10)+`, 0)
	mk := func(b []byte) ([]byte, error) {
		r := httptest.NewRequest("POST", "/hook", bytes.NewReader(b))
		r.Header.Set("X-MI-Timestamp", "`+ts+`")
		r.Header.Set("X-MI-Signature", "`+sig+`")
		return VerifyDelivery(r, "`+secret+`", now)
	}
	if got, err := mk(body); err != nil || !bytes.Equal(got, body) {
		t.Fatalf("valid delivery rejected: %v", err)
	}
	if _, err := mk(append(body, ' ')); err == nil {
		t.Fatal("tampered body accepted")
	}
	r := httptest.NewRequest("POST", "/hook", bytes.NewReader(body))
	r.Header.Set("X-MI-Timestamp", "`+ts+`")
	r.Header.Set("X-MI-Signature", "`+sig+`")
	if _, err := VerifyDelivery(r, "`+secret+`", now.Add(6*time.Minute)); err == nil {
		t.Fatal("stale timestamp accepted")
	}
}
`)
	cmd := exec.Command("go", "test", "-count=1", "./...")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the Go snippet of docs/alerts.md fails: %v\n%s", err, out)
	}
}
