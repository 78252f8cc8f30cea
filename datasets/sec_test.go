package datasets

import (
	"os"
	"strings"
	"testing"
)

// TestDocsListSecColumns checks that docs/datasets.md lists every column of
// the SEC snapshots with its type and meaning, as sec.go defines them.
func TestDocsListSecColumns(t *testing.T) {
	b, err := os.ReadFile("../docs/datasets.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, cols := range [][]Column{SecFundamentalColumns, SecInsiderColumns} {
		for _, c := range cols {
			line := "| `" + c.Name + "` | " + c.Type + " | " + strings.ReplaceAll(c.Doc, "|", "\\|") + " |"
			if !strings.Contains(doc, line) {
				t.Errorf("docs/datasets.md lacks the line %q", line)
			}
		}
	}
}
