package testhistory

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/marketintel/mi/datasets"
)

func TestBuild(t *testing.T) {
	dir := t.TempDir()
	res := Build(t, dir, Options{Symbols: []string{"BTCUSD", "ETHUSD"}, Rate: 0.01})
	if res.Trades == 0 || res.Candles == 0 || res.Signals == 0 {
		t.Fatalf("empty history: %+v", res)
	}
	p := filepath.Join(datasets.CandleDir(dir, "1m", datasets.Day(DefaultFrom), "sim_cex"), datasets.DayFileName)
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
}
