package query

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/gofiber/fiber/v3/middleware/adaptor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP tool server (spec §4.8) at POST /mcp: JSON-RPC over the streamable
// HTTP transport of the official Go SDK, stateless, JSON responses. Every
// tool calls the same route handler as its HTTP route, through an internal
// copy of the route table without the paywall; the paywall runs once, around
// the whole /mcp request, priced by the tool called (docs/mcp.md).

// mcpPath is the route of the tool server.
const mcpPath = "/mcp"

// mcpCallHeader carries the id of an /mcp request from the Fiber handler to
// the tool handlers the SDK calls; a client-sent value is removed first.
const mcpCallHeader = "X-Mi-Mcp-Call"

// mcpParam is one argument of a tool, mapped onto a query or path parameter
// of the tool's route.
type mcpParam struct {
	name string
	// kind is the JSON type: string, integer, number, boolean, or
	// array (of strings, sent comma-separated).
	kind     string
	desc     string
	enum     []string
	required bool
	// path marks the route's :symbol (or :address) path parameter.
	path bool
}

// mcpTool is one tool: its route and how its arguments map onto it.
type mcpTool struct {
	name string
	// route is the key "METHOD /fiber/path" of the route it calls.
	route string
	desc  string
	// free tools never pass through the paywall (spec §4.8).
	free   bool
	params []mcpParam
	// docs marks tools whose answers hold intelligence documents: they are
	// compacted unless the argument detail is "full".
	docs bool
}

// Arguments shared by many tools.
var (
	mcpWindow = mcpParam{name: "window", kind: "string", enum: []string{"1m", "5m", "15m"},
		desc: "Analysis window: trailing 1, 5 or 15 minutes. Default 5m."}
	mcpSymbol = mcpParam{name: "symbol", kind: "string", required: true, path: true,
		desc: "Normalized symbol, e.g. BTCUSD, ETHUSD, TSLA. get_data_coverage lists the covered symbols."}
	mcpDetail = mcpParam{name: "detail", kind: "string", enum: []string{"compact", "full"},
		desc: "compact (default) drops per-minute rates, buy/sell volumes and ids to save context; full returns whole documents."}
)

func mcpLimit(def int) mcpParam {
	return mcpParam{name: "limit", kind: "integer", desc: "How many symbols to return, most relevant first. Default " + strconv.Itoa(def) + "."}
}

