// Package mcp is the MCP tool server (spec §4.8) at POST /mcp, built from
// the route table: every operation that declares a Tool is a tool whose
// call runs the operation's validated handler, and a paid call is charged
// its operation's price through the paywall (docs/mcp.md).
package mcp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
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
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
)

// The MCP tool server (spec §4.8) at POST /mcp: JSON-RPC over the streamable
// HTTP transport of the official Go SDK, stateless, JSON responses. Its
// tools are the Tool declarations of the route table: every tool calls its
// operation's validated handler through an internal copy of the table
// without the paywall, and the paywall runs once, around the whole /mcp
// request, priced by the tool called (docs/mcp.md).

// Path is the route of the tool server.
const Path = "/mcp"

// priceMCP is the listed price of POST /mcp (spec §8, "MCP route"); a
// tools/call is charged its tool's route price instead.
const priceMCP = 10_000

// mcpCallHeader carries the id of an /mcp request from the Fiber handler to
// the tool handlers the SDK calls; a client-sent value is removed first.
const mcpCallHeader = "X-Mi-Mcp-Call"

// SpecTools are the tools spec §4.8 names, in the order of tools/list and
// /coverage: the 17 tools, then its three free ones; tools not named here
// follow in table order.
var SpecTools = []string{"get_market_intelligence", "get_market_summary", "get_symbol_intelligence",
	"get_top_momentum", "get_top_activity", "find_market_events", "find_unusual_activity", "find_strong_buying",
	"find_strong_selling", "compare_symbols", "get_market_regime", "pre_trade_check", "get_tokenized_equities",
	"get_market_news", "get_fundamental_intelligence", "backtest_signals", "find_opportunities",
	"get_market_preview", "get_signal_track_record_summary", "get_data_coverage"}

// mcpArg is one argument of a tool, mapped onto a query or path parameter
// of the tool's route.
type mcpArg struct {
	name     string
	in       api.In
	desc     string
	schema   schema.Obj // the argument's JSON schema; its type decides the accepted JSON values
	required bool
}

// kind is the JSON type of the argument.
func (a mcpArg) kind() string {
	if t, ok := a.schema.Get("type"); ok {
		if s, ok := t.(string); ok {
			return s
		}
	}
	return "string"
}

// mcpTool is one tool: a declared one (op set), or a tool of spec §4.8
// whose route is not served yet (pendingTools).
type mcpTool struct {
	name string
	desc string
	// route is the key "METHOD /fiber/path" of the route it calls.
	route   string
	op      *api.Operation
	args    []mcpArg
	compact func([]byte) []byte
}

// pendingTools are the tools of spec §4.8 whose routes are not built yet:
// listed, answering a not_available tool error, and free. A domain that
// declares the route with its Tool deletes its entry here
// (TestMCPToolsDeclaredOnce fails while both exist).
var pendingTools = []mcpTool{}

// detailArg is the argument of a tool whose answers are compacted.
var detailArg = mcpArg{name: "detail", schema: schema.Enum("compact", "full"),
	desc: "compact (default) drops per-minute rates, buy/sell volumes and ids to save context; full returns whole documents."}

// mcpTools returns the tools of ops (their Tool declarations) and the
// pending ones, in SpecTools order.
func mcpTools(ops []api.Operation) []mcpTool {
	var out []mcpTool
	for i := range ops {
		op := &ops[i]
		if op.Tool == nil {
			continue
		}
		t := mcpTool{name: op.Tool.Name, desc: op.Tool.Description, route: op.Key(), op: op, compact: op.Tool.Compact}
		for _, p := range op.Params {
			s := p.Spec()
			if s.ToolSchema == nil || slices.Contains(op.Tool.Omit, s.Name) {
				continue
			}
			t.args = append(t.args, mcpArg{name: s.Name, in: s.In, desc: s.Desc, schema: s.ToolSchema, required: s.Required})
		}
		if t.compact != nil {
			t.args = append(t.args, detailArg)
		}
		out = append(out, t)
	}
	out = append(out, pendingTools...)
	rank := func(name string) int {
		if i := slices.Index(SpecTools, name); i >= 0 {
			return i
		}
		return len(SpecTools)
	}
	slices.SortStableFunc(out, func(a, b mcpTool) int { return cmp.Compare(rank(a.name), rank(b.name)) })
	return out
}

// paid reports whether a call of t goes through the paywall.
func (t mcpTool) paid() bool { return t.op != nil && t.op.Paid() }

// description is the tool's description for a language model, with its
// price or its unavailability.
func (t mcpTool) description() string {
	switch {
	case t.op == nil:
		return t.desc + " Not available yet on this server (see get_data_coverage)."
	case !t.paid():
		return t.desc + " Free."
	}
	return t.desc + " Price: " + api.PriceUSD(t.op.Price) + " USD per successful call."
}

