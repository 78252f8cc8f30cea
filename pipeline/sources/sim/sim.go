// Package sim is a seeded market simulator: a sources.Source that yields
// realistic-looking normalized trades for a universe of crypto assets and
// tokenized US equities, with injected, labelled events (volume bursts,
// breakouts, breakdowns, distribution) written to a ground-truth file.
//
// The output is a pure function of the Config: the same Config yields the
// same trades in the same order, byte for byte, and the same ground truth
// (on one architecture and Go version; see docs/simulator.md). The
// simulator reads no clock, starts no goroutines and draws from seeded PCG
// generators only.
//
// The model, every parameter and its default are described in
// docs/simulator.md.
package sim

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/symbols"
	"github.com/marketintel/mi/schemas"
)

// Config configures a simulator. The zero value of every field but Start
// selects its default.
type Config struct {
	// Seed selects the random streams; 0 means 1.
	Seed int64
	// Start is the time the simulation starts, the earliest possible event
	// time; required. The runner passes it. Runs with different starts draw
	// different streams, so simulated days backfilled one by one differ.
	Start time.Time
	// End, when set, ends the run: Next returns io.EOF once the next trade
	// would be at or after End. Zero means the run never ends.
	End time.Time
	// Symbols are the simulated symbols, each one of DefaultSymbols in any
	// spelling symbols.Canonical accepts (case, aliases), without
	// duplicates; nil or empty means DefaultSymbols. A symbol's prices,
	// times, sizes and sides do not depend on which other symbols are
	// simulated; trade ids do.
	Symbols []string
	// RateScale multiplies every arrival intensity; 0 means 1, which gives
	// about 300 trades/s over the default universe. Accepted: 0.001–10000.
	RateScale float64
	// EventsPerSymbolPerDay is the mean number of injected events per symbol
	// and simulated day; 0 means 3, a negative value injects none.
	// Accepted: up to 24.
	EventsPerSymbolPerDay float64
	// GroundTruthPath, when set, is the file the injected events are written
	// to as NDJSON, in start order, as they are scheduled. New truncates it.
	GroundTruthPath string
}

// Defaults and bounds of Config.
const (
	DefaultSeed                  = 1
	DefaultEventsPerSymbolPerDay = 3.0
	MinRateScale                 = 0.001
	MaxRateScale                 = 10000.0
	MaxEventsPerSymbolPerDay     = 24.0
)

// ErrBadConfig is wrapped by every error New returns for an invalid Config.
var ErrBadConfig = errors.New("bad simulator config")

// ErrClosed is returned by Next after Close.
var ErrClosed = errors.New("simulator is closed")

// Model constants; docs/simulator.md explains each.
const (
	// Hawkes excitation: each trade raises the intensity by hawkesAlpha,
	// decaying at rate hawkesBeta (per second); branching ratio 0.6.
	hawkesBeta  = 0.5
	hawkesAlpha = 0.3

	// secondsPerYear converts annualized volatilities to per-second ones.
	secondsPerYear = 365 * 86400

	// factorVol is the annualized volatility of the common market factor.
	factorVol = 0.45
	// minIdioShare is the least share of a symbol's volatility that is
	// idiosyncratic.
	minIdioShare = 0.25

	// Side model: outside events the probability that the aggressor buys
	// is 0.5 + sideTilt*z/sqrt(1+z²) with z = momentum/scale, where momentum is an
	// exponentially weighted sum of the symbol's log returns per trade.
	sideTilt     = 0.2
	momentumKeep = 0.9
	// unknownSideShare of DEX trades carry no aggressor side.
	unknownSideShare = 0.015

	// Trade notional: log-normal body around the symbol's median with
	// log-sd sizeSigma; with probability tailShare a Pareto tail with index
	// tailIndex starting at tailStart medians, capped at tailCap medians.
	sizeSigma = 0.9
	tailShare = 0.04
	tailIndex = 1.4
	tailStart = 5.0
	tailCap   = 20000.0

	// walletsPerChain is the size of each chain's wallet population.
	walletsPerChain = 1000
	// distributorShare of the sells on DEX venues during a distribution
	// event come from the event's distributing wallet.
	distributorShare = 0.6

	// priceDigits is the number of significant digits of the starting price
	// that fixes a symbol's price tick.
	priceDigits = 6

	// maxRunSeconds is longer than any run can be (Start and End lie
	// within 2009..2100).
	maxRunSeconds = 100 * secondsPerYear
)

