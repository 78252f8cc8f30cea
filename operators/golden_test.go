package operators

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestGolden runs every testdata/*.test script through a fresh engine and
// compares the emitted records, rendered as text, with testdata/*.golden.
// Run with -update to rewrite the golden files after a deliberate change.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.test")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/*.test files")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			s, err := parseScript(string(src))
			if err != nil {
				t.Fatalf("cannot parse %s: %v", file, err)
			}
			got := run(t, s.cfg, s.base, s.trades).text()
			golden := strings.TrimSuffix(file, ".test") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("cannot read golden file (run with -update to create it): %v", err)
			}
			if got != string(want) {
				t.Fatalf("output differs from %s (run with -update to accept)\n--- got\n%s--- want\n%s", golden, got, want)
			}
		})
	}
}