// mcpTools are the 17 tools of spec §4.8 plus the three free ones.
var mcpTools = []mcpTool{
	{name: "get_market_intelligence", route: "GET /api/v1/intelligence", docs: true,
		desc:   "Latest trade-flow intelligence for every covered symbol (price, volume, buy pressure, momentum, activity, anomaly, confidence, signal), most active first. Use for a broad market scan.",
		params: []mcpParam{mcpWindow, mcpLimit(20), mcpDetail}},
	{name: "get_market_summary", route: "GET /api/v1/intelligence/summary", docs: true,
		desc:   "One-call market overview for a window: breadth (bullish/bearish counts), average buy pressure and price change, regime, top movers, events and data freshness.",
		params: []mcpParam{mcpWindow, mcpDetail}},
	{name: "get_symbol_intelligence", route: "GET /api/v1/intelligence/:symbol", docs: true,
		desc:   "Full intelligence for one symbol: flow, scores, signal with its age and lifecycle, baselines, percentiles, evidence sentences, on-chain liquidity and source freshness.",
		params: []mcpParam{mcpSymbol, mcpWindow, mcpDetail}},
	{name: "get_top_momentum", route: "GET /api/v1/intelligence/top-momentum", docs: true,
		desc:   "Symbols with the strongest momentum score right now (0-100; above 65 is strong upward momentum).",
		params: []mcpParam{mcpWindow, mcpLimit(10), mcpDetail}},
	{name: "get_top_activity", route: "GET /api/v1/intelligence/top-activity", docs: true,
		desc:   "Symbols with the most trading activity (trade count, then volume) in the window.",
		params: []mcpParam{mcpWindow, mcpLimit(10), mcpDetail}},
	{name: "find_market_events", route: "GET /api/v1/intelligence/events", docs: true,
		desc:   "Symbols where a market event is happening now: unusual activity, breakout, breakdown, accumulation, distribution or momentum (eventType other than NORMAL).",
		params: []mcpParam{mcpWindow, mcpLimit(10), mcpDetail}},
	{name: "find_unusual_activity", route: "GET /api/v1/intelligence/unusual", docs: true,
		desc: "Symbols whose activity deviates from their own baseline: anomaly score at least minAnomaly (default 70) with at least minTrades trades (default 3).",
		params: []mcpParam{mcpWindow, mcpLimit(10),
			{name: "minAnomaly", kind: "number", desc: "Minimum anomaly score 0-100. Default 70."},
			{name: "minTrades", kind: "integer", desc: "Minimum trades in the window. Default 3."}, mcpDetail}},
	{name: "find_strong_buying", route: "GET /api/v1/intelligence/buying", docs: true,
		desc: "Symbols under aggressive buying: buy pressure (share of volume bought by takers, 0-100) at least minBuyPressure (default 60), highest first.",
		params: []mcpParam{mcpWindow, mcpLimit(10),
			{name: "minBuyPressure", kind: "number", desc: "Minimum buy pressure 0-100. Default 60."}, mcpDetail}},
	{name: "find_strong_selling", route: "GET /api/v1/intelligence/selling", docs: true,
		desc: "Summary of symbols under aggressive selling: buy pressure at most maxBuyPressure (default 40), lowest first.",
		params: []mcpParam{mcpWindow, mcpLimit(10),
			{name: "maxBuyPressure", kind: "number", desc: "Maximum buy pressure 0-100. Default 40."}, mcpDetail}},
	{name: "compare_symbols", route: "GET /api/v1/intelligence/compare", docs: true,
		desc: "Side-by-side compact intelligence for up to 20 symbols; unknown symbols are reported per symbol.",
		params: []mcpParam{{name: "symbols", kind: "array", required: true, desc: "Symbols to compare, e.g. [\"BTCUSD\",\"ETHUSD\"]."},
			mcpWindow, mcpDetail}},
	{name: "get_market_regime", route: "GET /api/v1/intelligence/regime", docs: true,
		desc:   "Aggregated market regime (BULLISH, BEARISH, MIXED or NO_DATA) with breadth, averages, high-confidence signal count and leaders.",
		params: []mcpParam{mcpWindow, mcpDetail}},
	{name: "pre_trade_check", route: "GET /api/v1/intelligence/pre-trade",
		desc: "Before placing an order: verdict FAVORABLE, CAUTION or UNFAVORABLE with a 0-100 score, the checks behind it (flow, momentum, volatility, events, regime, news) and on-chain slippage.",
		params: []mcpParam{{name: "symbol", kind: "string", required: true, desc: "Symbol to trade."},
			{name: "side", kind: "string", enum: []string{"buy", "sell"}, desc: "Order side. Default buy."},
			{name: "window", kind: "string", enum: []string{"1m", "5m", "15m", "1h", "4h", "24h"}, desc: "Lookback. Default 5m."}}},
	{name: "get_tokenized_equities", route: "GET /api/v1/intelligence/equities",
		desc:   "24/7 on-chain flow of tokenized US equities and ETFs with the current US market session, breadth and per-asset signals.",
		params: []mcpParam{mcpWindow, mcpLimit(20)}},
	{name: "get_market_news", route: "GET /api/v1/news",
		desc: "Publisher-attributed headlines for crypto and US stocks with keyword sentiment.",
		params: []mcpParam{{name: "category", kind: "string", enum: []string{"crypto", "stocks"}, desc: "News category."},
			{name: "query", kind: "string", desc: "Keyword, company name or ticker."},
			{name: "limit", kind: "integer", desc: "1 to 100. Default 20."}}},
	{name: "get_fundamental_intelligence", route: "GET /api/v1/fundamentals/:symbol",
		desc:   "SEC EDGAR fundamentals of a US equity: latest filing, financials, derived ratios and a deterministic fundamental signal.",
		params: []mcpParam{{name: "symbol", kind: "string", required: true, path: true, desc: "US equity ticker, e.g. AAPL."}}},
	{name: "backtest_signals", route: "GET /api/v1/intelligence/backtest",
		desc: "Walk-forward backtest of the published signals over stored history: forward returns at 1m/5m/15m/60m, win rates, excursions and confidence calibration per event type.",
		params: []mcpParam{mcpWindow,
			{name: "minConfidence", kind: "integer", desc: "Minimum confidence 0-100. Default 60."},
			{name: "minBaselineSamples", kind: "integer", desc: "Minimum baseline samples, at least 2. Default 10."},
			{name: "start", kind: "string", desc: "ISO-8601 UTC start. Default 24 hours before end."},
			{name: "end", kind: "string", desc: "ISO-8601 UTC end. Default now."},
			{name: "symbols", kind: "array", desc: "Symbols to include; all when omitted."}}},
	{name: "find_opportunities", route: "GET /api/v1/intelligence/opportunities",
		desc: "Ranked symbols for an objective (unusual_buying, unusual_selling, breakout, breakdown, crowded_positioning, smart_money_accumulation, smart_money_distribution) with evidence for and against and risk factors.",
		params: []mcpParam{{name: "objective", kind: "string", required: true, enum: []string{"unusual_buying", "unusual_selling", "breakout",
			"breakdown", "crowded_positioning", "smart_money_accumulation", "smart_money_distribution"}, desc: "What to look for."},
			{name: "universe", kind: "array", desc: "Symbols to scan (at most 100); all covered symbols when omitted."},
			mcpWindow, {name: "maxResults", kind: "integer", desc: "1 to 50. Default 10."}}},
	{name: "get_market_preview", route: "GET /api/v1/preview", free: true,
		desc:   "Free delayed sample: the last 6 closed 5-minute candles (close, USD volume, buy pressure) of ETHUSD, BTCUSD or TSLA, 15 minutes delayed, with links to the paid tools.",
		params: []mcpParam{{name: "symbol", kind: "string", enum: []string{"ETHUSD", "BTCUSD", "TSLA"}, desc: "Default ETHUSD."}}},
	{name: "get_signal_track_record_summary", route: "GET /track-record", free: true,
		desc: "Free live track record of the published signals: hit rate and average return in the signal's direction per horizon."},
	{name: "get_data_coverage", route: "GET /coverage", free: true,
		desc: "Free map of what is covered: symbols with their data sources, live alert events, and which tools are available."},
}

