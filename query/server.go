// Package query is the HTTP query tier: it assembles the rooms of the API
// (market: the live routes; history: the Parquet history; subscriptions:
// the alerts; paywall: the payments, credit packs and card checkout; news:
// headlines and filings; sec: fundamentals and insiders; mcp: the tool
// server; openapi: the interface description; pages: the pages for
// browsers) into one route table, mounts
// it on a Fiber app with the paywall around the priced operations, and
// serves the routes derived from the table and the operational ones:
// /pricing, /transparency, the x402 resource manifest, security.txt,
// /coverage, /status, /healthz and /metrics. docs/architecture.md draws the
// rooms; docs/api.md describes the routes.
package query

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"slices"
	"time"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sources/token"
	tokenroutes "github.com/marketintel/mi/query/token"

	"github.com/gofiber/fiber/v3"
	"github.com/gofiber/fiber/v3/middleware/recover"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/stats"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/history"
	"github.com/marketintel/mi/query/market"
	"github.com/marketintel/mi/query/mcp"
	"github.com/marketintel/mi/query/news"
	"github.com/marketintel/mi/query/openapi"
	"github.com/marketintel/mi/query/pages"
	"github.com/marketintel/mi/query/paywall"
	"github.com/marketintel/mi/query/paywall/checkout"
	"github.com/marketintel/mi/query/paywall/ledger"
	"github.com/marketintel/mi/query/positioning"
	"github.com/marketintel/mi/query/rates"
	"github.com/marketintel/mi/query/sec"
	"github.com/marketintel/mi/query/subscriptions"
	"github.com/marketintel/mi/query/web"
	"github.com/marketintel/mi/sinks/alerts"
	"github.com/marketintel/mi/sinks/newsview"
	"github.com/marketintel/mi/sinks/ratesview"
	"github.com/marketintel/mi/sinks/views"
)

// Deps are what the query tier reads and how it is configured.
type Deps struct {
	// Views holds the latest documents the live routes serve. Nil means
	// empty views (every symbol answers 404).
	Views *views.Views
	// Stats gives per-source ingestion stats and dead-letter counts for
	// /status. Nil means no sources.
	Stats *stats.Stats
	// Version is the service version shown by /status.
	Version string
	// Now is the clock for freshness and generation times; nil means
	// time.Now.
	Now func() time.Time
	// Paywall wraps the handler of every priced operation; nil leaves every
	// route open.
	Paywall api.Paywall
	// Logger receives server errors and recovered panics; nil discards them.
	Logger *slog.Logger
	// Liquidity answers the liquidity block of /api/v1/intelligence/{symbol}
	// from the on-chain pool states; nil answers the "none" block.
	Liquidity *views.Liquidity

	// Ledger holds API keys and credit balances for the credits routes
	// (query/paywall); nil makes them answer 503.
	Ledger *ledger.SQL

	// Alerts is the alert dispatcher; its Store is the outbox the alert
	// routes manage (query/subscriptions). Nil answers 404 (unavailable)
	// on those routes.
	Alerts *alerts.Dispatcher
	// Events are the alert events whose detector runs in this instance
	// (the stages register them): the only events an alert subscription
	// may name, marked live in /coverage. Nil: none.
	Events *operators.LiveEvents

	// Freshness is the health registry of the polled sources and chain
	// readers (one per process, shared by every source: sources.Config.Env)
	// that /status shows; nil shows none.
	Freshness *sources.Registry

	// Rates is the rates view (sinks/ratesview, followed from
	// mi.rates.v1); nil answers the rates routes 404 no_data.
	Rates *ratesview.View

	// Positioning is the perp positioning view (sinks/views, followed
	// from mi.positioning.v1); nil answers its route 404 no_data.
	Positioning *views.Positioning

	// History reads the Parquet history (candles, datasets, query,
	// backtest, track record; docs/history.md). Nil answers those routes
	// 404 no_data.
	History *history.Store

	// SEC builds the fundamentals and insiders answers from EDGAR
	// (query/sec; docs/fundamentals.md, docs/insiders.md). Nil answers
	// those routes 404 no_data.
	SEC *sec.Service

	// News is the news view the news routes read (sinks/newsview,
	// docs/news.md). Nil answers them 404 no_data.
	News *newsview.View

	// Token reads token flows and risk reports from the chains
	// (pipeline/sources/token, docs/token.md). Nil answers those routes 503.
	Token *token.Reader

	// Checkout sells the credit packs by card (docs/checkout.md); nil
	// answers its routes 404 (card checkout off).
	Checkout *checkout.Checkout
}

