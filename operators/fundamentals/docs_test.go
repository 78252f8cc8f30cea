package fundamentals

import (
	"os"
	"strings"
	"testing"
)

// TestDocsListConcepts keeps the concept table of docs/fundamentals.md in
// step with metricDefs.
func TestDocsListConcepts(t *testing.T) {
	b, err := os.ReadFile("../../docs/fundamentals.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, d := range metricDefs {
		kind, unit := "duration", "currency"
		if d.instant {
			kind = "instant"
		}
		switch d.unit {
		case perShare:
			unit = "currency/share"
		case shares:
			unit = "shares"
		}
		q := func(cs []string) string {
			out := make([]string, len(cs))
			for i, c := range cs {
				out[i] = "`" + c + "`"
			}
			return strings.Join(out, ", ")
		}
		cs := q(d.concepts)
		if len(d.sum) > 0 {
			cs += "; else the sum of those present of " + q(d.sum)
		}
		line := "| `" + d.name + "` | " + kind + " | " + unit + " | " + cs + " |"
		if !strings.Contains(doc, line) {
			t.Errorf("docs/fundamentals.md lacks the line\n%s", line)
		}
	}
	for _, s := range Signals {
		if !strings.Contains(doc, "| `"+s+"` |") {
			t.Errorf("docs/fundamentals.md does not define signal %s", s)
		}
	}
	if !strings.Contains(doc, AlgorithmVersion) {
		t.Errorf("docs/fundamentals.md does not name %s", AlgorithmVersion)
	}
}
