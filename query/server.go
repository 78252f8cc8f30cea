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
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/gofiber/fiber/v3/middleware/recover"

	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/query/api"
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

// Paywall is the slot the payments room fills (api.Paywall): it wraps the
// handler of every priced operation, and is never asked to wrap a free one.
type Paywall = api.Paywall

// Server is the query tier: a Fiber app with the route table registered.
type Server struct {
	d       Deps
	app     *fiber.App
	ops     []api.Operation
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
	s.ops = s.table()
	if err := api.CheckTable(s.ops); err != nil {
		panic("BUG: the route table is incomplete: " + err.Error())
	}
	api.Mount(s.app, s.ops, s.d.Now, func(op api.Operation, h fiber.Handler) fiber.Handler {
		if op.Paid() && !op.BilledInside && d.Paywall != nil {
			return d.Paywall.Wrap(op, h)
		}
		return h
	})
	return s
}

// middlewares run before every route, in registration order (CORS, the
// HTTP metrics);
// feature files add theirs with registerMiddleware in an init function.
var middlewares []func(*Server) fiber.Handler

// registerMiddleware adds an app-wide middleware to every Server.
func registerMiddleware(m func(*Server) fiber.Handler) { middlewares = append(middlewares, m) }

// routeGroups are the operations of feature files (history, payments,
// alerts, MCP, ...), registered with registerRoutes in an init function.
var routeGroups []func(*Server) []api.Operation

// registerRoutes adds a feature's operations to every Server's table.
func registerRoutes(group func(*Server) []api.Operation) { routeGroups = append(routeGroups, group) }

// table returns the route table: the intelligence routes, then every
// registered group in registration order, then POST /mcp and GET
// /openapi.json, which are derived from the others.
func (s *Server) table() []api.Operation {
	ops := s.intelligenceOps()
	for _, g := range routeGroups {
		ops = append(ops, g(s)...)
	}
	ops = append(ops, s.mcpOperation(ops))
	return append(ops, s.openAPIOperation())
}

// App returns the Fiber app, for tests and for mounting.
func (s *Server) App() *fiber.App { return s.app }

// Operations returns a copy of the route table in table order. Handlers are
// the operations' own, without validation and paywall.
func (s *Server) Operations() []api.Operation { return slices.Clone(s.ops) }

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
		body = api.AppendErrorBody(nil, api.CodeNotFound, "no route "+c.Method()+" "+c.Path()+"; see /openapi.json and docs/api.md")
	case code == fiber.StatusMethodNotAllowed:
		body = api.AppendErrorBody(nil, "method_not_allowed", "method "+c.Method()+" is not allowed on "+c.Path())
	case code >= 400 && code < 500:
		body = api.AppendErrorBody(nil, "bad_request", "the request cannot be served")
	default:
		code = fiber.StatusInternalServerError
		s.d.Logger.Error("cannot serve request", "method", c.Method(), "path", c.Path(), "err", err)
		body = api.AppendErrorBody(nil, "internal", "internal server error")
	}
	return api.SendJSON(c, code, body)
}

func (s *Server) handleHealthz(c fiber.Ctx) error {
	return api.SendJSON(c, fiber.StatusOK, []byte(`{"status":"ok"}`))
}