// inputSchema is the JSON schema of the tool's arguments.
func (t mcpTool) inputSchema() map[string]any {
	props := map[string]any{}
	var req []string
	for _, a := range t.args {
		s := map[string]any{"description": a.desc}
		for _, e := range a.schema {
			s[e.K] = e.V
		}
		props[a.name] = s
		if a.required {
			req = append(req, a.name)
		}
	}
	sch := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if req != nil {
		sch["required"] = req
	}
	return sch
}

// Operation declares POST /mcp over the tools of the table.
func (m *Server) Operation() api.Operation {
	free := []string{"initialize", "tools/list"}
	for _, t := range mcpTools(m.c.Ops) {
		if t.op != nil && !t.paid() {
			free = append(free, "tools/call "+t.name)
		}
	}
	quote := m.c.Quote
	quote.Desc = "A paid tools/call without payment: the quote of the tool's route, at that route's price."
	return api.Operation{
		Method: fiber.MethodPost, Path: Path, ID: "mcp", Price: priceMCP, BilledInside: true, FreeCalls: free,
		Summary: "MCP tool server (JSON-RPC, streamable HTTP), listed at 0.01 USD per call (spec §4.8): initialize, tools/list and the free tools cost nothing; " +
			"every other tools/call costs the price of its HTTP route and answers 402 with that quote when unpaid.",
		Responses: []api.Response{
			api.JSON(fiber.StatusOK, "A JSON-RPC 2.0 response (MCP over streamable HTTP, stateless, application/json).",
				schema.Obj{{"type", "object"}, {"required", []string{"jsonrpc"}}, {"properties", schema.Obj{{"jsonrpc", schema.Const("2.0")}}}}),
			api.JSON(fiber.StatusBadRequest, "The body is not a JSON-RPC request the server can route.", api.ErrorSchema),
			quote,
		},
		NoTool:  "the MCP endpoint itself",
		Handler: m.handle,
	}
}

// mcpCall is the state of one /mcp request shared with its tool handler.
type mcpCall struct {
	// status is the HTTP status the tool's route answered (0 when no tool
	// ran), so the paywall charges only for a successful tool call.
	status atomic.Int32
}

// Config is what the tool server serves and how it charges.
type Config struct {
	// Ops is the route table without POST /mcp: the operations with a Tool
	// become tools, and every operation is reachable by the tools' calls.
	Ops []api.Operation
	// Paywall wraps a paid tools/call with the price of its tool's route;
	// nil leaves every tool free.
	Paywall api.Paywall
	// Quote is the 402 a paid route answers, documented on POST /mcp.
	Quote api.Response
	// Now is the clock of the tools' date parameters; nil means time.Now.
	Now func() time.Time
	// Version is the server version in initialize.
	Version string
	// Logger receives failed tool runs; nil discards them.
	Logger *slog.Logger
}

// Server is the tool server, built on first use: by then the route table
// and the paywall are fixed.
type Server struct {
	c        Config
	once     sync.Once
	sdk      fiber.Handler
	internal *fiber.App
	tools    []mcpTool
	// paid maps a tool name to the /mcp handler wrapped by the paywall with
	// the price of the tool's route.
	paid  map[string]fiber.Handler
	calls sync.Map // call id -> *mcpCall
	next  atomic.Uint64
}

// New returns the tool server of c.
func New(c Config) *Server {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return &Server{c: c}
}

// state builds the tool server on first use.
func (m *Server) state() *Server {
	m.once.Do(func() {
		var ops []api.Operation
		for _, op := range m.c.Ops {
			if !op.BilledInside {
				ops = append(ops, op)
			}
		}
		m.internal = fiber.New(fiber.Config{AppName: "mi-internal"})
		api.Mount(m.internal, ops, m.c.Now, nil)
		m.tools = mcpTools(m.c.Ops)
		srv := sdk.NewServer(&sdk.Implementation{Name: "market-intelligence", Title: "Market Intelligence Service", Version: m.c.Version},
			&sdk.ServerOptions{Instructions: "Trade-flow intelligence for crypto and tokenized US equities. Start with get_data_coverage " +
				"or get_market_summary; tools are priced per call like their HTTP routes (docs/mcp.md)."})
		for _, t := range m.tools {
			srv.AddTool(&sdk.Tool{Name: t.name, Description: t.description(), InputSchema: t.inputSchema()}, m.toolHandler(t))
		}
		h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
			&sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
		m.sdk = adaptor.HTTPHandler(h)
		m.paid = map[string]fiber.Handler{}
		for _, t := range m.tools {
			if t.paid() && m.c.Paywall != nil {
				m.paid[t.name] = m.c.Paywall.Wrap(*t.op, m.paidCall)
			}
		}
	})
	return m
}