// mcpCall is the state of one /mcp request shared with its tool handler.
type mcpCall struct {
	// status is the HTTP status the tool's route answered (0 when no tool
	// ran), so the paywall charges only for a successful tool call.
	status atomic.Int32
}

// mcpServer is the lazily built tool server of a Server.
type mcpServer struct {
	once     sync.Once
	sdk      fiber.Handler
	internal *fiber.App
	routes   map[string]Route
	// paid maps a tool name to the /mcp handler wrapped by the paywall with
	// the price of the tool's route.
	paid  map[string]fiber.Handler
	calls sync.Map // call id -> *mcpCall
	next  atomic.Uint64
}

func init() {
	registerRoutes(func(s *Server) []Route {
		return []Route{{
			Method: fiber.MethodPost,
			Path:   mcpPath,
			Summary: "MCP tool server (JSON-RPC, streamable HTTP). initialize, tools/list and the free tools cost nothing; " +
				"every other tools/call costs the price of its HTTP route and answers 402 with that quote when unpaid.",
			Handler: s.handleMCP,
		}}
	})
	apiOperations["POST "+mcpPath] = apiOperation{
		id: "mcp",
		responses: obj{
			{"200", jsonResponse("A JSON-RPC 2.0 response (MCP over streamable HTTP, stateless, application/json).",
				obj{{"type", "object"}, {"required", []string{"jsonrpc"}}, {"properties", obj{{"jsonrpc", tConst("2.0")}}}})},
			{"400", jsonResponse("The body is not a JSON-RPC request the server can route.", ref("Error"))},
			{"402", jsonResponse("A paid tools/call without payment: the quote of the tool's route (see the 402 of that route).",
				obj{{"type", "object"}})},
			{"500", refResponse("Internal")},
		},
	}
}

