// Package query is the HTTP query tier: the Fiber app, its route table with
// the price of every route, parameter validation, the JSON bodies and the
// slot where the paywall wraps priced routes. The routes, their parameters
// and bodies are described in docs/api.md.
package query

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/gofiber/fiber/v3/middleware/recover"

	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/query/ledger"

	"github.com/marketintel/mi/sinks/alerts"

	"github.com/marketintel/mi/query/history"
	"github.com/marketintel/mi/sinks/views"
)

// Deps are what the query tier reads and how it is configured.
type Deps struct {
	// Views holds the latest documents the live routes serve. Nil means
	// empty views (every symbol answers 404).
	Views *views.Views
	// Stats gives per-source ingestion stats and dead-letter counts for
	// /status. Nil means no sources.
	Stats *pipeline.Stats
	// Version is the service version shown by /status.
	Version string
	// Now is the clock for freshness and generation times; nil means
	// time.Now.
	Now func() time.Time
	// Paywall wraps the handler of every priced route; nil leaves every
	// route open.
	Paywall Paywall
	// Logger receives server errors and recovered panics; nil discards them.
	Logger *slog.Logger
	// Liquidity answers the liquidity block of /api/v1/intelligence/{symbol}
	// from the on-chain pool states; nil answers the "none" block.
	Liquidity *views.Liquidity

	// Ledger holds API keys and credit balances for the credits routes
	// (credits.go); nil makes them answer 503.
	Ledger *ledger.SQL

	// Alerts is the alert dispatcher; its Store is the outbox the alert
	// routes manage (query/alerts.go). Nil answers 404 (unavailable) on
	// those routes.
	Alerts *alerts.Dispatcher

	// History reads the Parquet history (candles, datasets, query,
	// backtest, track record; docs/history.md). Nil answers those routes
	// 404 no_data.
	History *history.Store
}

// Paywall is the slot the payments task fills: it wraps the handler of every
// route whose price is above zero, and is never asked to wrap a free route.
// Wrap is called once per route, when the Server is built.
type Paywall interface {
	Wrap(r Route, next fiber.Handler) fiber.Handler
}

// Route is one entry of the route table, the single source of the paths and
// prices of the service.
type Route struct {
	// Method is the HTTP method, e.g. "GET".
	Method string
	// Path is in Fiber path syntax, e.g. "/api/v1/intelligence/:symbol".
	Path string
	// PriceMicroUSD is the price of one successful call in USDC atomic
	// units (micro-USD); 0 means free.
	PriceMicroUSD int64
	// X402Only marks a route that only an x402 payment pays (the credits
	// buy routes): X-API-Key and SIGN-IN-WITH-X do not pay for it, and an
	// X-API-Key on it names the key to top up.
	X402Only bool
	// Assets are the asset symbols the route's 402 quotes; nil means USDC
	// only. The credits buy routes accept USDC and EURC.
	Assets []string
	// Summary is one line describing the route, for pricing pages and
	// OpenAPI.
	Summary string
	// Handler serves the route. In the table Routes returns it is the
	// route's own handler, without the paywall.
	Handler fiber.Handler
}

// Server is the query tier: a Fiber app with the route table registered.
type Server struct {
	d       Deps
	app     *fiber.App
	routes  []Route
	markets marketCache // cross-symbol step per window (market_cache.go)
	// mcp is the MCP tool server, built on first use (mcp.go).
	mcp mcpServer
	// coverage is the body of /coverage, rendered on first use (coverage.go).
	coverage coverageBody
}