// Volatility regimes: a two-state continuous-time Markov chain per symbol.
var (
	regimeVol      = [2]float64{0.75, 1.75}  // volatility multiplier, low/high
	regimeRate     = [2]float64{0.9, 1.6}    // arrival-rate multiplier, low/high
	regimeMeanSecs = [2]float64{10800, 2700} // mean dwell time, low/high
)

// symVenue is one venue a symbol trades on, with its fixed strings.
type symVenue struct {
	v           int // index into venues
	venueSymbol string
	market      string
	cum         float64 // cumulative choice probability
}

// symbol is the simulation state of one symbol.
type symbol struct {
	spec  *symbolSpec
	index int
	rng   *rand.Rand
	pcg   *rand.PCG // rng's source, for uniform draws without an interface call
	// regimeRNG draws the regime switches, apart from rng so that the regime
	// path does not depend on RateScale.
	regimeRNG *rand.Rand

	// static, from spec and Config
	mu         float64 // baseline intensity, trades/s
	idioVar    float64 // idiosyncratic variance per second
	momScale   float64
	priceScale float64 // prices are rounded to multiples of 1/priceScale
	venues     []symVenue

	// arrival process: the time of the next trade and the state there
	t          float64 // seconds after Start
	ns         int64   // event time of the next trade
	exc        float64 // excitation part of the intensity just after the next trade
	regime     int
	nextSwitch float64
	accVar     float64 // idiosyncratic variance accumulated since the last trade
	accDrift   float64 // event drift accumulated since the last trade

	// price process
	mid   float64 // mid price, USD
	lastF float64
	mom   float64

	plan eventPlan
}

// Source is the simulator. It is not safe for concurrent use.
type Source struct {
	cfg     Config
	name    string
	startNs int64
	endNs   int64   // exclusive
	endSec  float64 // End in seconds after Start; +Inf when unset

	syms []symbol
	heap []heapItem // the symbols' next trades, a min-heap by (ns, index)

	// common market factor on a 1-second grid, linearly interpolated
	factorRNG  *rand.Rand
	factorK    float64
	factor0    float64
	factor1    float64
	factorStep float64

	meanEventGap float64 // mean of the exponential part of the gap between events
	horizon      float64 // events are scheduled up to here, seconds after Start
	events       []Event
	batch        []*event

	gt     *bufio.Writer
	gtFile *os.File
	line   []byte

	runKey  uint64
	runID   string // prefix of CEX trade ids
	seq     [numVenues]uint64
	wallets [numVenues][]string
	strs    arena
	trades  []schemas.Trade

	err    error
	closed bool
}

var _ sources.Source = (*Source)(nil)

