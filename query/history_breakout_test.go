package query

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/testhistory"
	"github.com/marketintel/mi/query/history"
)

// TestBacktestLabelledBreakouts backfills two simulated days with the
// simulator's injected events and checks that the backtest report shows
// the expected direction on them: breakouts are scored BULLISH and
// breakdowns BEARISH, each with a positive average 15m return in that
// direction (the simulator moves prices with its labelled events).
func TestBacktestLabelledBreakouts(t *testing.T) {
	root := t.TempDir()
	day := testhistory.DefaultFrom
	testhistory.Build(t, root, testhistory.Options{From: day, Days: 2, Symbols: []string{"BTCUSD", "ETHUSD", "SOLUSD"}, Rate: 0.05})
	now := day.Add(49 * time.Hour)
	st, err := history.Open(history.Config{DataDir: root, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := New(Deps{Now: func() time.Time { return now }, History: st})
	status, _, body := do(t, s.App(), http.MethodGet, "/api/v1/intelligence/backtest?minConfidence=0&start="+
		day.Format(time.RFC3339)+"&end="+day.Add(48*time.Hour).Format(time.RFC3339))
	if status != 200 {
		t.Fatalf("backtest: %d %s", status, body)
	}
	var r struct {
		Signals map[string]struct {
			Occurrences int
			Direction   string
			AvgReturn15 float64 `json:"averageReturn15mPercent"`
		}
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatal(err)
	}
	f := func(event, direction string) {
		t.Helper()
		e, ok := r.Signals[event]
		t.Logf("%s: %+v", event, e)
		if !ok || e.Occurrences < 3 || e.Direction != direction || !(e.AvgReturn15 > 0) {
			t.Errorf("%s: %+v; want at least 3 occurrences, direction %s, a positive average 15m return in it", event, e, direction)
		}
	}
	f("BREAKOUT", "BULLISH")
	f("BREAKDOWN", "BEARISH")
}
