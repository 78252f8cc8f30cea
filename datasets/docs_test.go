package datasets

import (
	"os"
	"strings"
	"testing"
)

// TestDocsListEveryColumn checks that docs/datasets.md lists every column
// of every dataset with its type and meaning, as layout.go defines them.
func TestDocsListEveryColumn(t *testing.T) {
	b, err := os.ReadFile("../docs/datasets.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, cols := range [][]Column{CandleColumns, SignalColumns, TradeColumns, SignalChangeColumns, NewsColumns,
		RatesCurveColumns, RatesOvernightColumns, RatesLendingColumns, RatesFundSupplyColumns, RatesAuctionColumns} {
		for _, c := range cols {
			line := "| `" + c.Name + "` | " + c.Type + " | " + strings.ReplaceAll(c.Doc, "|", "\\|") + " |"
			if !strings.Contains(doc, line) {
				t.Errorf("docs/datasets.md lacks the line %q", line)
			}
		}
	}
}