// mcpState builds the tool server on first use: by then the route table and
// the paywall are fixed.
func (s *Server) mcpState() *mcpServer {
	m := &s.mcp
	m.once.Do(func() {
		m.routes = map[string]Route{}
		m.internal = fiber.New(fiber.Config{AppName: "mi-internal"})
		for _, r := range registrationOrder(s.routes) {
			if r.Path == mcpPath {
				continue
			}
			m.routes[r.Method+" "+r.Path] = r
			m.internal.Add([]string{r.Method}, r.Path, r.Handler)
		}
		srv := mcp.NewServer(&mcp.Implementation{Name: "market-intelligence", Title: "Market Intelligence Service", Version: s.d.Version},
			&mcp.ServerOptions{Instructions: "Trade-flow intelligence for crypto and tokenized US equities. Start with get_data_coverage " +
				"or get_market_summary; tools are priced per call like their HTTP routes (docs/mcp.md)."})
		for _, t := range mcpTools {
			srv.AddTool(&mcp.Tool{Name: t.name, Description: t.description(m), InputSchema: t.inputSchema()}, s.mcpToolHandler(t))
		}
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
			&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
		m.sdk = adaptor.HTTPHandler(h)
		m.paid = map[string]fiber.Handler{}
		for _, t := range mcpTools {
			r, ok := m.routes[t.route]
			if t.free || !ok || r.PriceMicroUSD == 0 || s.d.Paywall == nil {
				continue
			}
			m.paid[t.name] = s.d.Paywall.Wrap(r, s.mcpPaidCall)
		}
	})
	return m
}

// description is the tool's description for a language model, with its
// price or its unavailability.
func (t mcpTool) description(m *mcpServer) string {
	r, ok := m.routes[t.route]
	switch {
	case !ok:
		return t.desc + " Not available yet on this server (see get_data_coverage)."
	case t.free || r.PriceMicroUSD == 0:
		return t.desc + " Free."
	}
	return t.desc + " Price: " + priceUSD(r.PriceMicroUSD) + " USD per successful call."
}

// inputSchema is the JSON schema of the tool's arguments.
func (t mcpTool) inputSchema() map[string]any {
	props := map[string]any{}
	var req []string
	for _, p := range t.params {
		s := map[string]any{"type": p.kind, "description": p.desc}
		if p.kind == "array" {
			s["items"] = map[string]any{"type": "string"}
		}
		if p.enum != nil {
			s["enum"] = p.enum
		}
		props[p.name] = s
		if p.required {
			req = append(req, p.name)
		}
	}
	schema := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if req != nil {
		schema["required"] = req
	}
	return schema
}

// handleMCP serves POST /mcp. A tools/call of a paid tool runs through the
// paywall with the price of the tool's route; everything else is free.
func (s *Server) handleMCP(c fiber.Ctx) error {
	m := s.mcpState()
	c.Request().Header.Del(mcpCallHeader)
	var req struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if body := bytes.TrimSpace(c.Body()); len(body) > 0 && body[0] == '{' {
		// An unparsable body is left to the SDK, which answers a JSON-RPC
		// parse error.
		_ = json.Unmarshal(body, &req)
	}
	paid, isPaid := m.paid[req.Params.Name]
	if req.Method != "tools/call" || !isPaid {
		return m.sdk(c)
	}
	if err := paid(c); err != nil {
		return err
	}
	// mcpPaidCall reported a failed tool call with the route's status so
	// that nothing was charged; the client still gets the JSON-RPC answer.
	if st := c.Response().StatusCode(); st >= 400 && st != fiber.StatusPaymentRequired && isJSONRPC(c.Response().Body()) {
		c.Status(fiber.StatusOK)
	}
	return nil
}

