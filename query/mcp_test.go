package query

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/marketintel/mi/query/api"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// chargingPaywall charges a route's price when the request carries
// X-API-Key: good and the handler answers 2xx, and answers 402 with the
// route's price otherwise. It stands in for the ledger-backed paywall so the
// MCP pricing rules can be checked on their own.
type chargingPaywall struct {
	mu      sync.Mutex
	charged map[string]int64 // route path -> micro-USD charged
	quotes  []int64
}

func (p *chargingPaywall) Wrap(r api.Operation, next fiber.Handler) fiber.Handler {
	return func(c fiber.Ctx) error {
		if c.Get("X-API-Key") != "good" {
			p.mu.Lock()
			p.quotes = append(p.quotes, r.Price)
			p.mu.Unlock()
			return api.SendJSON(c, fiber.StatusPaymentRequired, []byte(`{"error":"payment_required","priceMicroUsd":`+itoa(r.Price)+`}`))
		}
		if err := next(c); err != nil {
			return err
		}
		if st := c.Response().StatusCode(); st >= 200 && st < 300 {
			p.mu.Lock()
			p.charged[r.Path] += r.Price
			p.mu.Unlock()
		}
		return nil
	}
}

func itoa(v int64) string { b, _ := json.Marshal(v); return string(b) }

func (p *chargingPaywall) total() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var n int64
	for _, v := range p.charged {
		n += v
	}
	return n
}

// headerTransport adds a header to every request of the MCP client.
type headerTransport struct {
	key string
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if h.key != "" {
		r.Header.Set("X-API-Key", h.key)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// serveMCP serves s on a loopback port and returns the /mcp URL.
func serveMCP(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.App().Listener(ln, fiber.ListenConfig{DisableStartupMessage: true}) }()
	t.Cleanup(func() { _ = s.App().Shutdown() })
	return "http://" + ln.Addr().String() + "/mcp"
}

func connectMCP(t *testing.T, url, key string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sess, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: headerTransport{key: key}}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("cannot connect the MCP client: %v", err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

func TestMCPToolsAndPrices(t *testing.T) {
	pw := &chargingPaywall{charged: map[string]int64{}}
	s := newTestServer(nil, pw, fullDoc(), smallDoc("ETHUSD", "5m", 40, 1e6))
	url := serveMCP(t, s)
	ctx := context.Background()

	free := connectMCP(t, url, "")
	tools, err := free.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if len(tools.Tools) != len(s.mcp.Tools()) {
		t.Fatalf("tools/list has %d tools, want %d", len(tools.Tools), len(s.mcp.Tools()))
	}
	named := map[string]bool{}
	for _, tl := range tools.Tools {
		named[tl.Name] = true
		sch, _ := json.Marshal(tl.InputSchema)
		if tl.Description == "" || !strings.Contains(string(sch), `"type":"object"`) {
			t.Errorf("tool %s: description %q, schema %s", tl.Name, tl.Description, sch)
		}
	}
	for _, want := range []string{"get_market_intelligence", "get_market_summary", "get_symbol_intelligence",
		"get_top_momentum", "get_top_activity", "find_market_events", "find_unusual_activity", "find_strong_buying",
		"find_strong_selling", "compare_symbols", "get_market_regime", "pre_trade_check", "get_tokenized_equities",
		"get_market_news", "get_fundamental_intelligence", "backtest_signals", "find_opportunities",
		"get_market_preview", "get_signal_track_record_summary", "get_data_coverage"} {
		if !named[want] {
			t.Errorf("tools/list lacks %s", want)
		}
	}
	if pw.total() != 0 || len(pw.quotes) != 0 {
		t.Fatalf("initialize and tools/list touched the paywall: charged %d, quotes %v", pw.total(), pw.quotes)
	}

	// A paid tool without payment: HTTP 402 with the route's quote.
	_, err = free.CallTool(ctx, &mcp.CallToolParams{Name: "get_symbol_intelligence", Arguments: map[string]any{"symbol": "BTCUSD"}})
	if err == nil || !strings.Contains(err.Error(), "402") && !strings.Contains(strings.ToLower(err.Error()), "payment") {
		t.Fatalf("unpaid paid tool: err %v, want a 402", err)
	}
	if len(pw.quotes) != 1 || pw.quotes[0] != priceIntelligenceSymbol {
		t.Fatalf("quotes %v, want one of %d", pw.quotes, priceIntelligenceSymbol)
	}
	// The SDK client closes its session on a transport error: connect again.
	free = connectMCP(t, url, "")
	// A tool call with a bad argument: a tool error naming it, never a 402.
	res, err := free.CallTool(ctx, &mcp.CallToolParams{Name: "find_opportunities", Arguments: map[string]any{"objective": "moon"}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "unusual_buying") {
		t.Fatalf("find_opportunities with a bad objective: %v %+v", err, res)
	}

	paid := connectMCP(t, url, "good")
	f := func(name string, args map[string]any, wantErr bool, wantText string, wantCharged int64) {
		t.Helper()
		before := pw.total()
		res, err := paid.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s %v: %v", name, args, err)
		}
		if res.IsError != wantErr || !strings.Contains(text(res), wantText) {
			t.Fatalf("%s %v: isError %v, text %s; want isError %v containing %q", name, args, res.IsError, text(res), wantErr, wantText)
		}
		if got := pw.total() - before; got != wantCharged {
			t.Fatalf("%s %v: charged %d, want %d", name, args, got, wantCharged)
		}
	}
	f("get_symbol_intelligence", map[string]any{"symbol": "BTCUSD"}, false, `"symbol":"BTCUSD"`, priceIntelligenceSymbol)
	f("get_market_summary", map[string]any{"window": "5m"}, false, `"symbolsCovered"`, priceSummary)
	f("compare_symbols", map[string]any{"symbols": []string{"BTCUSD", "NOPE"}}, false, `NOPE`, priceCompare)
	// Errors are not charged: a bad window, an unknown symbol, an unknown
	// argument, a wrong type.
	f("get_symbol_intelligence", map[string]any{"symbol": "BTCUSD", "window": "2m"}, true, `"parameter":"window"`, 0)
	f("get_symbol_intelligence", map[string]any{"symbol": "NOPEUSD"}, true, `no_data`, 0)
	f("get_symbol_intelligence", map[string]any{"symbol": "NOPE"}, true, `"error":"not_found"`, 0)
	f("get_top_momentum", map[string]any{"bogus": 1}, true, `unknown argument \"bogus\"`, 0)
	f("get_top_momentum", map[string]any{"limit": "ten"}, true, `must be a integer`, 0)
}

func TestMCPCompactByDefault(t *testing.T) {
	pw := &chargingPaywall{charged: map[string]int64{}}
	s := newTestServer(nil, pw, fullDoc())
	url := serveMCP(t, s)
	paid := connectMCP(t, url, "good")
	ctx := context.Background()
	res, err := paid.CallTool(ctx, &mcp.CallToolParams{Name: "get_symbol_intelligence", Arguments: map[string]any{"symbol": "BTCUSD"}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	if strings.Contains(text(res), `"tradeRatePerMinute"`) || strings.Contains(text(res), `"buyVolume"`) {
		t.Fatalf("compact answer holds omitted fields: %s", text(res))
	}
	res, err = paid.CallTool(ctx, &mcp.CallToolParams{Name: "get_symbol_intelligence", Arguments: map[string]any{"symbol": "BTCUSD", "detail": "full"}})
	if err != nil || res.IsError || !strings.Contains(text(res), `"tradeRatePerMinute"`) {
		t.Fatalf("full answer: %v %s", err, text(res))
	}
}

func text(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
