// Package rates serves the rates routes (spec §4.6: the Treasury curve and
// overnight rates, DeFi lending against the 3-month bill, tokenized
// treasury supply, Treasury auctions) from the rates view
// (sinks/ratesview, docs/rates.md). The handlers validate, ask the view
// and render; every figure of an answer carries its source, its
// observation date and when the service read it.
package rates

import (
	"errors"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/sinks/ratesview"
)

// Prices of spec §8, micro-USD.
const (
	priceCurve      = 5_000  // 0.005 USD
	priceDefiSpread = 5_000  // 0.005 USD
	priceTokenized  = 10_000 // 0.01 USD
	priceAuctions   = 5_000  // 0.005 USD
)

// MCP tool names of the four routes (docs/mcp.md); the spec's 17 names
// are unchanged.
const (
	ToolCurve      = "get_treasury_curve"
	ToolDefiSpread = "get_defi_rate_spread"
	ToolTokenized  = "get_tokenized_treasuries"
	ToolAuctions   = "get_treasury_auctions"
)

// Routes serve the rates routes over one view.
type Routes struct {
	view *ratesview.View
	now  func() time.Time
}

// New returns the routes over v (nil: every route answers 404 no_data);
// now is the server clock (the time of the question).
func New(v *ratesview.View, now func() time.Time) *Routes {
	if now == nil {
		now = time.Now
	}
	return &Routes{view: v, now: now}
}

// Operations are the rates routes.
func (rt *Routes) Operations() []api.Operation {
	return []api.Operation{rt.curveOperation(), rt.defiSpreadOperation(), rt.tokenizedOperation(), rt.auctionsOperation()}
}

var daysParam = api.Int{Name: "days", Desc: "Days of auctions to show, counted back from the newest auction with results (and as many ahead for the announced ones).",
	Min: ratesview.MinAuctionDays, Max: ratesview.MaxAuctionDays, Default: ratesview.DefaultAuctionDays}

func (rt *Routes) curveOperation() api.Operation {
	return api.Operation{
		Method: fiber.MethodGet, Path: "/api/v1/rates/curve", ID: "getRatesCurve",
		Summary: "Treasury par yield curve (1M to 30Y) and real curve with change versus the previous business day, slopes with inversion flags, 10-year breakeven, SOFR, EFFR and €STR.",
		Price:   priceCurve,
		Responses: []api.Response{
			api.JSON(fiber.StatusOK, "The latest curves, slopes, breakeven and overnight rates, each figure with its own date and source.", curveSchema),
			api.JSON(fiber.StatusNotFound, "No curve and no overnight rate read yet; not charged.", noDataSchema),
		},
		Tool: &api.Tool{Name: ToolCurve,
			Description: "US Treasury par yield curve (1M-30Y) and real curve with day-over-day changes, 2s10s/3m10y/5s30s/3m2y slopes with inversion flags, 10-year breakeven inflation, and SOFR, EFFR and euro short-term rate, each with its date and source. Use to read the rates backdrop."},
		Handler: rt.handleCurve,
	}
}

func (rt *Routes) defiSpreadOperation() api.Operation {
	return api.Operation{
		Method: fiber.MethodGet, Path: "/api/v1/rates/defi-spread", ID: "getRatesDefiSpread",
		Summary: "Aave v3 supply and variable borrow rates per chain versus the 3-month bill, the average spread and a DEFI_PREMIUM / IN_LINE / TREASURY_PREMIUM signal at ±50 bp.",
		Price:   priceDefiSpread,
		Responses: []api.Response{
			api.JSON(fiber.StatusOK, "Per chain rates and spread; a chain whose read failed or is old is marked stale and left out of the average.", defiSchema),
			api.JSON(fiber.StatusNotFound, "No lending rate read yet; not charged.", noDataSchema),
		},
		Tool: &api.Tool{Name: ToolDefiSpread,
			Description: "On-chain lending (Aave v3) supply and borrow rates per chain against the 3-month Treasury bill, the average spread in basis points and whether DeFi pays a premium. Stale chains are flagged."},
		Handler: rt.handleDefiSpread,
	}
}