// Paywall is the slot the payments room fills (api.Paywall).
type Paywall = api.Paywall

// Server is the query tier: a Fiber app with the route table registered.
type Server struct {
	d    Deps
	app  *fiber.App
	ops  []api.Operation
	live *market.Routes
	mcp  *mcp.Server
	// coverage is the body of /coverage, rendered on first use (coverage.go).
	coverage coverageBody
}

// New builds the server from d. It assembles the route table, checks every
// declaration (a table that lacks a price, a documented answer or a tool
// decision is a bug, and panics), mounts each operation behind the
// validation of its parameters and, when priced, the paywall, and adds a
// recover middleware that turns panics into 500 JSON, CORS, the HTTP
// metrics, and JSON bodies for unknown routes and server errors.
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
	s.app.Use(corsMiddleware())
	s.app.Use(s.metricsMiddleware())
	mc := market.Config{Views: d.Views, Liquidity: d.Liquidity, Now: d.Now, Positioning: d.Positioning}
	if d.News != nil {
		mc.News = viewNews{d.News}
	}
	if d.History != nil {
		mc.SmartMoney = storeSmartMoney{d.History}
		mc.TrackRecord = storeTrackRecord{d.History}
		mc.Candles = newStoreCandles(market.LiveCandles(d.Views), d.History)
	}
	s.live = market.New(mc)
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

// table returns the route table: the rooms' operations, this package's
// own, then POST /mcp and GET /openapi.json, which are derived from the
// others. Adding a route to a room adds it here; a new room is one more
// line.
func (s *Server) table() []api.Operation {
	ops := s.live.Operations()
	ops = append(ops, s.operations()...)
	ops = append(ops, history.NewRoutes(s.d.History, s.d.Now).Operations()...)
	ops = append(ops, subscriptions.New(s.d.Alerts, s.d.Events).Operations()...)
	ops = append(ops, paywall.NewCredits(s.d.Ledger, s.d.Now, s.d.Logger).Operations()...)
	ops = append(ops, news.New(s.d.News).Operations()...)
	ops = append(ops, sec.NewRoutes(s.d.SEC).Operations()...)
	ops = append(ops, tokenroutes.New(s.d.Token).Operations()...)
	ops = append(ops, rates.New(s.d.Rates, s.d.Now).Operations()...)
	ops = append(ops, positioning.New(s.d.Positioning, s.d.Views, s.d.Now).Operations()...)
	card := s.d.Checkout
	if card == nil {
		card = checkout.Off()
	}
	ops = append(ops, card.Operations()...)
	// The pages: HTML representations of free JSON routes, the home page
	// and the assets (docs/pages.md).
	pg := pages.New(pages.Config{Table: func() []api.Operation { return s.ops }, CardCheckout: card.Enabled(),
		Now: s.d.Now, Logger: s.d.Logger})
	ops = pg.Represent(ops)
	ops = append(ops, pg.Operations()...)
	ops = append(ops, web.AssetsOperation())
	s.mcp = mcp.New(mcp.Config{Ops: slices.Clone(ops), Paywall: s.d.Paywall, Quote: paywall.Responses()[0],
		Now: s.d.Now, Version: s.d.Version, Logger: s.d.Logger})
	ops = append(ops, s.mcp.Operation())
	return append(ops, openapi.Operation(func() []api.Operation { return s.ops }, paywall.Responses()))
}

// operations are the routes of this package: the operational ones and the
// ones derived from the table.
func (s *Server) operations() []api.Operation {
	ops := []api.Operation{s.statusOperation(), s.healthzOperation(), s.coverageOperation(), s.metricsOperation()}
	return append(ops, s.pricingOperations()...)
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

// Serve serves the API on ln, which the caller opened (so it can log the
// address a port 0 was given), until Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	if err := s.app.Listener(ln, fiber.ListenConfig{DisableStartupMessage: true}); err != nil {
		return fmt.Errorf("cannot serve HTTP on %s: %w", ln.Addr(), err)
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
// A path no operation declares reaches it as Fiber's 404.
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
		body = api.AppendErrorBody(nil, api.CodeInternal, "internal server error")
	}
	return api.SendJSON(c, code, body)
}