// New validates cfg, fills in its defaults and returns a simulator positioned
// before its first trade. With a GroundTruthPath it creates (truncates) that
// file and writes the events of the first simulated hour to it.
func New(cfg Config) (*Source, error) {
	if cfg.Seed == 0 {
		cfg.Seed = DefaultSeed
	}
	if cfg.Start.IsZero() {
		return nil, fmt.Errorf("%w: Start is required", ErrBadConfig)
	}
	startNs := cfg.Start.UnixNano()
	if startNs < schemas.MinEventTimeNs || startNs >= schemas.MaxEventTimeNs || cfg.Start.UTC().Year() >= 2100 || cfg.Start.UTC().Year() < 2009 {
		return nil, fmt.Errorf("%w: Start %s is outside 2009-01-03..2100-01-01", ErrBadConfig, cfg.Start.UTC().Format(time.RFC3339))
	}
	endNs := schemas.MaxEventTimeNs
	endSec := math.Inf(1)
	if !cfg.End.IsZero() {
		if !cfg.End.After(cfg.Start) {
			return nil, fmt.Errorf("%w: End %s is not after Start %s", ErrBadConfig,
				cfg.End.UTC().Format(time.RFC3339Nano), cfg.Start.UTC().Format(time.RFC3339Nano))
		}
		if cfg.End.UTC().Year() < 2100 {
			endNs = cfg.End.UnixNano()
			endSec = cfg.End.Sub(cfg.Start).Seconds()
		}
	}
	switch {
	case cfg.RateScale == 0:
		cfg.RateScale = 1
	case !(cfg.RateScale >= MinRateScale && cfg.RateScale <= MaxRateScale):
		return nil, fmt.Errorf("%w: RateScale %v is outside %v..%v", ErrBadConfig, cfg.RateScale, MinRateScale, MaxRateScale)
	}
	switch {
	case cfg.EventsPerSymbolPerDay == 0:
		cfg.EventsPerSymbolPerDay = DefaultEventsPerSymbolPerDay
	case math.IsNaN(cfg.EventsPerSymbolPerDay) || cfg.EventsPerSymbolPerDay > MaxEventsPerSymbolPerDay:
		return nil, fmt.Errorf("%w: EventsPerSymbolPerDay %v is above %v", ErrBadConfig, cfg.EventsPerSymbolPerDay, MaxEventsPerSymbolPerDay)
	}
	if len(cfg.Symbols) == 0 {
		cfg.Symbols = DefaultSymbols()
	} else {
		cfg.Symbols = append([]string(nil), cfg.Symbols...)
	}
	seen := make(map[string]bool, len(cfg.Symbols))
	for i, in := range cfg.Symbols {
		// Any spelling the registry accepts: tsla, TSLAUSD, RNDRUSD, BTC-USD.
		sym, _, _ := symbols.Canonical(in)
		if lookupSpec(sym) == nil {
			return nil, fmt.Errorf("%w: symbol %q is not simulated; the simulator trades %s (mi symbols lists every covered symbol)",
				ErrBadConfig, in, strings.Join(DefaultSymbols(), ", "))
		}
		if seen[sym] {
			return nil, fmt.Errorf("%w: symbol %q listed twice (as %s)", ErrBadConfig, in, sym)
		}
		seen[sym] = true
		cfg.Symbols[i] = sym
	}

	base := mix64(uint64(cfg.Seed)) ^ mix64(uint64(startNs)+golden)
	s := &Source{
		cfg:        cfg,
		name:       "sim:seed=" + strconv.FormatInt(cfg.Seed, 10),
		startNs:    startNs,
		endNs:      endNs,
		endSec:     endSec,
		factorRNG:  rand.New(rand.NewPCG(base, hashString("market factor"))),
		factorStep: factorVol / math.Sqrt(secondsPerYear),
		runKey:     mix64(base ^ 0x5eed),
		heap:       make([]heapItem, len(cfg.Symbols)),
	}
	s.runID = string(appendHex64(nil, s.runKey)[:8]) + "-"
	s.factor1 = s.factorStep * s.factorRNG.NormFloat64()
	if cfg.EventsPerSymbolPerDay > 0 {
		s.meanEventGap = 86400/cfg.EventsPerSymbolPerDay - QuietGap.Seconds() - meanEventSeconds
	}
	for v := range venues {
		if venues[v].dex {
			s.wallets[v] = walletPopulation(base, v)
		}
	}

	s.syms = make([]symbol, len(cfg.Symbols))
	for i, name := range cfg.Symbols {
		s.initSymbol(&s.syms[i], i, lookupSpec(name), base)
	}

	if cfg.GroundTruthPath != "" {
		f, err := os.Create(cfg.GroundTruthPath)
		if err != nil {
			return nil, fmt.Errorf("cannot create ground truth file: %w", err)
		}
		s.gtFile = f
		s.gt = bufio.NewWriter(f)
	}
	if err := s.scheduleChunk(); err != nil {
		s.Close()
		return nil, err
	}
	for i := range s.syms {
		if err := s.advance(&s.syms[i]); err != nil {
			s.Close()
			return nil, err
		}
		s.heap[i] = heapItem{ns: s.syms[i].ns, index: int32(i)}
	}
	for i := len(s.heap)/2 - 1; i >= 0; i-- {
		s.down(i)
	}
	return s, nil
}

// walletPopulation returns the wallet addresses of the DEX venue v.
func walletPopulation(base uint64, v int) []string {
	out := make([]string, walletsPerChain)
	for i := range out {
		key := mix64(base ^ hashString(venues[v].chain) ^ uint64(i)*golden)
		if venues[v].kind == schemas.VenueKind_VENUE_KIND_SOLANA_DEX {
			out[i] = solanaAddress(key)
		} else {
			out[i] = evmAddress(key)
		}
	}
	return out
}

