package main

import (
	"bytes"
	"context"
	"testing"
)

// TestHelpExitsZero asks every command and subcommand for help: each
// prints its usage and exits 0 (it used to exit 1 with "flag: help
// requested"); an unknown command exits 2 and a failing one 1.
func TestHelpExitsZero(t *testing.T) {
	for _, cmd := range [][]string{
		{"run"}, {"bench"}, {"bench", "pipeline"}, {"bench", "serve"}, {"backfill"}, {"export"}, {"sql"},
		{"retention"}, {"symbols"}, {"credits"}, {"credits", "grant"}, {"credits", "balance"}, {},
	} {
		for _, h := range []string{"-h", "--help"} {
			var out, errOut bytes.Buffer
			args := append(append([]string{}, cmd...), h)
			if code := run(context.Background(), args, &out, &errOut); code != 0 {
				t.Errorf("mi %v exited %d:\n%s%s", args, code, out.String(), errOut.String())
			}
		}
	}
	var out bytes.Buffer
	if code := run(context.Background(), []string{"nosuch"}, &out, &out); code != 2 {
		t.Errorf("unknown command exited %d", code)
	}
	if code := run(context.Background(), []string{"backfill", "--from", "yesterday"}, &out, &out); code != 1 {
		t.Errorf("failing command exited %d", code)
	}
}