// mcpPaidCall runs the SDK for a paid tools/call inside the paywall and
// answers with the status of the tool's route, so that the paywall charges
// only when the route succeeded.
func (s *Server) mcpPaidCall(c fiber.Ctx) error {
	m := &s.mcp
	id := strconv.FormatUint(m.next.Add(1), 10)
	call := &mcpCall{}
	m.calls.Store(id, call)
	defer m.calls.Delete(id)
	c.Request().Header.Set(mcpCallHeader, id)
	if err := m.sdk(c); err != nil {
		return err
	}
	if st := int(call.status.Load()); st >= 400 && c.Response().StatusCode() < 400 {
		c.Status(st)
	} else if st == 0 && c.Response().StatusCode() < 400 {
		// No tool ran (e.g. a JSON-RPC error before dispatch): not a
		// successful paid call.
		c.Status(fiber.StatusBadRequest)
	}
	return nil
}

// isJSONRPC reports whether body is a JSON-RPC 2.0 message.
func isJSONRPC(body []byte) bool {
	var v struct {
		JSONRPC string `json:"jsonrpc"`
	}
	return json.Unmarshal(body, &v) == nil && v.JSONRPC == "2.0"
}

// mcpToolHandler calls the tool's route with the arguments mapped onto its
// parameters and returns the route's JSON as the tool result; a route error
// becomes a tool error carrying the route's error body.
func (s *Server) mcpToolHandler(t mcpTool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		m := &s.mcp
		var call *mcpCall
		if req.Extra != nil && req.Extra.Header != nil {
			if v, ok := m.calls.Load(req.Extra.Header.Get(mcpCallHeader)); ok {
				call = v.(*mcpCall)
			}
		}
		status, body := s.mcpRun(ctx, m, t, req.Params.Arguments)
		if call != nil {
			call.status.Store(int32(status))
		}
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}
		if status >= 400 {
			res.IsError = true
		}
		return res, nil
	}
}

// mcpRun executes tool t with raw arguments and returns the HTTP status and
// the JSON body to hand to the model.
func (s *Server) mcpRun(ctx context.Context, m *mcpServer, t mcpTool, raw json.RawMessage) (int, []byte) {
	route, ok := m.routes[t.route]
	if !ok {
		return fiber.StatusNotImplemented, appendErrorBody(nil, "not_available",
			"the tool "+t.name+" is not available yet on this server: its data source is not connected; get_data_coverage lists the available tools")
	}
	args := map[string]any{}
	if len(bytes.TrimSpace(raw)) > 0 && string(bytes.TrimSpace(raw)) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return fiber.StatusBadRequest, appendErrorBody(nil, "invalid_arguments", "arguments must be a JSON object: "+err.Error())
		}
	}
	path, q, detail, err := t.request(route.Path, args)
	if err != nil {
		return fiber.StatusBadRequest, appendErrorBody(nil, "invalid_arguments", err.Error())
	}
	u := path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	hreq, herr := http.NewRequestWithContext(ctx, route.Method, u, nil)
	if herr != nil {
		return fiber.StatusBadRequest, appendErrorBody(nil, "invalid_arguments", "cannot build the request: "+herr.Error())
	}
	hreq.Header.Set(fiber.HeaderAccept, fiber.MIMEApplicationJSON)
	resp, herr := m.internal.Test(hreq, fiber.TestConfig{Timeout: 60 * time.Second})
	if herr != nil {
		s.d.Logger.Error("cannot run MCP tool", "tool", t.name, "err", herr)
		return fiber.StatusInternalServerError, appendErrorBody(nil, "internal", "internal server error")
	}
	defer resp.Body.Close()
	body, herr := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if herr != nil {
		return fiber.StatusInternalServerError, appendErrorBody(nil, "internal", "internal server error")
	}
	if resp.StatusCode < 300 && t.docs && detail != "full" {
		body = compactJSON(body)
	}
	return resp.StatusCode, body
}

