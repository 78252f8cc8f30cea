package query

import (
	"strings"
	"testing"
)

// The decision routes are declared in the table, so the server never takes
// /api/v1/intelligence/equities or /pre-trade for the {symbol} route.
func TestDecisionRoutesAreNotSymbols(t *testing.T) {
	s := newTestServer(nil, nil, fullDoc())
	_, resp, body := get(t, s, "/api/v1/intelligence/equities", "")
	if resp.StatusCode != 404 || !strings.Contains(string(body), "no tokenized equity") {
		t.Fatalf("equities: %d %s", resp.StatusCode, body)
	}
}

func TestPreTradeIsNotASymbol(t *testing.T) {
	s := newTestServer(nil, nil, fullDoc())
	_, resp, body := get(t, s, "/api/v1/intelligence/pre-trade?symbol=BTCUSD", "")
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"verdict"`) {
		t.Fatalf("pre-trade: %d %s", resp.StatusCode, body)
	}
}
