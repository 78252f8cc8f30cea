package datasets

import (
	"os"
	"strings"
	"testing"
)

// TestDocsListPositioningColumns checks that docs/datasets.md lists every
// column of the positioning datasets as positioning.go defines them.
func TestDocsListPositioningColumns(t *testing.T) {
	b, err := os.ReadFile("../docs/datasets.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, cols := range [][]Column{PositioningColumns, PredictionMarketColumns} {
		for _, c := range cols {
			line := "| `" + c.Name + "` | " + c.Type + " | " + strings.ReplaceAll(c.Doc, "|", "\\|") + " |"
			if !strings.Contains(doc, line) {
				t.Errorf("docs/datasets.md lacks the line %q", line)
			}
		}
	}
}