// request maps tool arguments onto the route: the path with its parameter
// filled in and the query. It rejects unknown arguments and wrong types,
// naming the argument; values are validated by the route itself.
func (t mcpTool) request(path string, args map[string]any) (string, url.Values, string, error) {
	q := url.Values{}
	detail := ""
	for name := range args {
		if !slices.ContainsFunc(t.params, func(p mcpParam) bool { return p.name == name }) {
			names := make([]string, len(t.params))
			for i, p := range t.params {
				names[i] = p.name
			}
			return "", nil, "", fmt.Errorf("unknown argument %q; accepted arguments: %s", name, strings.Join(names, ", "))
		}
	}
	for _, p := range t.params {
		v, ok := args[p.name]
		if !ok || v == nil {
			if p.required {
				return "", nil, "", fmt.Errorf("argument %q is required", p.name)
			}
			continue
		}
		var s string
		switch x := v.(type) {
		case string:
			if p.kind != "string" {
				return "", nil, "", fmt.Errorf("argument %q must be a %s", p.name, p.kind)
			}
			s = x
		case float64:
			if p.kind != "integer" && p.kind != "number" {
				return "", nil, "", fmt.Errorf("argument %q must be a %s", p.name, p.kind)
			}
			s = strconv.FormatFloat(x, 'f', -1, 64)
		case bool:
			if p.kind != "boolean" {
				return "", nil, "", fmt.Errorf("argument %q must be a %s", p.name, p.kind)
			}
			s = strconv.FormatBool(x)
		case []any:
			if p.kind != "array" {
				return "", nil, "", fmt.Errorf("argument %q must be a %s", p.name, p.kind)
			}
			parts := make([]string, len(x))
			for i, e := range x {
				es, ok := e.(string)
				if !ok {
					return "", nil, "", fmt.Errorf("argument %q must be an array of strings", p.name)
				}
				parts[i] = es
			}
			s = strings.Join(parts, ",")
		default:
			return "", nil, "", fmt.Errorf("argument %q must be a %s", p.name, p.kind)
		}
		switch {
		case p.name == "detail":
			if s != "compact" && s != "full" {
				return "", nil, "", fmt.Errorf("argument \"detail\" must be compact or full")
			}
			detail = s
		case p.path:
			i := strings.LastIndexByte(path, ':')
			if i < 0 {
				panic("BUG: tool " + t.name + " maps " + p.name + " onto a path without a parameter")
			}
			path = path[:i] + url.PathEscape(s)
		default:
			q.Set(p.name, s)
		}
	}
	if strings.Contains(path, ":") {
		return "", nil, "", fmt.Errorf("argument %q is required", "symbol")
	}
	return path, q, detail, nil
}

// compactJSON drops the fields a CompactMarketIntelligence omits (spec §2.2)
// from every intelligence document in body, at any depth. A body that is not
// JSON is returned as is.
func compactJSON(body []byte) []byte {
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return body
	}
	v = compactValue(v)
	out, err := json.Marshal(v)
	if err != nil {
		return body
	}
	return out
}

func compactValue(v any) any {
	switch x := v.(type) {
	case []any:
		for i := range x {
			x[i] = compactValue(x[i])
		}
	case map[string]any:
		// An intelligence document has a signal and a momentumScore.
		_, sig := x["signal"]
		_, mom := x["momentumScore"]
		for k, e := range x {
			if sig && mom && slices.Contains(compactOmitted, k) {
				delete(x, k)
				continue
			}
			x[k] = compactValue(e)
		}
	}
	return v
}

// MCPTool describes one tool for /coverage and docs.
type MCPTool struct {
	Name           string `json:"name"`
	Available      bool   `json:"available"`
	PriceMicroUSD  int64  `json:"priceMicroUsd"`
	Route          string `json:"route"`
	NotAvailableBy string `json:"reason"`
}

// MCPTools lists the tools of the server with their availability and price.
func (s *Server) MCPTools() []MCPTool {
	m := s.mcpState()
	out := make([]MCPTool, 0, len(mcpTools))
	for _, t := range mcpTools {
		r, ok := m.routes[t.route]
		e := MCPTool{Name: t.name, Route: t.route, Available: ok}
		if ok && !t.free {
			e.PriceMicroUSD = r.PriceMicroUSD
		}
		if !ok {
			e.NotAvailableBy = "data source not connected yet"
		}
		out = append(out, e)
	}
	return out
}
