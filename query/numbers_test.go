package query

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/internal/jsonw"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/history"
	"github.com/marketintel/mi/query/history/histtest"
)

// checkNumbers fails when a number of the JSON body is not written by the
// one rule of docs/api.md ("Numbers"): the shortest decimal that reads back
// as the same float64, plain from 1e-6 to 1e21, with an exponent outside,
// -0 as 0.
func checkNumbers(t *testing.T, what string, body []byte) int {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return 0
	}
	n := 0
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case json.Number:
			n++
			f, err := strconv.ParseFloat(x.String(), 64)
			if want := string(jsonw.AppendFloat(nil, f)); err != nil || x.String() != want {
				t.Errorf("%s: the number %s is written %s by the rule", what, x, want)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return n
}

// TestOneNumberRule renders every GET operation of the table (live routes
// over documents with large and tiny values, history routes over candles
// worth millions, the pricing routes with a paywall) and checks every
// number of every JSON answer, and of the CSV export, against the rule.
func TestOneNumberRule(t *testing.T) {
	big := fullDoc()
	big.Id, big.Symbol, big.Volume, big.Price, big.BuyVolume, big.VolumeZScore = "BIGUSD|5m|1", "BIGUSD", 1234567.5, 105905.7, 1e21, -2.5e-10
	hist := numbersHistory(t)
	servers := map[string]*Server{
		"live":    newTestServer(nil, nil, fullDoc(), big, smallDoc("ETHUSD", "5m", 40, 1e6)),
		"history": New(Deps{Now: func() time.Time { return histNow }, History: hist}),
		"priced":  newPricedServer(t, -1),
	}
	numbers := 0
	for name, s := range servers {
		for _, op := range s.Operations() {
			if op.Method != "GET" {
				continue
			}
			target := op.Path
			for _, p := range op.Params {
				if sp := p.Spec(); sp.In == api.InPath {
					target = strings.Replace(target, ":"+sp.Name, "BIGUSD", 1)
				}
			}
			for _, q := range []string{"", "?date=2026-01-05", "?symbols=BIGUSD,ETHUSD&from=2026-01-05T00:00:00Z&to=2026-01-05T03:00:00Z",
				"?start=2026-01-05&end=2026-01-06", "?days=3"} {
				_, resp, body := get(t, s, target+q, "")
				if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && resp.StatusCode < 500 {
					numbers += checkNumbers(t, name+" GET "+target+q, body)
				}
			}
		}
	}
	// The MCP tool answers are the routes' numbers, compacted.
	s := servers["live"]
	req := httptest.NewRequest("POST", "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_symbol_intelligence","arguments":{"symbol":"BIGUSD"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := s.App().Test(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	var rpc struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &rpc); err != nil || len(rpc.Result.Content) != 1 {
		t.Fatalf("MCP answer %s: %v", b, err)
	}
	numbers += checkNumbers(t, "MCP get_symbol_intelligence", []byte(rpc.Result.Content[0].Text))
	if !strings.Contains(rpc.Result.Content[0].Text, `"volume":1234567.5`) {
		t.Errorf("MCP answer without the plain volume: %.300s", rpc.Result.Content[0].Text)
	}
	// The CSV export follows the same rule.
	_, _, body := get(t, servers["history"], "/api/v1/datasets/BIGUSD?date=2026-01-05&format=csv", "")
	recs, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("CSV %.200s: %v", body, err)
	}
	for _, r := range recs[1:] {
		for _, f := range r[6:] {
			numbers += checkNumbers(t, "CSV", []byte(f))
		}
	}
	// The values the rule exists for reached the answers.
	_, _, body = get(t, servers["history"], "/api/v1/intelligence/candles/BIGUSD", "")
	if !strings.Contains(string(body), `"buyVolumeUsd":1234567.5`) || !strings.Contains(string(body), `"sellVolumeUsd":1e-7`) {
		t.Errorf("candles of BIGUSD: %.600s", body)
	}
	if numbers < 1000 {
		t.Fatalf("only %d numbers checked; the test does not reach the answers", numbers)
	}
}

// numbersHistory is a history with a candle worth millions and a tiny one.
func numbersHistory(t *testing.T) *history.Store {
	t.Helper()
	root := t.TempDir()
	w := histtest.New(t, root)
	var cs []datasets.Candle
	for m := range 30 {
		ts := histDay.Add(time.Duration(m) * time.Minute)
		c := histtest.Flat("BIGUSD", "uniswap_v3_ethereum", ts, 105905.7, 20.5)
		c.VenueKind, c.Chain = "onchain_dex", "ethereum"
		c.BuyVolumeUSD, c.SellVolumeUSD = 1234567.5, 1e-7
		e := histtest.Flat("ETHUSD", "uniswap_v3_ethereum", ts, 3000.25+float64(m), 1e6)
		e.VenueKind, e.Chain = "onchain_dex", "ethereum"
		cs = append(cs, c, e)
	}
	w.Candles("1m", false, cs)
	var docs []history.Signal
	var changes []history.Change
	for m := 0; m < 30; m += 10 {
		ts := histDay.Add(time.Duration(m) * time.Minute)
		docs = append(docs, history.Signal{Time: ts, Symbol: "BIGUSD", ID: "d", Price: 105905.7, Confidence: 75,
			Signal: "BEARISH", EventType: "BREAKDOWN", BaselineSamples: 30, BaselineReady: true, Momentum: 60, Activity: 50, Anomaly: 20})
		changes = append(changes, history.Change{ChangedAt: ts, Symbol: "BIGUSD", Window: "5m", PreviousSignal: "NEUTRAL",
			Signal: "BEARISH", EventType: "BREAKDOWN", Confidence: 75, Price: 105905.7})
	}
	w.Signals("5m", false, docs)
	w.Changes(false, changes)
	st, err := history.Open(history.Config{DataDir: root, MemoryLimit: "256MB", Now: func() time.Time { return histNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
