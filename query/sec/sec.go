// Package sec builds the answers of the SEC routes — fundamentals
// (spec §2.7, /api/v1/fundamentals/{symbol}) and insiders (§4.3,
// /api/v1/insiders/{symbol}) — on demand: it reads EDGAR through the
// EDGAR client (pipeline/sources/edgar: rate limit, cache, singleflight),
// computes with operators/fundamentals and operators/insiders, keeps the
// computed answers for a while, and writes Parquet snapshots for quants.
// Handlers validate, call it and render; its errors say which status to
// answer (Error).
package sec

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/marketintel/mi/operators/insiders"
	"github.com/marketintel/mi/pipeline/sources/edgar"
)

// Notice is what /transparency states about the SEC answers.
const Notice = "Fundamentals and insider transactions are the figures of SEC EDGAR filings as filed, each with its concept or form and accession number; fundamentalSignal and the insider signal are deterministic rules (docs/fundamentals.md, docs/insiders.md), not investment advice."

// Error is a failure with the HTTP status the route answers, a stable code
// and a message for the caller. Nothing answered with an Error is charged.
type Error struct {
	Status  int    `json:"-"`
	Code    string `json:"error"`
	Message string `json:"message"`
	Symbol  string `json:"symbol,omitempty"`
	// Parameter names the bad parameter of a 400; Accepted says what is
	// accepted.
	Parameter string `json:"parameter,omitempty"`
	Accepted  string `json:"accepted,omitempty"`
	// RetryAfter, for a 503, is when EDGAR may be asked again.
	RetryAfter time.Duration `json:"-"`
	Err        error         `json:"-"`
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Err }

// Error codes.
const (
	CodeBadParameter = "bad_parameter"
	CodeNoData       = "no_data"
	CodeUnavailable  = "upstream_unavailable"
)

// Config configures a Service.
type Config struct {
	Client *edgar.Client
	// Now is the answers' clock (asOf) and the cache's; default time.Now.
	Now func() time.Time
	// InsidersAsOf, when set, is the date the insiders answers are
	// computed as of instead of Now: the window of days ends on it. It is
	// a demo setting (mi run --sec-insiders-as-of): the captures the
	// offline demo serves hold Form 4 filings of 2022 only. Every answer
	// shows it in asOf and says in its methodology that the date is fixed;
	// cached answers still expire by Now.
	InsidersAsOf time.Time
	// TTL is how long a computed answer is served again; default 10
	// minutes (the submissions TTL: a new filing shows up within it).
	TTL time.Duration
	// MaxEntries bounds the answers kept; default 2,000.
	MaxEntries int
	// Parallel is how many ownership documents one insiders answer reads
	// at once (all of them wait for the process's sec.gov rate limit);
	// default 4.
	Parallel int
	// Snapshots, when set, receives every computed answer (Parquet
	// snapshots for quants).
	Snapshots *Snapshots
	Logger    *slog.Logger
}

// Service builds the SEC answers. It is safe for concurrent use.
type Service struct {
	cfg  Config
	fund *cache[*fundamentalsAnswer]
	ins  *cache[*insiders.Analysis]
}

// New returns a service over an EDGAR client.
func New(cfg Config) (*Service, error) {
	if cfg.Client == nil {
		return nil, errors.New("cannot build the SEC service: no EDGAR client")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.TTL <= 0 {
		cfg.TTL = 10 * time.Minute
	}
	if cfg.MaxEntries <= 0 {
		cfg.MaxEntries = 2000
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = 4
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Service{cfg: cfg, fund: newCache[*fundamentalsAnswer](cfg.MaxEntries), ins: newCache[*insiders.Analysis](cfg.MaxEntries)}, nil
}

// Symbol validates and normalizes the path parameter symbol: a US equity
// ticker as EDGAR writes it (BRK.B → BRK-B).
func Symbol(raw string) (string, error) {
	s, ok := edgar.NormalizeTicker(raw)
	if !ok {
		return "", &Error{Status: 400, Code: CodeBadParameter, Parameter: "symbol",
			Accepted: "a US equity ticker: 1 to 12 letters or digits, with '.', '/' or '-' between share classes (AAPL, BRK.B)",
			Message:  fmt.Sprintf("symbol %q is not a US equity ticker", raw)}
	}
	return s, nil
}

// Days validates the insiders parameter days: an integer from 1 to 365,
// 90 when empty (spec §8).
func Days(raw string) (int, error) {
	if strings.TrimSpace(raw) == "" {
		return insiders.DefaultDays, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(raw))
	if err != nil || n < insiders.MinDays || n > insiders.MaxDays {
		return 0, &Error{Status: 400, Code: CodeBadParameter, Parameter: "days", Accepted: "an integer from 1 to 365 (default 90)",
			Message: fmt.Sprintf("days %q is not an integer from 1 to 365", raw)}
	}
	return n, nil
}

// company resolves a ticker, mapping EDGAR's failures to route errors.
func (s *Service) company(ctx contextLike, sym string) (edgar.Company, error) {
	co, err := s.cfg.Client.Company(ctx, sym)
	if err == nil {
		return co, nil
	}
	if errors.Is(err, edgar.ErrUnknownTicker) {
		return co, &Error{Status: 404, Code: CodeNoData, Symbol: sym, Err: err,
			Message: sym + " has no SEC filings: EDGAR's ticker list (company_tickers.json) has no registrant with this ticker. " +
				"Crypto assets (e.g. BTCUSD) and companies without a US listing do not file with the SEC; crypto symbols are covered by /api/v1/intelligence."}
	}
	return co, upstream(sym, "EDGAR's ticker list", err)
}

// upstream maps an EDGAR failure to a route error: 404 for what EDGAR does
// not have or what cannot be read, 503 when EDGAR cannot be reached.
func upstream(sym, what string, err error) error {
	switch {
	case errors.Is(err, edgar.ErrNotFound):
		return &Error{Status: 404, Code: CodeNoData, Symbol: sym, Err: err, Message: what + " is not on EDGAR: " + err.Error()}
	case errors.Is(err, edgar.ErrMalformed), errors.Is(err, edgar.ErrTooLarge):
		return &Error{Status: 404, Code: CodeNoData, Symbol: sym, Err: err, Message: what + " could not be read: " + err.Error()}
	case errors.Is(err, edgar.ErrRateLimited), errors.Is(err, edgar.ErrUnreachable):
		return &Error{Status: 503, Code: CodeUnavailable, Symbol: sym, Err: err, RetryAfter: 30 * time.Second,
			Message: "EDGAR cannot be reached right now and no cached copy of " + what + " exists; try again shortly"}
	}
	return &Error{Status: 503, Code: CodeUnavailable, Symbol: sym, Err: err, RetryAfter: 30 * time.Second,
		Message: "cannot read " + what + " from EDGAR: " + err.Error()}
}
