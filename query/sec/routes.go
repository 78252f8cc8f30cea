package sec

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/internal/jsonw"
	"github.com/marketintel/mi/operators/insiders"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
)

// Routes serve the SEC routes (spec §4.3) over one Service: the room of
// the route table for /api/v1/fundamentals/{symbol} and
// /api/v1/insiders/{symbol}. Handlers only validate (the table does, up
// front), call the Service and render.
type Routes struct{ svc *Service }

// NewRoutes returns the routes over s (nil: every route answers 404
// no_data, "SEC data is not configured on this server").
func NewRoutes(s *Service) *Routes { return &Routes{svc: s} }

// Operations are the SEC routes.
func (rt *Routes) Operations() []api.Operation {
	return []api.Operation{rt.fundamentalsOperation(), rt.insidersOperation()}
}

// answerTimeout bounds how long a request waits for its answer; EDGAR
// being slower answers 503 (the computation goes on for the next caller,
// see cache.do).
const answerTimeout = 30 * time.Second

// Prices of spec §8 in micro-USD.
const (
	priceFundamentals = 5_000  // 0.005 USD
	priceInsiders     = 10_000 // 0.01 USD
)

// Parameters.
var (
	symbolParam = api.Text{Name: "symbol", In: api.InPath, Schema: symbolSchema, Check: checkSymbol,
		Desc: "US equity ticker, case-insensitive, as listed in SEC's company_tickers.json (AAPL, MSFT, BRK.B or BRK-B for a share class). Crypto symbols and companies without SEC filings answer 404."}
	daysParam = api.Int{Name: "days", Min: insiders.MinDays, Max: insiders.MaxDays, Default: insiders.DefaultDays,
		Desc: "Window in days, ending on the answer's date (asOf) inclusive; the latest 40 Form 4 and 4/A filings of the window are analyzed."}
)

// symbolSchema is the path parameter's schema; checkSymbol accepts
// exactly what its pattern does.
var symbolSchema = schema.Obj{{"type", "string"}, {"minLength", 1}, {"maxLength", 12}, {"pattern", `^[A-Za-z0-9][A-Za-z0-9.-]{0,11}$`}}

// symbolAccepted is the accepted form of the symbol parameter (the 400's
// "accepted").
const symbolAccepted = "a US equity ticker: 1 to 12 letters or digits, with '.' or '-' between share classes (AAPL, BRK.B), starting with a letter or digit"

// checkSymbol accepts what symbolSchema's pattern accepts: 1 to 12 ASCII
// letters, digits, '.' and '-', the first a letter or digit; every such
// value normalizes with edgar.NormalizeTicker (Symbol).
func checkSymbol(raw string) *api.ParamError {
	ok := len(raw) >= 1 && len(raw) <= 12
	for i := 0; ok && i < len(raw); i++ {
		c := raw[i]
		ok = c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || i > 0 && (c == '.' || c == '-')
	}
	if !ok {
		return &api.ParamError{Param: "symbol", Message: "symbol must be " + symbolAccepted, Range: symbolAccepted}
	}
	return nil
}

func (rt *Routes) fundamentalsOperation() api.Operation {
	return api.Operation{
		Method: fiber.MethodGet, Path: "/api/v1/fundamentals/:symbol", ID: "getFundamentals",
		Summary: "SEC EDGAR fundamentals of a US-listed company: latest filing, financial statement figures with the XBRL concept, period and filing each came from, derived ratios and a deterministic fundamental signal.",
		Price:   priceFundamentals,
		Params:  []api.Param{symbolParam},
		Responses: []api.Response{
			api.JSON(fiber.StatusOK, "The company's fundamentals (spec §2.7), computed from its filings as of asOf.", fundamentalsSchema),
			api.JSON(fiber.StatusNotFound, "No SEC filings for the ticker (a crypto symbol, a company without a US listing) or no XBRL financial data; not charged.", noDataSchema),
			unavailableResponse,
		},
		Related: []schema.Named{metricSchema},
		Tool: &api.Tool{Name: "get_fundamental_intelligence",
			Description: "SEC EDGAR fundamentals of a US-listed company (ticker such as AAPL): the latest filing, revenue, income, cash flow and balance-sheet figures exactly as filed with the XBRL concept, period and accession number of each, year-over-year growth, margins, return on assets, leverage, and a deterministic fundamental signal (STRONG, HEALTHY, MIXED, WEAK, DISTRESSED, INSUFFICIENT_DATA) with its score and confidence. Not investment advice."},
		Handler: rt.handleFundamentals,
	}
}