func (rt *Routes) tokenizedOperation() api.Operation {
	return api.Operation{
		Method: fiber.MethodGet, Path: "/api/v1/rates/tokenized-treasuries", ID: "getRatesTokenizedTreasuries",
		Summary: "Total supply of five tokenized treasury funds, snapshotted hourly, with 24 h and 7 d change and a RISK_OFF_INFLOW / NEUTRAL / RISK_ON_OUTFLOW gauge at ±0.5 % per day.",
		Price:   priceTokenized,
		Responses: []api.Response{
			api.JSON(fiber.StatusOK, "Each fund's latest hourly snapshot and changes, and the aggregate gauge.", tokenizedSchema),
			api.JSON(fiber.StatusNotFound, "No snapshot yet for treasury supply (spec §7); not charged.", noDataSchema),
		},
		Tool: &api.Tool{Name: ToolTokenized,
			Description: "Supply of tokenized US Treasury funds (BUIDL, OUSG, USDY, USTB, USYC) on Ethereum with 24-hour and 7-day changes and an inflow/outflow gauge: money moving into or out of on-chain treasuries."},
		Handler: rt.handleTokenized,
	}
}

func (rt *Routes) auctionsOperation() api.Operation {
	return api.Operation{
		Method: fiber.MethodGet, Path: "/api/v1/rates/auctions", ID: "getTreasuryAuctions",
		Summary: "Recent and announced Treasury auctions with offering amount, high yield or discount rate, bid-to-cover, indirect and primary-dealer shares and the previous auction of the same security.",
		Price:   priceAuctions,
		Params:  []api.Param{daysParam},
		Responses: []api.Response{
			api.JSON(fiber.StatusOK, "Auctions of the window, newest first, then the announced ones, soonest first.", auctionsSchema),
			api.JSON(fiber.StatusNotFound, "No auction read yet; not charged.", noDataSchema),
		},
		Tool: &api.Tool{Name: ToolAuctions,
			Description: "Recent and upcoming US Treasury auctions: security, size, high yield or discount rate, bid-to-cover, indirect and primary-dealer shares, compared with the previous auction of the same security. Use to judge demand for government debt."},
		Handler: rt.handleAuctions,
	}
}

func (rt *Routes) handleCurve(c fiber.Ctx) error {
	if rt.view == nil {
		return noData(c, ratesview.ErrNoData)
	}
	a, err := rt.view.Curve(rt.now())
	return send(c, a, err)
}

func (rt *Routes) handleDefiSpread(c fiber.Ctx) error {
	if rt.view == nil {
		return noData(c, ratesview.ErrNoData)
	}
	a, err := rt.view.DefiSpread(rt.now())
	return send(c, a, err)
}

func (rt *Routes) handleTokenized(c fiber.Ctx) error {
	if rt.view == nil {
		return noData(c, ratesview.ErrNoSnapshot)
	}
	a, err := rt.view.TokenizedTreasuries(rt.now())
	return send(c, a, err)
}

func (rt *Routes) handleAuctions(c fiber.Ctx) error {
	days := int(daysParam.Get(c)) // validated: 1 to 60, 14 when absent
	if rt.view == nil {
		return noData(c, ratesview.ErrNoData)
	}
	a, err := rt.view.Auctions(rt.now(), days)
	return send(c, a, err)
}

// send renders an answer, or the 404 of the view's sentinel errors.
func send[T any](c fiber.Ctx, a *T, err error) error {
	switch {
	case errors.Is(err, ratesview.ErrNoData), errors.Is(err, ratesview.ErrNoSnapshot):
		return noData(c, err)
	case err != nil:
		return err
	}
	return api.SendValue(c, fiber.StatusOK, a)
}

// noData answers 404 no_data with the view's reason ("no snapshot yet for
// treasury supply" on the tokenized route, as spec §7 words it).
func noData(c fiber.Ctx, err error) error {
	return api.SendError(c, fiber.StatusNotFound, api.CodeNoData, err.Error())
}
