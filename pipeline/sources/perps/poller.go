package perps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/pipeline/sources/poll"
	"github.com/marketintel/mi/schemas"
)

// Default endpoints (the sources configuration overrides them, so a local
// server can stand in).
const (
	DefaultBinanceURL     = "https://fapi.binance.com"
	DefaultBybitURL       = "https://api.bybit.com"
	DefaultHyperliquidURL = "https://api.hyperliquid.xyz"
)

// defaultURL is each venue's base URL.
var defaultURL = map[string]string{VenueBinance: DefaultBinanceURL, VenueBybit: DefaultBybitURL, VenueHyperliquid: DefaultHyperliquidURL}

// Defaults of Config.
const (
	DefaultInterval           = 5 * time.Minute
	DefaultPredictionInterval = 15 * time.Minute
	// DefaultOffset: polls run this long after each aligned boundary, so
	// that the venues' 5-minute statistics of the bucket just closed are out.
	DefaultOffset = 30 * time.Second
	// DefaultMaxMarkets bounds the outcome markets whose candles one
	// prediction poll reads (two requests each).
	DefaultMaxMarkets = 60
	// refreshEvery is how often the slow-moving lists (Binance fundingInfo,
	// Bybit instruments-info) are read again.
	refreshEvery = time.Hour
	// backfillPoints: Binance openInterestHist at 5 minutes over 24 h and
	// its tolerance; Bybit's at 15 minutes (its limit is 200 a page).
	binanceBackfill = 289
	bybitBackfill   = 100
)

// Config configures one poller. Zero values take the defaults above.
type Config struct {
	// Name is the source name in logs and /status, e.g.
	// "poll:binance-usdm".
	Name string
	// Venue is binance, bybit or hyperliquid.
	Venue string
	// Prediction makes a prediction-market poller (venue hyperliquid).
	Prediction bool
	// URL is the venue's base URL (DefaultBinanceURL, …).
	URL string
	// Symbols: Binance, the perps polled; Bybit, the perps whose account
	// ratio and history are read (every linear perp's ticker is read).
	Symbols []string
	// Dexes: Hyperliquid perp dexes, "" being the main dex (default [""]).
	Dexes []string
	// Interval between polls, aligned to the clock; Offset after each
	// boundary.
	Interval, Offset time.Duration
	// CurrentOpenInterest: Binance, also read /fapi/v1/openInterest per
	// symbol (fresher than the 5-minute history).
	CurrentOpenInterest bool
	// NoBackfill: do not read 24 h of open-interest history on the first
	// poll.
	NoBackfill bool
	// MaxMarkets bounds the outcome markets of a prediction poll.
	MaxMarkets int
	// MaxBodyBytes, when not 0, overrides the client's answer size limit.
	MaxBodyBytes int64
	// Client makes the requests (rate limits per host, Retry-After, size
	// limit, conditional GET: pipeline/sources/poll); nil: a client with the
	// default HTTP configuration and the process's shared host limits.
	Client *poll.Client
	// Health records the attempts for /status (sources.Registry.Register);
	// nil: a registry of the poller's own.
	Health *sources.Health
	// Clock tells read times and runs the schedule; nil: system.
	Clock  clock.Clock
	Logger *slog.Logger
}

// DeadLetter is input the poller could not use, with the reason (a stable
// phrase first: "malformed json", "bad value", "invalid positioning record").
type DeadLetter struct {
	Source, Endpoint, Reason string
	Raw                      []byte
}

// maxDeadLetterBytes bounds the raw input kept in a dead letter.
const maxDeadLetterBytes = 64 << 10

// Output is what one poll cycle produced.
type Output struct {
	Source      string
	Snapshots   []*schemas.PerpSnapshot
	Quotes      []*schemas.PredictionQuote
	DeadLetters []DeadLetter
	// Failures are the requests that failed (transport, HTTP status, rate
	// limit, venue error); the records of the others are still produced.
	Failures []error
	// Unmapped counts perps whose venue symbol does not map (Normalize).
	Unmapped int
}

func (o *Output) records() int { return len(o.Snapshots) + len(o.Quotes) }