func (rt *Routes) insidersOperation() api.Operation {
	return api.Operation{
		Method: fiber.MethodGet, Path: "/api/v1/insiders/:symbol", ID: "getInsiders",
		Summary: "SEC Form 4 insider trading of a US-listed company: open-market purchases and sales with USD value, sales under Rule 10b5-1 trading plans, grants, option exercises, tax withholding, per-insider totals, the latest 50 transactions with filing links, and a signal.",
		Price:   priceInsiders,
		Params:  []api.Param{symbolParam, daysParam},
		Responses: []api.Response{
			api.JSON(fiber.StatusOK, "The insider analysis of the window (spec §4.3, §2.11; docs/insiders.md).", insidersSchema),
			api.JSON(fiber.StatusNotFound, "No SEC filings for the ticker; not charged.", noDataSchema),
			unavailableResponse,
		},
		Tool: &api.Tool{Name: "get_insider_activity",
			Description: "SEC Form 4 insider trading of a US-listed company over the last days (1 to 365, default 90): open-market purchases and sales in USD, how much of the selling is pre-planned under Rule 10b5-1 plans, grants, option exercises and tax withholding, per-insider totals, the latest transactions with links to the filings, and a signal CLUSTER_BUYING, NET_BUYING, PLANNED_SELLING, NET_SELLING or NO_OPEN_MARKET_ACTIVITY. Not investment advice."},
		Handler: rt.handleInsiders,
	}
}

func (rt *Routes) handleFundamentals(c fiber.Ctx) error {
	sym, err := Symbol(symbolParam.Get(c))
	if err != nil {
		return sendError(c, err)
	}
	if rt.svc == nil {
		return sendError(c, notConfigured(sym))
	}
	ctx, cancel := context.WithTimeout(c.Context(), answerTimeout)
	defer cancel()
	out, err := rt.svc.Fundamentals(ctx, sym)
	if err != nil {
		return sendError(c, err)
	}
	return api.SendValue(c, fiber.StatusOK, out)
}

func (rt *Routes) handleInsiders(c fiber.Ctx) error {
	sym, err := Symbol(symbolParam.Get(c))
	if err != nil {
		return sendError(c, err)
	}
	if rt.svc == nil {
		return sendError(c, notConfigured(sym))
	}
	ctx, cancel := context.WithTimeout(c.Context(), answerTimeout)
	defer cancel()
	out, err := rt.svc.Insiders(ctx, sym, int(daysParam.Get(c)))
	if err != nil {
		return sendError(c, err)
	}
	return api.SendValue(c, fiber.StatusOK, out)
}

func notConfigured(sym string) *Error {
	return &Error{Status: fiber.StatusNotFound, Code: CodeNoData, Symbol: sym, Message: "SEC data is not configured on this server"}
}

// sendError answers a *Error with its status and the body
// {"error","message","symbol","charged":false} (a 503 with Retry-After);
// any other error is the server's 500.
func sendError(c fiber.Ctx, err error) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	if e.Status == fiber.StatusBadRequest { // checked up front; kept for a direct call
		return api.SendParamError(c, &api.ParamError{Param: e.Parameter, Message: e.Message, Range: e.Accepted})
	}
	if e.Status == fiber.StatusServiceUnavailable && e.RetryAfter > 0 {
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(int((e.RetryAfter+time.Second-1)/time.Second)))
	}
	return api.SendRendered(c, e.Status, func(b []byte) []byte {
		b = append(b, `{"error":`...)
		b = jsonw.AppendString(b, e.Code)
		b = append(b, `,"message":`...)
		b = jsonw.AppendString(b, e.Message)
		b = append(b, `,"symbol":`...)
		b = jsonw.AppendString(b, e.Symbol)
		return append(b, `,"charged":false}`...)
	})
}