func (s *Source) initSymbol(y *symbol, i int, sp *symbolSpec, base uint64) {
	y.spec = sp
	y.index = i
	key := hashString(sp.symbol)
	y.pcg = rand.NewPCG(base, key)
	y.rng = rand.New(y.pcg)
	y.regimeRNG = rand.New(rand.NewPCG(base, key^hashString("regimes")))
	y.plan.rng = rand.New(rand.NewPCG(base, key^hashString("events")))
	y.plan.on = s.cfg.EventsPerSymbolPerDay > 0

	y.mu = sp.rate * (1 - hawkesAlpha/hawkesBeta) * s.cfg.RateScale
	totalVar := sp.vol * sp.vol / secondsPerYear
	factorVar := sp.beta * sp.beta * factorVol * factorVol / secondsPerYear
	y.idioVar = max(totalVar-factorVar, minIdioShare*minIdioShare*totalVar)
	// The per-trade return has standard deviation sqrt(totalVar/rate); the
	// momentum sum weights returns by momentumKeep^k, so its standard
	// deviation is that times 1/sqrt(1-momentumKeep²).
	y.momScale = math.Sqrt(totalVar/(sp.rate*s.cfg.RateScale)) / math.Sqrt(1-momentumKeep*momentumKeep)
	y.priceScale = max(1, math.Pow(10, priceDigits-1-math.Floor(math.Log10(sp.price))))
	y.mid = sp.price

	var total float64
	for v := range venues {
		if sp.venues&(1<<v) != 0 {
			total += venues[v].weight[sp.class]
		}
	}
	var cum float64
	for v := range venues {
		if sp.venues&(1<<v) == 0 {
			continue
		}
		vn := &venues[v]
		cum += vn.weight[sp.class] / total
		sv := symVenue{v: v, cum: cum}
		if vn.dex {
			sv.venueSymbol = baseAsset(sp, true) + "/USDC"
			poolKey := hashString(vn.name + "|" + sp.symbol)
			if vn.kind == schemas.VenueKind_VENUE_KIND_SOLANA_DEX {
				sv.market = solanaAddress(poolKey)
			} else {
				sv.market = evmAddress(poolKey)
			}
		} else {
			sv.venueSymbol = baseAsset(sp, false) + "-USD"
			sv.market = sv.venueSymbol
		}
		y.venues = append(y.venues, sv)
	}
	y.venues[len(y.venues)-1].cum = 1

	y.regime = 0
	y.nextSwitch = y.regimeRNG.ExpFloat64() * regimeMeanSecs[0]
	s.drawPending(y, 0)
}

// Name returns "sim:seed=<seed>".
func (s *Source) Name() string { return s.name }

// Events returns the events scheduled so far, in start order (ties in
// Config.Symbols order). Events are scheduled an hour of simulated time
// ahead of the trades, and only when they end by Config.End.
func (s *Source) Events() []Event {
	out := make([]Event, len(s.events))
	for i, e := range s.events {
		e.Params = maps.Clone(e.Params)
		out[i] = e
	}
	return out
}

// Close flushes and closes the ground-truth file. Next fails with ErrClosed
// afterwards. Close is idempotent.
func (s *Source) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.gtFile == nil {
		return nil
	}
	err := s.gt.Flush()
	if cerr := s.gtFile.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("cannot close ground truth file %q: %w", s.cfg.GroundTruthPath, err)
	}
	return nil
}

// Next returns the next trade: trades of all symbols merged in event-time
// order, ties in Config.Symbols order. Every returned trade is freshly
// allocated and passes schemas.Validate. Next returns io.EOF once the next
// trade would be at or after Config.End, ctx's error when ctx is done,
// ErrClosed after Close, and an error when the ground truth cannot be
// written (after which the source cannot go on).
func (s *Source) Next(ctx context.Context) (sources.Record, error) {
	if s.err != nil {
		return sources.Record{}, s.err
	}
	if s.closed {
		return sources.Record{}, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return sources.Record{}, err
	}
	if s.heap[0].ns >= s.endNs {
		return sources.Record{}, io.EOF
	}
	y := &s.syms[s.heap[0].index]
	t := s.emit(y)
	if err := s.advance(y); err != nil {
		s.err = err
		return sources.Record{}, err
	}
	s.heap[0].ns = y.ns
	s.down(0)
	return sources.Record{Trade: t}, nil
}