// Poller polls one venue. Poll may be called directly (an on-demand
// read); Run polls on the aligned schedule.
type Poller struct {
	cfg    Config
	base   string
	client *poll.Client
	health *sources.Health
	clk    clock.Clock
	log    *slog.Logger

	mu         sync.Mutex // serializes polls; guards the fields below
	backfilled map[string]bool
	intervals  map[string]float64 // Binance fundingInfo
	instr      map[string]BybitInstrument
	refreshed  time.Time           // when intervals/instr were last read
	bodies     map[string]lastBody // the last complete answer per URL, for 304s
}

// lastBody is the last complete answer of a URL: a 304 means it still holds.
type lastBody struct {
	body []byte
	date time.Time
}

// New checks cfg and returns a poller.
func New(cfg Config) (*Poller, error) {
	switch cfg.Venue {
	case VenueBinance, VenueBybit, VenueHyperliquid:
	default:
		return nil, fmt.Errorf("cannot use perps source %q: venue %q is not one of binance, bybit, hyperliquid", cfg.Name, cfg.Venue)
	}
	if cfg.Prediction && cfg.Venue != VenueHyperliquid {
		return nil, fmt.Errorf("cannot use prediction-market source %q: venue %q lists no prediction markets we read (hyperliquid does)", cfg.Name, cfg.Venue)
	}
	if cfg.URL == "" {
		cfg.URL = defaultURL[cfg.Venue]
	}
	if u, err := url.Parse(cfg.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("cannot use perps source %q: url %q is not an http(s) URL", cfg.Name, cfg.URL)
	}
	if cfg.Venue == VenueBinance && !cfg.Prediction && len(cfg.Symbols) == 0 {
		return nil, fmt.Errorf("cannot use perps source %q: binance needs symbols (its open interest is read per symbol)", cfg.Name)
	}
	if len(cfg.Dexes) == 0 {
		cfg.Dexes = []string{""}
	}
	for _, d := range cfg.Dexes {
		if d != "" && !isLowerAlnum(d) {
			return nil, fmt.Errorf("cannot use perps source %q: dex %q is not a lower-case name", cfg.Name, d)
		}
	}
	if cfg.Interval < 0 {
		return nil, fmt.Errorf("cannot use perps source %q: negative interval", cfg.Name)
	}
	if cfg.Interval == 0 {
		cfg.Interval = DefaultInterval
		if cfg.Prediction {
			cfg.Interval = DefaultPredictionInterval
		}
	}
	if cfg.Offset < 0 || cfg.Offset >= cfg.Interval {
		return nil, fmt.Errorf("cannot use perps source %q: offset %s is not within the interval %s", cfg.Name, cfg.Offset, cfg.Interval)
	}
	if cfg.Offset == 0 {
		cfg.Offset = min(DefaultOffset, cfg.Interval/4)
	}
	if cfg.MaxMarkets <= 0 {
		cfg.MaxMarkets = DefaultMaxMarkets
	}
	if cfg.Name == "" {
		cfg.Name = defaultName(cfg.Venue, cfg.Prediction)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	clk := clock.Or(cfg.Clock)
	client := cfg.Client
	if client == nil {
		client = poll.NewClient(sources.HTTPConfig{}, poll.Options{Clock: clk})
	}
	health := cfg.Health
	if health == nil {
		health = sources.NewRegistry(cfg.Logger, clk).Register(cfg.Name, "perps", cfg.URL)
	}
	return &Poller{cfg: cfg, base: strings.TrimSuffix(cfg.URL, "/"), client: client, health: health, clk: clk, log: cfg.Logger,
		backfilled: map[string]bool{}, bodies: map[string]lastBody{}}, nil
}

// defaultName is the name of a poller whose configuration gives none.
func defaultName(venue string, prediction bool) string {
	if prediction {
		return "poll:" + venue + "-outcomes"
	}
	return "poll:" + venue
}

// Name returns the source name.
func (p *Poller) Name() string { return p.cfg.Name }

// Interval returns the poll interval.
func (p *Poller) Interval() time.Duration { return p.cfg.Interval }

// Freshness returns the poller's state for /status.
func (p *Poller) Freshness() sources.Freshness { return p.health.Snapshot() }

// ErrNothingRead is returned by Poll when a cycle produced no record.
var ErrNothingRead = errors.New("the poll produced no record")

// Poll runs one poll cycle. It returns ErrNothingRead (wrapping the failure
// that tells most: a rate limit, else the first) when no request produced a
// record; the Output then still carries the failures and dead letters.
// Requests that failed while others produced records are in Output.Failures
// and logged at debug level: the poll is a success (a partial answer).
func (p *Poller) Poll(ctx context.Context) (Output, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	start := p.clk.Now()
	out := Output{Source: p.cfg.Name}
	switch {
	case p.cfg.Prediction:
		p.pollOutcomes(ctx, &out, start)
	case p.cfg.Venue == VenueBinance:
		p.pollBinance(ctx, &out, start)
	case p.cfg.Venue == VenueBybit:
		p.pollBybit(ctx, &out, start)
	default:
		p.pollHyperliquid(ctx, &out, start)
	}
	p.validate(&out)
	if out.records() > 0 {
		for _, e := range out.Failures {
			p.log.Debug("positioning request failed", "source", p.cfg.Name, "err", sources.Redact(e.Error()))
		}
		return out, nil
	}
	var primary error
	for _, e := range out.Failures {
		var te *poll.ThrottledError
		if errors.As(e, &te) {
			primary = e
			break
		}
	}
	if primary == nil && len(out.Failures) > 0 {
		primary = out.Failures[0]
	}
	if primary == nil {
		return out, ErrNothingRead
	}
	return out, fmt.Errorf("%w: %w", ErrNothingRead, primary)
}

// dataTime is the venues' time of the newest record of an output.
func (o *Output) dataTime() time.Time {
	var ns int64
	for _, s := range o.Snapshots {
		ns = max(ns, s.ObservedNs)
	}
	for _, q := range o.Quotes {
		ns = max(ns, q.ObservedNs)
	}
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

// Run polls on the schedule until ctx ends (pipeline/sources/poll.Poller):
// once at start, then at every multiple of Interval (UTC) plus Offset. A
// poll that produced nothing is retried with backoff until the next slot,
// never before a rate-limited venue's Retry-After; Health records every
// attempt and logs an outage once. emit receives every Output that carries
// records or dead letters, from Run's goroutine.
func (p *Poller) Run(ctx context.Context, emit func(Output)) error {
	pl := &poll.Poller{
		Schedule: poll.Schedule{Every: p.cfg.Interval, Offset: p.cfg.Offset},
		Health:   p.health,
		Clock:    p.clk,
		Timeout:  min(p.cfg.Interval/2, 10*time.Minute),
		Poll: func(ctx context.Context) (time.Time, error) {
			out, err := p.Poll(ctx)
			if out.records() > 0 || len(out.DeadLetters) > 0 {
				emit(out)
			}
			return out.dataTime(), err
		},
	}
	return pl.Run(ctx)
}

// answer is one usable answer: its body (the last one again after a 304)
// and its Date header.
type answer struct {
	body []byte
	date time.Time
}

// request fetches base+path (a POST of body when not nil). A 304 answers
// the last body of the URL.
func (p *Poller) request(ctx context.Context, path string, body []byte) (answer, error) {
	r := poll.Request{URL: p.base + path, MaxBodyBytes: p.cfg.MaxBodyBytes, Header: http.Header{"Accept": {"application/json"}}}
	if body != nil {
		r.Method, r.Body = http.MethodPost, body
		r.Header.Set("Content-Type", "application/json")
	}
	resp, err := p.client.Do(ctx, r)
	if err != nil {
		return answer{}, err
	}
	date, _ := http.ParseTime(resp.Header.Get("Date"))
	if resp.NotModified {
		last, ok := p.bodies[r.URL]
		if !ok {
			// A 304 to a request we did not make conditional: read it whole.
			p.client.Forget(r.URL)
			return answer{}, fmt.Errorf("cannot use %s: not modified, but no earlier answer is kept", sources.Redact(r.URL))
		}
		if date.IsZero() {
			date = last.date
		}
		return answer{body: last.body, date: date}, nil
	}
	if body == nil && (resp.Validators != poll.Validators{}) {
		p.bodies[r.URL] = lastBody{body: resp.Body, date: date}
	}
	return answer{body: resp.Body, date: date}, nil
}

// parsed records a parse outcome: a malformed answer becomes a dead letter
// and a failure, a venue error a failure, rejected items dead letters.
func (p *Poller) parsed(out *Output, endpoint string, body []byte, err error, rej []Reject) bool {
	for _, r := range rej {
		if strings.HasPrefix(r.Reason, ReasonUnknownSymbol) {
			out.Unmapped++
			continue
		}
		out.DeadLetters = append(out.DeadLetters, DeadLetter{Source: p.cfg.Name, Endpoint: endpoint, Reason: r.Reason, Raw: []byte(r.VenueSymbol)})
	}
	if err == nil {
		return true
	}
	var pe *ParseError
	if errors.As(err, &pe) && pe.Reason == ReasonMalformedJSON {
		raw := body
		if len(raw) > maxDeadLetterBytes {
			raw = raw[:maxDeadLetterBytes]
		}
		out.DeadLetters = append(out.DeadLetters, DeadLetter{Source: p.cfg.Name, Endpoint: endpoint, Reason: err.Error(), Raw: append([]byte(nil), raw...)})
	}
	out.Failures = append(out.Failures, err)
	return false
}

// validate moves records that fail the schemas' validation to dead letters.
func (p *Poller) validate(out *Output) {
	keep := out.Snapshots[:0]
	for _, s := range out.Snapshots {
		if err := schemas.ValidatePerpSnapshot(s); err != nil {
			raw, _ := json.Marshal(s)
			out.DeadLetters = append(out.DeadLetters, DeadLetter{Source: p.cfg.Name, Endpoint: "record", Reason: err.Error(), Raw: raw})
			continue
		}
		keep = append(keep, s)
	}
	out.Snapshots = keep
	keepQ := out.Quotes[:0]
	for _, q := range out.Quotes {
		if err := schemas.ValidatePredictionQuote(q); err != nil {
			raw, _ := json.Marshal(q)
			out.DeadLetters = append(out.DeadLetters, DeadLetter{Source: p.cfg.Name, Endpoint: "record", Reason: err.Error(), Raw: raw})
			continue
		}
		keepQ = append(keepQ, q)
	}
	out.Quotes = keepQ
}

func (p *Poller) refreshDue(now time.Time) bool {
	return p.refreshed.IsZero() || now.Sub(p.refreshed) >= refreshEvery
}

func (p *Poller) pollBinance(ctx context.Context, out *Output, start time.Time) {
	in := BinanceInput{ReadNs: start.UnixNano(), Source: p.cfg.Name, Period: "5m",
		OIHist: map[string][]OIPoint{}, OICurrent: map[string]OIPoint{}, Ratios: map[string]LongShortPoint{}}
	if a, err := p.request(ctx, "/fapi/v1/premiumIndex", nil); err != nil {
		out.Failures = append(out.Failures, err)
	} else {
		prem, rej, err := ParseBinancePremiumIndex(a.body)
		if p.parsed(out, "premiumIndex", a.body, err, rej) {
			in.Premium = make(map[string]BinancePremium, len(prem))
			for _, x := range prem {
				in.Premium[x.VenueSymbol] = x
			}
		}
	}
	if p.refreshDue(start) {
		if a, err := p.request(ctx, "/fapi/v1/fundingInfo", nil); err != nil {
			out.Failures = append(out.Failures, err)
		} else if m, rej, err := ParseBinanceFundingInfo(a.body); p.parsed(out, "fundingInfo", a.body, err, rej) {
			p.intervals, p.refreshed = m, start
		}
	}
	in.Intervals = p.intervals
	for _, s := range p.cfg.Symbols {
		if ctx.Err() != nil {
			break
		}
		q := url.Values{"symbol": {s}, "period": {"5m"}, "limit": {"2"}}
		if !p.backfilled[s] && !p.cfg.NoBackfill {
			q.Set("limit", strconv.Itoa(binanceBackfill))
		}
		if a, err := p.request(ctx, "/futures/data/openInterestHist?"+q.Encode(), nil); err != nil {
			out.Failures = append(out.Failures, err)
		} else if pts, rej, err := ParseBinanceOpenInterestHist(a.body); p.parsed(out, "openInterestHist", a.body, err, rej) {
			in.OIHist[s] = onlySymbol(pts, s)
			p.backfilled[s] = true
		}
		if p.cfg.CurrentOpenInterest {
			if a, err := p.request(ctx, "/fapi/v1/openInterest?symbol="+url.QueryEscape(s), nil); err != nil {
				out.Failures = append(out.Failures, err)
			} else if pt, err := ParseBinanceOpenInterest(a.body); p.parsed(out, "openInterest", a.body, err, nil) && pt.VenueSymbol == s {
				in.OICurrent[s] = pt
			}
		}
		q = url.Values{"symbol": {s}, "period": {"5m"}, "limit": {"1"}}
		if a, err := p.request(ctx, "/futures/data/globalLongShortAccountRatio?"+q.Encode(), nil); err != nil {
			out.Failures = append(out.Failures, err)
		} else if ls, rej, err := ParseBinanceLongShort(a.body); p.parsed(out, "globalLongShortAccountRatio", a.body, err, rej) {
			for _, x := range ls {
				if x.VenueSymbol == s {
					in.Ratios[s] = x // ascending: the newest wins
				}
			}
		}
	}
	snaps, rej := BuildBinance(in, p.cfg.Symbols)
	p.parsed(out, "build", nil, nil, rej)
	out.Snapshots = append(out.Snapshots, snaps...)
}

// onlySymbol keeps the points of symbol s (an answer about another symbol is
// not used for s).
func onlySymbol(pts []OIPoint, s string) []OIPoint {
	out := pts[:0]
	for _, p := range pts {
		if p.VenueSymbol == s {
			out = append(out, p)
		}
	}
	return out
}

func (p *Poller) pollBybit(ctx context.Context, out *Output, start time.Time) {
	in := BybitInput{ReadNs: start.UnixNano(), Source: p.cfg.Name, Period: "5m", Symbols: p.cfg.Symbols,
		OIHist: map[string][]OIPoint{}, Ratios: map[string]LongShortPoint{}}
	if p.refreshDue(start) {
		all := map[string]BybitInstrument{}
		cursor, ok := "", true
		for page := 0; page < 10; page++ {
			q := url.Values{"category": {"linear"}, "limit": {"1000"}}
			if cursor != "" {
				q.Set("cursor", cursor)
			}
			a, err := p.request(ctx, "/v5/market/instruments-info?"+q.Encode(), nil)
			if err != nil {
				out.Failures, ok = append(out.Failures, err), false
				break
			}
			m, next, rej, err := ParseBybitInstruments(a.body)
			if !p.parsed(out, "instruments-info", a.body, err, rej) {
				ok = false
				break
			}
			for k, v := range m {
				all[k] = v
			}
			if next == "" || next == cursor {
				break
			}
			cursor = next
		}
		if ok {
			p.instr, p.refreshed = all, start
		}
	}
	in.Instruments = p.instr
	if a, err := p.request(ctx, "/v5/market/tickers?category=linear", nil); err != nil {
		out.Failures = append(out.Failures, err)
	} else if ts, ns, rej, err := ParseBybitTickers(a.body); p.parsed(out, "tickers", a.body, err, rej) {
		in.Tickers, in.TimeNs = ts, ns
		if in.Tickers == nil {
			in.Tickers = []BybitTicker{}
		}
	}
	for _, s := range p.cfg.Symbols {
		if ctx.Err() != nil {
			break
		}
		q := url.Values{"category": {"linear"}, "symbol": {s}, "period": {"5min"}, "limit": {"1"}}
		if a, err := p.request(ctx, "/v5/market/account-ratio?"+q.Encode(), nil); err != nil {
			out.Failures = append(out.Failures, err)
		} else if ls, rej, err := ParseBybitAccountRatio(a.body); p.parsed(out, "account-ratio", a.body, err, rej) {
			for _, x := range ls {
				if x.VenueSymbol == s {
					in.Ratios[s] = x
				}
			}
		}
		if !p.backfilled[s] && !p.cfg.NoBackfill {
			q := url.Values{"category": {"linear"}, "symbol": {s}, "intervalTime": {"15min"}, "limit": {strconv.Itoa(bybitBackfill)}}
			if a, err := p.request(ctx, "/v5/market/open-interest?"+q.Encode(), nil); err != nil {
				out.Failures = append(out.Failures, err)
			} else if pts, rej, err := ParseBybitOpenInterest(a.body); p.parsed(out, "open-interest", a.body, err, rej) {
				in.OIHist[s] = onlySymbol(pts, s)
				p.backfilled[s] = true
			}
		}
	}
	snaps, rej := BuildBybit(in)
	p.parsed(out, "build", nil, nil, rej)
	for _, t := range in.Tickers {
		if _, _, ok := Normalize(VenueBybit, t.VenueSymbol); !ok {
			out.Unmapped++
		}
	}
	out.Snapshots = append(out.Snapshots, snaps...)
}

func (p *Poller) pollHyperliquid(ctx context.Context, out *Output, start time.Time) {
	for _, dex := range p.cfg.Dexes {
		req := map[string]string{"type": "metaAndAssetCtxs"}
		if dex != "" {
			req["dex"] = dex
		}
		body, _ := json.Marshal(req)
		a, err := p.request(ctx, "/info", body)
		if err != nil {
			out.Failures = append(out.Failures, err)
			continue
		}
		as, rej, err := ParseHyperliquidMetaAndAssetCtxs(a.body)
		if !p.parsed(out, "metaAndAssetCtxs", a.body, err, rej) {
			continue
		}
		in := HyperliquidInput{ReadNs: start.UnixNano(), Source: p.cfg.Name, Assets: as}
		if !a.date.IsZero() {
			in.ObservedNs = a.date.UnixNano()
		}
		snaps := BuildHyperliquid(in)
		out.Unmapped += len(as) - len(snaps)
		out.Snapshots = append(out.Snapshots, snaps...)
	}
}

func (p *Poller) pollOutcomes(ctx context.Context, out *Output, start time.Time) {
	in := OutcomeInput{ReadNs: start.UnixNano(), Source: p.cfg.Name, VolumeUSD: map[string]float64{}}
	a, err := p.request(ctx, "/info", []byte(`{"type":"outcomeMeta"}`))
	if err != nil {
		out.Failures = append(out.Failures, err)
		return
	}
	var rej []Reject
	in.Outcomes, in.Questions, rej, err = ParseHyperliquidOutcomeMeta(a.body)
	if !p.parsed(out, "outcomeMeta", a.body, err, rej) {
		return
	}
	a, err = p.request(ctx, "/info", []byte(`{"type":"allMids"}`))
	if err != nil {
		out.Failures = append(out.Failures, err)
		return
	}
	in.Mids, rej, err = ParseHyperliquidAllMids(a.body)
	if !p.parsed(out, "allMids", a.body, err, rej) {
		return
	}
	if !a.date.IsZero() {
		in.ObservedNs = a.date.UnixNano()
	}
	at := in.ObservedNs
	if at == 0 {
		at = in.ReadNs
	}
	// Candles of the priced outcomes, lowest ids first, at most MaxMarkets.
	ids := make([]int64, 0, len(in.Outcomes))
	settled := settledOutcomes(in.Questions)
	for _, o := range in.Outcomes {
		if _, ok := in.Mids[OutcomeCoin(o.ID, 0)]; ok && !settled[o.ID] {
			ids = append(ids, o.ID)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	if len(ids) > p.cfg.MaxMarkets {
		ids = ids[:p.cfg.MaxMarkets]
	}
	for _, id := range ids {
		for side := 0; side < 2; side++ {
			if ctx.Err() != nil {
				break
			}
			coin := OutcomeCoin(id, side)
			body, _ := json.Marshal(map[string]any{"type": "candleSnapshot", "req": map[string]any{
				"coin": coin, "interval": "1h", "startTime": (at - int64(25*time.Hour)) / 1e6, "endTime": at / 1e6}})
			a, err := p.request(ctx, "/info", body)
			if err != nil {
				out.Failures = append(out.Failures, err)
				continue
			}
			cs, rej, err := ParseHyperliquidCandles(a.body)
			if p.parsed(out, "candleSnapshot", a.body, err, rej) {
				in.VolumeUSD[coin] = CandleVolumeUSD(cs, at)
			}
		}
	}
	out.Quotes = append(out.Quotes, BuildOutcomeQuotes(in)...)
}
