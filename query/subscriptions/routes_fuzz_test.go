package subscriptions

import (
	"context"
	"database/sql"
	"errors"
	"net/netip"
	"path/filepath"
	"slices"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/sinks/alerts"
)

// FuzzAlertCreateBody feeds arbitrary bodies to the create-body parser: it
// must never panic, and whatever it accepts must be a valid subscription.
func FuzzAlertCreateBody(f *testing.F) {
	for _, s := range []string{
		`{"url":"https://93.184.215.14/h","events":["unusual_flow"]}`,
		`{"url":"https://93.184.215.14/h","events":["news","sec_filing","token_risk_change"],"symbols":["aapl"],"categories":["crypto"],"minMateriality":3,"forms":["8-K"],"tokens":[{"address":"0x833589fcd6edb6e08f4c7c32d4f71b54bda02913","chain":"base"}]}`,
		`{"url":"http://x","events":[]}`, `[]`, `null`, `{"events":["x"]}`, `{"minMateriality":1e309}`, ``,
		`{"url":"https://93.184.215.14/h","events":["funding_extreme"]}`,
	} {
		f.Add([]byte(s))
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(f.TempDir(), "l.db")+"?_txlock=immediate")
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	st, err := alerts.Open(context.Background(), db, alerts.DialectSQLite, alerts.Config{Key: make([]byte, 32)})
	if err != nil {
		f.Fatal(err)
	}
	noDNS := func(context.Context, string) ([]netip.Addr, error) { return nil, errors.New("no DNS in the fuzz test") }
	// Every event live but funding_extreme, which no accepted body names.
	live := operators.NewLiveEvents()
	for _, e := range operators.AlertEventNames {
		if e != operators.AlertFundingExtreme {
			live.Register("fuzz", e)
		}
	}
	s := New(alerts.NewDispatcher(st, alerts.DispatcherConfig{Safety: alerts.Safety{Lookup: noDNS}}), live)
	f.Fuzz(func(t *testing.T, body []byte) {
		n, perr := s.parseAlertCreate(context.Background(), body)
		if perr != nil {
			if perr.Param == "" || (perr.Accepted == nil && perr.Range == "") {
				t.Fatalf("error without parameter or accepted values: %+v", perr)
			}
			return
		}
		if len(n.Events) == 0 || n.URL == "" || len(n.Filters.Tokens) > maxAlertTokens || slices.Contains(n.Events, operators.AlertFundingExtreme) {
			t.Fatalf("accepted an invalid subscription %+v from %q", n, body)
		}
	})
}