// handle serves POST /mcp. A tools/call of a paid tool runs through the
// paywall with the price of the tool's route; everything else is free.
func (m *Server) handle(c fiber.Ctx) error {
	m.state()
	c.Request().Header.Del(mcpCallHeader)
	var req struct {
		Method string `json:"method"`
		Params struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
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
	if t, ok := m.tool(req.Params.Name); ok {
		if _, _, _, status, _ := m.checkCall(t, req.Params.Arguments); status != 0 {
			// Invalid arguments: the call is answered with its tool error
			// outside the paywall, like an invalid HTTP call (nothing is
			// reserved or debited).
			return m.sdk(c)
		}
	}
	if err := paid(c); err != nil {
		return err
	}
	// paidCall reported a failed tool call with the route's status so
	// that nothing was charged; the client still gets the JSON-RPC answer.
	if st := c.Response().StatusCode(); st >= 400 && st != fiber.StatusPaymentRequired && isJSONRPC(c.Response().Body()) {
		c.Status(fiber.StatusOK)
	}
	return nil
}

// tool returns the tool named name.
func (m *Server) tool(name string) (mcpTool, bool) {
	for _, t := range m.tools {
		if t.name == name && t.op != nil {
			return t, true
		}
	}
	return mcpTool{}, false
}

// paidCall runs the SDK for a paid tools/call inside the paywall and
// answers with the status of the tool's route, so that the paywall charges
// only when the route succeeded.
func (m *Server) paidCall(c fiber.Ctx) error {
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

// toolHandler calls the tool's route with the arguments mapped onto its
// parameters and returns the route's JSON as the tool result; a route error
// becomes a tool error carrying the route's error body.
func (m *Server) toolHandler(t mcpTool) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var call *mcpCall
		if req.Extra != nil && req.Extra.Header != nil {
			if v, ok := m.calls.Load(req.Extra.Header.Get(mcpCallHeader)); ok {
				call = v.(*mcpCall)
			}
		}
		status, body := m.run(ctx, t, req.Params.Arguments)
		if call != nil {
			call.status.Store(int32(status))
		}
		res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(body)}}}
		if status >= 400 {
			res.IsError = true
		}
		return res, nil
	}
}

// run executes tool t with raw arguments and returns the HTTP status and
// the JSON body to hand to the model.
func (m *Server) run(ctx context.Context, t mcpTool, raw json.RawMessage) (int, []byte) {
	if t.op == nil {
		return fiber.StatusNotImplemented, api.AppendErrorBody(nil, "not_available",
			"the tool "+t.name+" is not available yet on this server: its data source is not connected; get_data_coverage lists the available tools")
	}
	path, q, detail, status, body := m.checkCall(t, raw)
	if status != 0 {
		return status, body
	}
	u := path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	hreq, herr := http.NewRequestWithContext(ctx, t.op.Method, u, nil)
	if herr != nil {
		return fiber.StatusBadRequest, api.AppendErrorBody(nil, "invalid_arguments", "cannot build the request: "+herr.Error())
	}
	hreq.Header.Set(fiber.HeaderAccept, fiber.MIMEApplicationJSON)
	resp, herr := m.internal.Test(hreq, fiber.TestConfig{Timeout: 60 * time.Second})
	if herr != nil {
		m.c.Logger.Error("cannot run MCP tool", "tool", t.name, "err", herr)
		return fiber.StatusInternalServerError, api.AppendErrorBody(nil, "internal", "internal server error")
	}
	defer resp.Body.Close()
	body, herr = io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if herr != nil {
		return fiber.StatusInternalServerError, api.AppendErrorBody(nil, "internal", "internal server error")
	}
	if resp.StatusCode < 300 && t.compact != nil && detail != "full" {
		body = t.compact(body)
	}
	return resp.StatusCode, body
}

