package main

import (
	"bytes"
	"flag"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckoutFlags: card checkout is off without a Stripe key, on with one
// from the environment or a file (the file wins), and a malformed secret is
// refused without being echoed or logged.
func TestCheckoutFlags(t *testing.T) {
	store, err := openLedger(t.Context(), t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	goodKey, goodHook := "sk_test_cmdmi0checkout0000000000", "whsec_cmdmi0checkout0000000000"
	f := func(env map[string]string, args []string, wantOn bool, wantErr string) {
		t.Helper()
		for _, k := range []string{stripeKeyEnv, stripeWebhookEnv} {
			t.Setenv(k, env[k])
		}
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c := addCheckoutFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		var logs bytes.Buffer
		k, err := c.build(store, "http://localhost:8080", slog.New(slog.NewTextHandler(&logs, nil)))
		for _, s := range []string{goodKey, goodHook, "sk_test_bad!", "whsec_bad!"} {
			if strings.Contains(logs.String(), s) || err != nil && strings.Contains(err.Error(), s) {
				t.Fatalf("%v: a secret reached the log or the error: %s %v", args, logs.String(), err)
			}
		}
		if wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), wantErr) {
				t.Fatalf("%v %v: err %v, want %q", env, args, err, wantErr)
			}
			return
		}
		if err != nil {
			t.Fatalf("%v %v: %v", env, args, err)
		}
		if k.Enabled() != wantOn {
			t.Fatalf("%v %v: enabled %v (%s)", env, args, k.Enabled(), k)
		}
	}
	f(nil, nil, false, "")
	f(map[string]string{stripeKeyEnv: goodKey}, nil, true, "")
	f(map[string]string{stripeKeyEnv: goodKey, stripeWebhookEnv: goodHook}, []string{"--stripe-api-url", "http://127.0.0.1:12111"}, true, "")
	f(nil, []string{"--stripe-secret-key-file", file("key", goodKey), "--stripe-webhook-secret-file", file("hook", goodHook)}, true, "")
	f(map[string]string{stripeKeyEnv: "sk_test_bad!"}, []string{"--stripe-secret-key-file", file("key2", goodKey)}, true, "")
	f(map[string]string{stripeKeyEnv: "sk_test_bad!"}, nil, false, "does not look like")
	f(map[string]string{stripeKeyEnv: goodKey, stripeWebhookEnv: "whsec_bad!"}, nil, false, "does not look like whsec_")
	f(map[string]string{stripeWebhookEnv: goodHook}, nil, false, "without a Stripe secret key")
	f(nil, []string{"--stripe-secret-key-file", filepath.Join(dir, "missing")}, false, "cannot read the Stripe secret file")
	f(map[string]string{stripeKeyEnv: goodKey}, []string{"--stripe-api-url", "ftp://x"}, false, "not an absolute http(s) URL")
}
