package datasets

import (
	"os"
	"strings"
	"testing"
)

// TestDocsListTokenColumns checks that docs/datasets.md lists every column
// of the token datasets as token.go defines them.
func TestDocsListTokenColumns(t *testing.T) {
	b, err := os.ReadFile("../docs/datasets.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, cols := range [][]Column{StablecoinColumns, TokenRiskColumns} {
		for _, c := range cols {
			line := "| `" + c.Name + "` | " + c.Type + " | " + strings.ReplaceAll(c.Doc, "|", "\\|") + " |"
			if !strings.Contains(doc, line) {
				t.Errorf("docs/datasets.md lacks the line %q", line)
			}
		}
	}
}