// checkCall maps a call's raw arguments onto t's route and checks them as
// the route checks its parameters (api.Operation.CheckParams), without
// running anything: status 0 and the request when they are valid, else the
// status and JSON error body the call answers (400 naming the argument or
// parameter; 404 not_found for a path value that makes the path no route,
// e.g. a symbol that is no symbol). handle runs it before the paywall, so
// an invalid call is never charged.
func (m *Server) checkCall(t mcpTool, raw json.RawMessage) (path string, q url.Values, detail string, status int, body []byte) {
	args := map[string]any{}
	if len(bytes.TrimSpace(raw)) > 0 && string(bytes.TrimSpace(raw)) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return "", nil, "", fiber.StatusBadRequest, api.AppendErrorBody(nil, "invalid_arguments", "arguments must be a JSON object: "+err.Error())
		}
	}
	path, q, detail, err := t.request(t.op.Path, args)
	if err != nil {
		return "", nil, "", fiber.StatusBadRequest, api.AppendErrorBody(nil, "invalid_arguments", err.Error())
	}
	get := func(in api.In, name string) string {
		if in == api.InPath {
			v, _ := args[name].(string)
			return v
		}
		return q.Get(name)
	}
	if e := t.op.CheckParams(get, m.c.Now); e != nil {
		if e.NotFound {
			return "", nil, "", fiber.StatusNotFound, api.AppendErrorBody(nil, api.CodeNotFound, e.Message)
		}
		return "", nil, "", fiber.StatusBadRequest, e.AppendBody(nil)
	}
	return path, q, detail, 0, nil
}

// request maps tool arguments onto the route: the path with its parameters
// filled in and the query. It rejects unknown arguments and wrong types,
// naming the argument; values are validated by the route itself.
func (t mcpTool) request(path string, args map[string]any) (string, url.Values, string, error) {
	q := url.Values{}
	detail := ""
	for name := range args {
		if !slices.ContainsFunc(t.args, func(a mcpArg) bool { return a.name == name }) {
			names := make([]string, len(t.args))
			for i, a := range t.args {
				names[i] = a.name
			}
			return "", nil, "", fmt.Errorf("unknown argument %q; accepted arguments: %s", name, strings.Join(names, ", "))
		}
	}
	for _, a := range t.args {
		v, ok := args[a.name]
		if !ok || v == nil {
			if a.required {
				return "", nil, "", fmt.Errorf("argument %q is required", a.name)
			}
			continue
		}
		kind := a.kind()
		var s string
		switch x := v.(type) {
		case string:
			if kind != "string" {
				return "", nil, "", fmt.Errorf("argument %q must be a %s", a.name, kind)
			}
			s = x
		case float64:
			if kind != "integer" && kind != "number" {
				return "", nil, "", fmt.Errorf("argument %q must be a %s", a.name, kind)
			}
			s = strconv.FormatFloat(x, 'f', -1, 64)
		case bool:
			if kind != "boolean" {
				return "", nil, "", fmt.Errorf("argument %q must be a %s", a.name, kind)
			}
			s = strconv.FormatBool(x)
		case []any:
			if kind != "array" {
				return "", nil, "", fmt.Errorf("argument %q must be a %s", a.name, kind)
			}
			parts := make([]string, len(x))
			for i, e := range x {
				es, ok := e.(string)
				if !ok {
					return "", nil, "", fmt.Errorf("argument %q must be an array of strings", a.name)
				}
				parts[i] = es
			}
			s = strings.Join(parts, ",")
		default:
			return "", nil, "", fmt.Errorf("argument %q must be a %s", a.name, kind)
		}
		switch {
		case a.name == detailArg.name && t.compact != nil:
			if s != "compact" && s != "full" {
				return "", nil, "", fmt.Errorf("argument \"detail\" must be compact or full")
			}
			detail = s
		case a.in == api.InPath:
			seg := "/:" + a.name
			i := strings.Index(path, seg)
			if i < 0 {
				panic("BUG: tool " + t.name + " maps " + a.name + " onto a path without that parameter")
			}
			path = path[:i+1] + url.PathEscape(s) + path[i+len(seg):]
		default:
			q.Set(a.name, s)
		}
	}
	if i := strings.Index(path, "/:"); i >= 0 {
		name, _, _ := strings.Cut(path[i+2:], "/")
		return "", nil, "", fmt.Errorf("argument %q is required", name)
	}
	return path, q, detail, nil
}

// Tool describes one tool for /coverage and docs.
type Tool struct {
	Name           string `json:"name"`
	Available      bool   `json:"available"`
	PriceMicroUSD  int64  `json:"priceMicroUsd"`
	Route          string `json:"route"`
	NotAvailableBy string `json:"reason"`
}

// Tools lists the tools of the server with their availability and price.
func (m *Server) Tools() []Tool {
	m.state()
	out := make([]Tool, 0, len(m.tools))
	for _, t := range m.tools {
		e := Tool{Name: t.name, Route: t.route, Available: t.op != nil}
		if t.paid() {
			e.PriceMicroUSD = t.op.Price
		}
		if t.op == nil {
			e.NotAvailableBy = "data source not connected yet"
		}
		out = append(out, e)
	}
	return out
}