// New builds the server from d. It registers every route of the table, the
// paywall around the priced ones, a recover middleware that turns panics into
// 500 JSON, and JSON bodies for unknown routes and server errors.
func New(d Deps) *Server {
	if d.Views == nil {
		d.Views = views.New()
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{d: d}
	s.app = fiber.New(fiber.Config{
		AppName:      "mi",
		ErrorHandler: s.handleError,
	})
	s.app.Use(recover.New(recover.Config{
		EnableStackTrace: true,
		StackTraceHandler: func(c fiber.Ctx, e any) {
			s.d.Logger.Error("panic in handler", "method", c.Method(), "path", c.Path(),
				"panic", fmt.Sprint(e), "stack", string(debug.Stack()))
		},
	}))
	for _, mw := range middlewares {
		s.app.Use(mw(s))
	}
	s.routes = s.table()
	for _, r := range registrationOrder(s.routes) {
		if r.Handler == nil {
			panic("BUG: route " + r.Method + " " + r.Path + " has no handler")
		}
		if r.PriceMicroUSD < 0 {
			panic("BUG: route " + r.Method + " " + r.Path + " has a negative price")
		}
		h := r.Handler
		if r.PriceMicroUSD > 0 && d.Paywall != nil {
			h = d.Paywall.Wrap(r, h)
		}
		s.app.Add([]string{r.Method}, r.Path, h)
	}
	s.app.Get(openAPIPath, openAPIHandler(s.routes)) // free, outside the table; see openapi.go
	return s
}

// Prices of the routes in micro-USD (spec §8).
const (
	priceIntelligenceList   = 10_000
	priceIntelligenceSymbol = 5_000
	priceSummary            = 10_000
	priceTopMomentum        = 5_000
	priceTopActivity        = 5_000
	priceUnusual            = 10_000
	priceEvents             = 10_000
	priceBuying             = 5_000
	priceSelling            = 5_000
	priceCompare            = 10_000
	priceRegime             = 5_000
	priceSnapshot           = 1_000
)

// middlewares run before every route, in registration order (CORS, the
// HTTP metrics);
// feature files add theirs with registerMiddleware in an init function.
var middlewares []func(*Server) fiber.Handler

// registerMiddleware adds an app-wide middleware to every Server.
func registerMiddleware(m func(*Server) fiber.Handler) { middlewares = append(middlewares, m) }

// routeGroups are the route tables of feature files (history, payments,
// alerts, MCP, ...), registered with registerRoutes in an init function.
var routeGroups []func(*Server) []Route

// registerRoutes adds a feature's routes to every Server's table. Each
// feature also adds its operations to apiOperations and its schemas with
// registerSchema, in the same file or next to it.
func registerRoutes(group func(*Server) []Route) { routeGroups = append(routeGroups, group) }

// table returns the route table: the intelligence routes below, then every
// registered group in registration order.
func (s *Server) table() []Route {
	routes := s.intelligenceRoutes()
	for _, g := range routeGroups {
		routes = append(routes, g(s)...)
	}
	return routes
}

// intelligenceRoutes are the live market-intelligence routes and the
// operational ones.
func (s *Server) intelligenceRoutes() []Route {
	return []Route{
		{
			Method:        fiber.MethodGet,
			Path:          "/api/v1/intelligence",
			PriceMicroUSD: priceIntelligenceList,
			Summary:       "Latest intelligence documents of every covered symbol for a window, most active first.",
			Handler:       s.handleIntelligenceList,
		},
		{
			Method:        fiber.MethodGet,
			Path:          "/api/v1/intelligence/summary",
			PriceMicroUSD: priceSummary,
			Summary:       "Market summary of a window: breadth, averages, regime, top lists and data freshness.",
			Handler:       s.handleSummary,
		},
		{
			Method:        fiber.MethodGet,
			Path:          "/api/v1/intelligence/top-momentum",
			PriceMicroUSD: priceTopMomentum,
			Summary:       "Covered symbols with the highest momentum score.",
			Handler:       s.handleTopMomentum,
		},
		{
			Method:        fiber.MethodGet,
			Path:          "/api/v1/intelligence/top-activity",
			PriceMicroUSD: priceTopActivity,
			Summary:       "Covered symbols with the most trades, then volume.",
			Handler:       s.handleTopActivity,
		},
		{
			Method:        fiber.MethodGet,
			Path:          "/api/v1/intelligence/unusual",
			PriceMicroUSD: priceUnusual,
			Summary:       "Covered symbols with an anomaly score of at least minAnomaly and at least minTrades trades.",
			Handler:       s.handleUnusual,
		},
		{
			Method:        fiber.MethodGet,
			Path:          "/api/v1/intelligence/events",
			PriceMicroUSD: priceEvents,
			Summary:       "Covered symbols with a market event (eventType other than NORMAL).",
			Handler:       s.handleEvents,
		},
		{
			Method:        fiber.MethodGet,
			Path:          "/api/v1/intelligence/buying",
			PriceMicroUSD: priceBuying,
			Summary:       "Covered symbols with a buy pressure of at least minBuyPressure, highest first.",
			Handler:       s.handleBuying,
		},
		{
			Method:        fiber.MethodGet,
			Path:          "/api/v1/intelligence/selling",
			PriceMicroUSD: priceSelling,
			Summary:       "Summary of the covered symbols with a buy pressure of at most maxBuyPressure, lowest first.",
			Handler:       s.handleSelling,
		},
		{
			Method:        fiber.MethodGet,
			Path:          "/api/v1/intelligence/compare",
			PriceMicroUSD: priceCompare,
			Summary:       "Compact intelligence of up to 20 symbols side by side.",
			Handler:       s.handleCompare,
		},
		{
			Method:        fiber.MethodGet,
			Path:          "/api/v1/intelligence/regime",
			PriceMicroUSD: priceRegime,
			Summary:       "Market regime of a window (BULLISH, BEARISH, MIXED, NO_DATA) with breadth and leaders.",
			Handler:       s.handleRegime,
		},
		{
			Method:        fiber.MethodGet,
			Path:          "/api/v1/intelligence/snapshot/:symbol",
			PriceMicroUSD: priceSnapshot,
			Summary:       "Cheapest live read of one symbol: price, change, buy pressure, signal, confidence.",
			Handler:       s.handleSnapshot,
		},
		{
			Method:        fiber.MethodGet,
			Path:          "/api/v1/intelligence/:symbol",
			PriceMicroUSD: priceIntelligenceSymbol,
			Summary:       "Latest intelligence document of one symbol for a window.",
			Handler:       s.handleIntelligenceSymbol,
		},
		{
			Method:  fiber.MethodGet,
			Path:    "/status",
			Summary: "Ingestion state and freshness per source, dead letters and view counts.",
			Handler: s.handleStatus,
		},
		{
			Method:  fiber.MethodGet,
			Path:    "/healthz",
			Summary: "Liveness probe.",
			Handler: s.handleHealthz,
		},
	}
}

// registrationOrder returns routes with every path that has parameters after
// the paths without: Fiber matches in registration order, so a fixed path
// such as /api/v1/intelligence/summary must come before
// /api/v1/intelligence/:symbol.
func registrationOrder(routes []Route) []Route {
	out := slices.Clone(routes)
	slices.SortStableFunc(out, func(a, b Route) int {
		pa, pb := strings.ContainsAny(a.Path, ":*+"), strings.ContainsAny(b.Path, ":*+")
		switch {
		case pa == pb:
			return 0
		case pa:
			return 1
		}
		return -1
	})
	return out
}

// App returns the Fiber app, for tests and for mounting.
func (s *Server) App() *fiber.App { return s.app }

// Routes returns a copy of the route table in table order. Handlers are the
// routes' own, without the paywall.
func (s *Server) Routes() []Route { return slices.Clone(s.routes) }

// Listen serves HTTP on addr (e.g. ":8080") until Shutdown; it returns the
// error that stopped the server.
func (s *Server) Listen(addr string) error {
	if err := s.app.Listen(addr, fiber.ListenConfig{DisableStartupMessage: true}); err != nil {
		return fmt.Errorf("cannot serve HTTP on %s: %w", addr, err)
	}
	return nil
}

// Shutdown stops accepting connections and waits for the requests in flight
// to finish, or for ctx to end.
func (s *Server) Shutdown(ctx context.Context) error {
	if err := s.app.ShutdownWithContext(ctx); err != nil {
		return fmt.Errorf("cannot shut down the HTTP server: %w", err)
	}
	return nil
}

// handleError turns an error returned by a handler or middleware (including
// a recovered panic) into a JSON body. Client errors Fiber raises keep their
// status; everything else is a 500 whose body says nothing about the cause.
func (s *Server) handleError(c fiber.Ctx, err error) error {
	var fe *fiber.Error
	code := fiber.StatusInternalServerError
	if errors.As(err, &fe) {
		code = fe.Code
	}
	var body []byte
	switch {
	case code == fiber.StatusNotFound:
		body = appendErrorBody(nil, "not_found", "no route "+c.Method()+" "+c.Path()+"; see /openapi.json and docs/api.md")
	case code == fiber.StatusMethodNotAllowed:
		body = appendErrorBody(nil, "method_not_allowed", "method "+c.Method()+" is not allowed on "+c.Path())
	case code >= 400 && code < 500:
		body = appendErrorBody(nil, "bad_request", "the request cannot be served")
	default:
		code = fiber.StatusInternalServerError
		s.d.Logger.Error("cannot serve request", "method", c.Method(), "path", c.Path(), "err", err)
		body = appendErrorBody(nil, "internal", "internal server error")
	}
	return sendJSON(c, code, body)
}

// sendJSON answers with status and a copy of body as application/json.
func sendJSON(c fiber.Ctx, status int, body []byte) error {
	c.Status(status)
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	c.Response().SetBody(body)
	return nil
}

func (s *Server) handleHealthz(c fiber.Ctx) error {
	return sendJSON(c, fiber.StatusOK, []byte(`{"status":"ok"}`))
}
