package insiders

import (
	"os"
	"strings"
	"testing"
)

// TestDocsListCodesAndSignals keeps docs/insiders.md in step with Codes,
// Signals and the version.
func TestDocsListCodesAndSignals(t *testing.T) {
	b, err := os.ReadFile("../../docs/insiders.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, c := range Codes {
		if !strings.Contains(doc, "| "+c.Code+" | ") || !strings.Contains(doc, " | "+c.Category+" |") {
			t.Errorf("docs/insiders.md lacks code %s (%s)", c.Code, c.Category)
		}
	}
	for _, s := range Signals {
		if !strings.Contains(doc, "| `"+s+"` |") {
			t.Errorf("docs/insiders.md does not define %s", s)
		}
	}
	if !strings.Contains(doc, AlgorithmVersion) {
		t.Errorf("docs/insiders.md does not name %s", AlgorithmVersion)
	}
}