// heapItem is a symbol in the merge heap: its index and the event time of
// its next trade.
type heapItem struct {
	ns    int64
	index int32
}

// less orders symbols by the time of their next trade, then by index.
func (a heapItem) less(b heapItem) bool {
	if a.ns != b.ns {
		return a.ns < b.ns
	}
	return a.index < b.index
}

// down restores the heap order below position i.
func (s *Source) down(i int) {
	h := s.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h[r].less(h[l]) {
			m = r
		}
		if !h[m].less(h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// advance draws the symbol's next trade time from its current one: the
// self-exciting arrival process simulated exactly between breakpoints (regime
// switches, event boundaries, the scheduling horizon) at which the baseline
// intensity may change. It accumulates the idiosyncratic variance and event
// drift of the interval on the way.
func (s *Source) advance(y *symbol) error {
	t := y.t
	p := &y.plan
	for {
		bp := y.nextSwitch
		var ev *event
		if len(p.queue) > 0 {
			e := p.queue[0]
			if p.active {
				ev = e
				bp = min(bp, e.end)
			} else {
				bp = min(bp, e.start)
			}
		}
		bp = min(bp, s.horizon)

		mu := y.mu * regimeRate[y.regime]
		if ev != nil {
			mu *= ev.rateMult
		}
		// Dassios–Zhao exact sampling for an exponential kernel: the next
		// arrival is the earlier of the baseline's, exponential with rate
		// mu, and the decaying excitation's, found by inverting its
		// survival function exp(-exc·(1-e^{-β s})/β). decay is e^{-β w}.
		w := y.rng.ExpFloat64() / mu
		decay := math.Exp(-hawkesBeta * w)
		if y.exc > 0 {
			// d = e^{-β s} for the excitation's arrival s, when it has one.
			if d := 1 - hawkesBeta*y.rng.ExpFloat64()/y.exc; d > decay {
				w, decay = -math.Log(d)/hawkesBeta, d
			}
		}
		if t+w < bp {
			s.accumulate(y, ev, w)
			y.exc = y.exc*decay + hawkesAlpha
			y.t = t + w
			y.ns = math.MaxInt64 // beyond 2100: the run is over
			if y.t < maxRunSeconds {
				y.ns = s.startNs + int64(y.t*1e9)
			}
			return nil
		}
		dt := bp - t
		s.accumulate(y, ev, dt)
		y.exc *= math.Exp(-hawkesBeta * dt)
		t = bp
		if t >= y.nextSwitch {
			y.regime ^= 1
			y.nextSwitch = t + y.regimeRNG.ExpFloat64()*regimeMeanSecs[y.regime]
		}
		if len(p.queue) > 0 {
			if e := p.queue[0]; p.active && t >= e.end {
				p.queue[0] = nil
				p.queue = p.queue[1:]
				p.active = false
			} else if !p.active && t >= e.start {
				p.active = true
			}
		}
		if t >= s.horizon {
			if err := s.scheduleChunk(); err != nil {
				return err
			}
		}
	}
}

// accumulate adds dt seconds of the symbol's idiosyncratic variance and event
// drift to the amounts the next trade's price move draws on.
func (s *Source) accumulate(y *symbol, ev *event, dt float64) {
	v := regimeVol[y.regime]
	y.accVar += y.idioVar * v * v * dt
	if ev != nil {
		y.accDrift += ev.drift * dt
	}
}

// factorAt returns the market factor at t seconds after Start. Calls must
// come in non-decreasing t, up to float rounding.
func (s *Source) factorAt(t float64) float64 {
	for t >= s.factorK+1 {
		s.factorK++
		s.factor0 = s.factor1
		s.factor1 += s.factorStep * s.factorRNG.NormFloat64()
	}
	return s.factor0 + (t-s.factorK)*(s.factor1-s.factor0)
}

// uniform returns a uniform draw from [0, 1) from the symbol's main stream.
func (y *symbol) uniform() float64 {
	return float64(y.pcg.Uint64()>>11) * 0x1p-53
}

// expSmall returns e^x: by its Taylor series up to x⁴ when |x| < 1e-3,
// where that is exact to within a rounding error (the x⁵ term is below
// 1e-17), otherwise by math.Exp. Most price moves between trades are tiny.
func expSmall(x float64) float64 {
	if x > -1e-3 && x < 1e-3 {
		return 1 + x*(1+x*(0.5+x*(1.0/6+x*(1.0/24))))
	}
	return math.Exp(x)
}

// tradeSlab is how many trades are allocated at a time: as many as fill
// the 32 KiB size class.
const tradeSlab = 32768 / int(unsafe.Sizeof(schemas.Trade{}))

// emit builds the symbol's next trade at its current time.
func (s *Source) emit(y *symbol) *schemas.Trade {
	r := y.rng
	p := &y.plan
	var ev *event
	if p.active {
		ev = p.queue[0]
	}

	// Price: factor move, idiosyncratic move, event drift.
	f := s.factorAt(float64(y.ns-s.startNs) * 1e-9)
	ret := y.spec.beta*(f-y.lastF) + math.Sqrt(y.accVar)*r.NormFloat64() + y.accDrift
	y.lastF = f
	y.accVar, y.accDrift = 0, 0
	y.mid *= expSmall(ret)
	y.mom = momentumKeep*y.mom + ret
	mid := y.mid

	// Venue.
	u := y.uniform()
	sv := &y.venues[0]
	for i := 1; i < len(y.venues) && u >= sv.cum; i++ {
		sv = &y.venues[i]
	}
	vn := &venues[sv.v]

	// Side.
	var buyProb float64
	if ev != nil {
		buyProb = ev.buyProb
	} else {
		z := y.mom / y.momScale
		buyProb = 0.5 + sideTilt*z/math.Sqrt(1+z*z)
	}
	side := schemas.Side_SIDE_SELL
	price := mid * (1 - vn.halfSpread)
	u = y.uniform()
	if vn.dex {
		// One draw for both: UNKNOWN below unknownSideShare, and the rest
		// rescaled to a fresh uniform for the buy/sell decision.
		if u < unknownSideShare {
			side, price, u = schemas.Side_SIDE_UNKNOWN, mid, 1
		} else {
			u = (u - unknownSideShare) / (1 - unknownSideShare)
		}
	}
	if u < buyProb {
		side = schemas.Side_SIDE_BUY
		price = mid * (1 + vn.halfSpread)
	}
	if q := math.Round(price*y.priceScale) / y.priceScale; q > 0 {
		price = q
	}

	// Size: heavy-tailed notional, converted to base units by price.
	var mult float64
	if y.uniform() < tailShare {
		mult = min(tailStart*math.Pow(1-y.uniform(), -1/tailIndex), tailCap)
	} else {
		mult = math.Exp(sizeSigma * r.NormFloat64())
	}
	notional := y.spec.notional * mult
	if side == schemas.Side_SIDE_SELL && ev != nil {
		notional *= ev.sellMult
	}
	size := notional / price

	if len(s.trades) == 0 {
		s.trades = make([]schemas.Trade, tradeSlab)
	}
	t := &s.trades[0]
	s.trades = s.trades[1:]
	t.Venue = vn.name
	t.VenueKind = vn.kind
	t.Chain = vn.chain
	t.Market = sv.market
	t.Symbol = y.spec.symbol
	t.VenueSymbol = sv.venueSymbol
	t.EventTimeNs = y.ns
	t.IngestTimeNs = y.ns
	t.Price = price
	t.Size = size
	t.NotionalUsd = price * size
	t.Side = side
	t.Source = s.name

	s.seq[sv.v]++
	seq := s.seq[sv.v]
	if !vn.dex {
		t.TradeId = s.strs.cexTradeID(s.runID, seq)
		return t
	}
	key := mix64(s.runKey ^ uint64(sv.v)<<56 ^ seq)
	evm := vn.kind == schemas.VenueKind_VENUE_KIND_ONCHAIN_DEX
	t.TradeId = s.strs.txHash(key, evm)
	if evm {
		t.LogIndex = uint32(key >> 58)
	}
	wallets := s.wallets[sv.v]
	if ev != nil && side == schemas.Side_SIDE_SELL && ev.sellMult > 1 && y.uniform() < distributorShare {
		t.Wallet = wallets[ev.wallet]
	} else {
		// Skewed towards low indexes: a few wallets trade a lot.
		w := y.uniform()
		t.Wallet = wallets[int(w*w*walletsPerChain)]
	}
	return t
}
