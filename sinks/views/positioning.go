package views

import (
	"bytes"
	"errors"
	"math"
	"sort"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/schemas"
)

// Positioning rules of the view (docs/positioning.md#the-answer).
const (
	// PositioningStaleAfter: a venue row whose figures the venue observed
	// longer ago than this is stale (three missed 5-minute polls).
	PositioningStaleAfter = 15 * time.Minute
	// PositioningTotalSpan: the totals sum the rows observed within this
	// span before the newest row; older rows are listed but not summed (a
	// venue down for longer than this, or data of another day).
	PositioningTotalSpan = time.Hour
	// PositioningChangeTolerance: the reference point of a change (1 h or
	// 24 h before a row's observation) is the venue's newest point at or
	// before that time and at most this much older.
	PositioningChangeTolerance = 20 * time.Minute
	// PositioningRetention: open-interest points older than this before a
	// venue's newest point are dropped (the 24 h change needs 24 h and its
	// tolerance).
	PositioningRetention = 25 * time.Hour
)

// ErrNoPositioning is returned by Answer when the symbol has neither perp nor
// spot data (the route's 404).
var ErrNoPositioning = errors.New("no perp or spot data for the symbol")

// Positioning holds, per normalized symbol and perp venue, the latest
// snapshot and 25 h of open-interest points, from mi.positioning.v1. It is
// safe for concurrent use (many readers, one writer). The same set of records
// applied in any order gives the same answers: the latest snapshot of a
// venue perp is the one with the greatest observation time (then read time,
// then bytes), and a point is kept per observation time, a snapshot's over a
// history point's.
type Positioning struct {
	mu   sync.RWMutex
	syms map[string]*posSymbol
}

type posKey struct{ venue, venueSymbol string }

type posSymbol struct {
	venues map[posKey]*posVenue
}

type posVenue struct {
	cur    *schemas.PerpSnapshot // the latest snapshot (not history); nil = only history so far
	series []oiPoint             // ascending ns, one per ns
}

type oiPoint struct {
	ns        int64
	usd       float64
	contracts float64
	readNs    int64
	snapshot  bool // from a snapshot (not a history point)
}

// NewPositioning returns an empty positioning view.
func NewPositioning() *Positioning {
	return &Positioning{syms: map[string]*posSymbol{}}
}

// Apply adds one record of mi.positioning.v1. It returns the validation
// error of a record it refuses (schemas.ValidatePerpSnapshot); the caller
// dead-letters it.
func (p *Positioning) Apply(s *schemas.PerpSnapshot) error {
	if err := schemas.ValidatePerpSnapshot(s); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	sym := p.syms[s.Symbol]
	if sym == nil {
		sym = &posSymbol{venues: map[posKey]*posVenue{}}
		p.syms[s.Symbol] = sym
	}
	k := posKey{s.Venue, s.VenueSymbol}
	v := sym.venues[k]
	if v == nil {
		v = &posVenue{}
		sym.venues[k] = v
	}
	if !s.History && (v.cur == nil || newerSnapshot(s, v.cur)) {
		v.cur = proto.Clone(s).(*schemas.PerpSnapshot)
	}
	if !s.Delisted {
		v.add(oiPoint{ns: s.ObservedNs, usd: s.OpenInterestUsd, contracts: s.OpenInterest, readNs: s.ReadNs, snapshot: !s.History})
	}
	return nil
}

// newerSnapshot is the total order of snapshots of one venue perp.
func newerSnapshot(a, b *schemas.PerpSnapshot) bool {
	if a.ObservedNs != b.ObservedNs {
		return a.ObservedNs > b.ObservedNs
	}
	if a.ReadNs != b.ReadNs {
		return a.ReadNs > b.ReadNs
	}
	ab, _ := proto.MarshalOptions{Deterministic: true}.Marshal(a)
	bb, _ := proto.MarshalOptions{Deterministic: true}.Marshal(b)
	return bytes.Compare(ab, bb) > 0
}

// better is the order of two points of the same time.
func (a oiPoint) better(b oiPoint) bool {
	if a.snapshot != b.snapshot {
		return a.snapshot
	}
	if a.readNs != b.readNs {
		return a.readNs > b.readNs
	}
	if a.usd != b.usd {
		return a.usd > b.usd
	}
	return a.contracts > b.contracts
}

func (v *posVenue) add(pt oiPoint) {
	i := sort.Search(len(v.series), func(i int) bool { return v.series[i].ns >= pt.ns })
	switch {
	case i < len(v.series) && v.series[i].ns == pt.ns:
		if pt.better(v.series[i]) {
			v.series[i] = pt
		}
	default:
		v.series = append(v.series, oiPoint{})
		copy(v.series[i+1:], v.series[i:])
		v.series[i] = pt
	}
	newest := v.series[len(v.series)-1].ns
	cut := sort.Search(len(v.series), func(i int) bool { return v.series[i].ns >= newest-int64(PositioningRetention) })
	if cut > 0 {
		v.series = append(v.series[:0], v.series[cut:]...)
	}
}

// at returns the venue's newest point at or before ns and no older than
// tolerance before it.
func (v *posVenue) at(ns int64) (oiPoint, bool) {
	i := sort.Search(len(v.series), func(i int) bool { return v.series[i].ns > ns })
	if i == 0 {
		return oiPoint{}, false
	}
	pt := v.series[i-1]
	if ns-pt.ns > int64(PositioningChangeTolerance) {
		return oiPoint{}, false
	}
	return pt, true
}

// PositioningAnswer is the answer of /api/v1/intelligence/positioning/{symbol}
// (docs/positioning.md#the-answer documents every field).
type PositioningAnswer struct {
	Symbol     string              `json:"symbol"`
	AssetClass string              `json:"assetClass"`
	PerpOnly   bool                `json:"perpOnly"`
	Venues     []PositioningVenue  `json:"venues"`
	Delisted   []DelistedPerp      `json:"delistedVenues"`
	Totals     *PositioningTotals  `json:"totals"`
	Change     PositioningChange   `json:"change"`
	Flag       string              `json:"flag"`
	FlagRule   string              `json:"flagRule"`
	SpotFlow   *SpotFlow           `json:"spotFlow"`
	Coverage   PositioningCoverage `json:"coverage"`
	Stale      bool                `json:"stale"`
	AsOf       *time.Time          `json:"asOf"`
	Generated  time.Time           `json:"generatedAt"`
	Notes      []string            `json:"notes,omitempty"`
	excluded   map[posKey]struct{} // rows left out of the totals
	included   []*schemas.PerpSnapshot
}

// PositioningVenue is one perp of one venue.
type PositioningVenue struct {
	Venue       string `json:"venue"`
	VenueSymbol string `json:"venueSymbol"`
	Dex         string `json:"dex,omitempty"`
	// OpenInterest is in contracts (base units: coins, shares);
	// OpenInterestUSD its USD value as the venue values it (Binance, Bybit)
	// or at the mark price (Hyperliquid).
	OpenInterest    float64    `json:"openInterest"`
	OpenInterestUSD float64    `json:"openInterestUsd"`
	MarkPrice       float64    `json:"markPrice"`
	LongShort       *LongShare `json:"longShort"`
	Funding         Funding    `json:"funding"`
	// Change1hPercent and Change24hPercent are this venue's own change of
	// open interest in USD; null without a point 1 h (24 h) earlier.
	Change1hPercent  *float64  `json:"change1hPercent"`
	Change24hPercent *float64  `json:"change24hPercent"`
	Volume24hUSD     *float64  `json:"volume24hUsd"`
	ObservedAt       time.Time `json:"observedAt"`
	ReadAt           time.Time `json:"readAt"`
	AgeSeconds       int64     `json:"ageSeconds"`
	Stale            bool      `json:"stale"`
	InTotals         bool      `json:"inTotals"`
	Source           string    `json:"source"`
}

// LongShare is the long/short share a venue publishes, and which measure.
type LongShare struct {
	Kind       string    `json:"kind"`
	LongShare  float64   `json:"longShare"`
	ShortShare float64   `json:"shortShare"`
	Ratio      float64   `json:"ratio"`
	Period     string    `json:"period"`
	ObservedAt time.Time `json:"observedAt"`
}

// Funding is a venue's current funding rate and its yearly equivalent.
type Funding struct {
	Rate              float64    `json:"rate"`
	IntervalHours     float64    `json:"intervalHours"`
	IntervalSource    string     `json:"intervalSource"`
	AnnualizedPercent float64    `json:"annualizedPercent"`
	NextFundingAt     *time.Time `json:"nextFundingAt"`
}

// DelistedPerp is a perp its venue no longer lists.
type DelistedPerp struct {
	Venue       string    `json:"venue"`
	VenueSymbol string    `json:"venueSymbol"`
	Since       time.Time `json:"since"`
}

// PositioningTotals sums the rows observed within PositioningTotalSpan of the
// newest row.
type PositioningTotals struct {
	OpenInterestUSD float64 `json:"openInterestUsd"`
	Venues          int     `json:"venues"`
	// LongShare and ShortShare are the averages of the venues that publish
	// a share, weighted by their open interest in USD; null when none does.
	LongShare       *float64 `json:"longShare"`
	ShortShare      *float64 `json:"shortShare"`
	LongShareVenues []string `json:"longShareVenues"`
	// FundingAnnualizedPercent is the open-interest-weighted average of the
	// venues' annualized funding.
	FundingAnnualizedPercent float64        `json:"fundingAnnualizedPercent"`
	OldestObservedAt         time.Time      `json:"oldestObservedAt"`
	NewestObservedAt         time.Time      `json:"newestObservedAt"`
	Excluded                 []ExcludedPerp `json:"excluded"`
}

// ExcludedPerp is a venue row left out of the totals, and why.
type ExcludedPerp struct {
	Venue       string `json:"venue"`
	VenueSymbol string `json:"venueSymbol"`
	Reason      string `json:"reason"`
}

// PositioningChange is the change of the total open interest.
type PositioningChange struct {
	OpenInterest1h  *OIChange `json:"openInterest1h"`
	OpenInterest24h *OIChange `json:"openInterest24h"`
}

// OIChange compares the summed open interest of the venues that have a point
// both now and then.
type OIChange struct {
	Percent    float64  `json:"percent"`
	FromUSD    float64  `json:"fromUsd"`
	ToUSD      float64  `json:"toUsd"`
	Venues     []string `json:"venues"`
	Incomplete bool     `json:"incomplete"`
}

// SpotFlow is the latest spot intelligence of the symbol (the 5m window of
// the intelligence view).
type SpotFlow struct {
	Window             string    `json:"window"`
	Price              float64   `json:"price"`
	VolumeUSD          float64   `json:"volumeUsd"`
	BuyPressure        float64   `json:"buyPressure"`
	PriceChangePercent float64   `json:"priceChangePercent"`
	Signal             string    `json:"signal"`
	Timestamp          time.Time `json:"timestamp"`
	AgeSeconds         int64     `json:"ageSeconds"`
}

// PositioningCoverage says what the answer covers.
type PositioningCoverage struct {
	Partial bool   `json:"partial"`
	Note    string `json:"note,omitempty"`
}

// flagRule is the rule text every answer carries.
const flagRule = "THIN when total open interest < $50,000; else CROWDED_LONG when the open-interest-weighted long share of the venues that publish one is >= 65%, CROWDED_SHORT when the short share is; else NONE"

// SpotSource is where the answer finds the symbol's spot flow: the
// intelligence view (*Views).
type SpotSource interface {
	Get(symbol, window string) (*schemas.IntelligenceDocument, bool)
}

// spotWindow is the intelligence window the answer reports as spot flow.
const spotWindow = "5m"

// Answer builds the positioning answer of symbol at now (the request time:
// it only ages the figures; which figures are shown depends on the records
// alone). spot may be nil. It returns ErrNoPositioning when the symbol has
// neither a perp snapshot nor a spot document.
func (p *Positioning) Answer(symbol string, now time.Time, spot SpotSource) (*PositioningAnswer, error) {
	var doc *schemas.IntelligenceDocument
	if spot != nil {
		doc, _ = spot.Get(symbol, spotWindow)
	}
	p.mu.RLock()
	a := p.build(symbol, now)
	p.mu.RUnlock()
	if a == nil && doc == nil {
		return nil, ErrNoPositioning
	}
	if a == nil {
		a = &PositioningAnswer{Symbol: symbol, Venues: []PositioningVenue{}, Delisted: []DelistedPerp{}, Flag: operators.FlagNone,
			FlagRule: flagRule, Generated: now.UTC()}
		a.Coverage = PositioningCoverage{Partial: true, Note: "no perpetuals venue we read lists " + symbol + "; spot flow only"}
	}
	if doc != nil {
		ts := time.Unix(0, doc.TimestampNs).UTC()
		a.SpotFlow = &SpotFlow{Window: spotWindow, Price: doc.Price, VolumeUSD: doc.Volume, BuyPressure: doc.BuyPressure,
			PriceChangePercent: doc.PriceChangePercent, Signal: doc.Signal, Timestamp: ts, AgeSeconds: ageSeconds(now, ts)}
	} else if a.Coverage.Note == "" {
		a.Coverage.Partial = true
		if a.PerpOnly {
			a.Coverage.Note = symbol + " is a perp-only instrument: there is no spot market, so no spot flow"
		} else {
			a.Coverage.Note = "no spot trades of " + symbol + " in the covered venues: no spot flow"
		}
	}
	return a, nil
}

func ageSeconds(now, t time.Time) int64 {
	d := now.Sub(t)
	if d < 0 {
		return 0
	}
	return int64(d / time.Second)
}

func ptr(v float64) *float64 { return &v }

// pct rounds a percentage to 4 decimals.
func pct(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// build assembles the perp part of the answer, or nil when the symbol has
// no snapshot. Called with the read lock held.
func (p *Positioning) build(symbol string, now time.Time) *PositioningAnswer {
	sym := p.syms[symbol]
	if sym == nil {
		return nil
	}
	keys := make([]posKey, 0, len(sym.venues))
	for k, v := range sym.venues {
		if v.cur != nil {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].venue != keys[j].venue {
			return keys[i].venue < keys[j].venue
		}
		return keys[i].venueSymbol < keys[j].venueSymbol
	})
	a := &PositioningAnswer{Symbol: symbol, Venues: []PositioningVenue{}, Delisted: []DelistedPerp{}, FlagRule: flagRule, Generated: now.UTC()}
	var newest int64
	for _, k := range keys {
		s := sym.venues[k].cur
		if a.AssetClass == "" {
			a.AssetClass = s.AssetClass
		}
		if !s.Delisted && s.ObservedNs > newest {
			newest = s.ObservedNs
		}
	}
	a.PerpOnly = a.AssetClass == "perp_only"
	totals := &PositioningTotals{LongShareVenues: []string{}, Excluded: []ExcludedPerp{}}
	var longW, shortW, shareW, fundW float64
	var oldest int64
	for _, k := range keys {
		v := sym.venues[k]
		s := v.cur
		if s.Delisted {
			a.Delisted = append(a.Delisted, DelistedPerp{Venue: s.Venue, VenueSymbol: s.VenueSymbol, Since: time.Unix(0, s.ObservedNs).UTC()})
			continue
		}
		obs := time.Unix(0, s.ObservedNs).UTC()
		ann := operators.AnnualizeFunding(s.FundingRate, s.FundingIntervalHours)
		row := PositioningVenue{
			Venue: s.Venue, VenueSymbol: s.VenueSymbol, Dex: s.Dex, OpenInterest: s.OpenInterest, OpenInterestUSD: s.OpenInterestUsd,
			MarkPrice: s.MarkPrice,
			Funding: Funding{Rate: s.FundingRate, IntervalHours: s.FundingIntervalHours, IntervalSource: s.FundingIntervalSource,
				AnnualizedPercent: pct(100 * ann)},
			ObservedAt: obs, ReadAt: time.Unix(0, s.ReadNs).UTC(), AgeSeconds: ageSeconds(now, obs),
			Stale: now.Sub(obs) > PositioningStaleAfter, Source: s.Source,
		}
		if s.NextFundingNs > 0 {
			t := time.Unix(0, s.NextFundingNs).UTC()
			row.Funding.NextFundingAt = &t
		}
		if s.DayVolumeUsd > 0 {
			row.Volume24hUSD = ptr(s.DayVolumeUsd)
		}
		if ls := s.LongShort; ls != nil {
			row.LongShort = &LongShare{Kind: ls.Kind, LongShare: ls.LongShare, ShortShare: ls.ShortShare, Ratio: ls.Ratio,
				Period: ls.Period, ObservedAt: time.Unix(0, ls.ObservedNs).UTC()}
		}
		for _, c := range []struct {
			h   time.Duration
			dst **float64
		}{{time.Hour, &row.Change1hPercent}, {24 * time.Hour, &row.Change24hPercent}} {
			if then, ok := v.at(s.ObservedNs - int64(c.h)); ok && then.usd > 0 {
				*c.dst = ptr(pct(100 * (s.OpenInterestUsd/then.usd - 1)))
			}
		}
		if newest-s.ObservedNs > int64(PositioningTotalSpan) {
			totals.Excluded = append(totals.Excluded, ExcludedPerp{Venue: s.Venue, VenueSymbol: s.VenueSymbol,
				Reason: "observed " + time.Duration(newest-s.ObservedNs).Round(time.Minute).String() + " before the newest venue row"})
		} else {
			row.InTotals = true
			a.included = append(a.included, s)
			totals.OpenInterestUSD += s.OpenInterestUsd
			totals.Venues++
			fundW += ann * s.OpenInterestUsd
			if s.LongShort != nil {
				longW += s.LongShort.LongShare * s.OpenInterestUsd
				shortW += s.LongShort.ShortShare * s.OpenInterestUsd
				shareW += s.OpenInterestUsd
				totals.LongShareVenues = append(totals.LongShareVenues, s.Venue)
			}
			if oldest == 0 || s.ObservedNs < oldest {
				oldest = s.ObservedNs
			}
			if row.Stale {
				a.Stale = true
			}
		}
		a.Venues = append(a.Venues, row)
	}
	if totals.Venues == 0 {
		// Every perp is delisted.
		a.Flag = operators.FlagNone
		a.Coverage = PositioningCoverage{Partial: true, Note: "every perp of " + symbol + " we read is delisted"}
		return a
	}
	totals.OldestObservedAt = time.Unix(0, oldest).UTC()
	totals.NewestObservedAt = time.Unix(0, newest).UTC()
	asOf := totals.OldestObservedAt
	a.AsOf = &asOf
	long, short := 0.0, 0.0
	if shareW > 0 {
		long, short = longW/shareW, shortW/shareW
		totals.LongShare, totals.ShortShare = ptr(math.Round(long*1e4)/1e4), ptr(math.Round(short*1e4)/1e4)
	}
	if totals.OpenInterestUSD > 0 {
		totals.FundingAnnualizedPercent = pct(100 * fundW / totals.OpenInterestUSD)
	}
	a.Totals = totals
	a.Flag = operators.PositioningFlag(totals.OpenInterestUSD, long, short, shareW > 0)
	if shareW == 0 && a.Flag == operators.FlagNone {
		a.Notes = append(a.Notes, "no venue publishes a long/short share for "+symbol+": the flag can only be THIN or NONE")
	}
	a.Change.OpenInterest1h = p.change(sym, a.included, time.Hour)
	a.Change.OpenInterest24h = p.change(sym, a.included, 24*time.Hour)
	return a
}

// change compares the included rows with their venues' points h earlier.
func (p *Positioning) change(sym *posSymbol, rows []*schemas.PerpSnapshot, h time.Duration) *OIChange {
	c := &OIChange{Venues: []string{}}
	for _, s := range rows {
		then, ok := sym.venues[posKey{s.Venue, s.VenueSymbol}].at(s.ObservedNs - int64(h))
		if !ok || then.usd <= 0 {
			c.Incomplete = true
			continue
		}
		c.FromUSD += then.usd
		c.ToUSD += s.OpenInterestUsd
		c.Venues = append(c.Venues, s.Venue)
	}
	if c.FromUSD <= 0 {
		return nil
	}
	c.Percent = pct(100 * (c.ToUSD/c.FromUSD - 1))
	return c
}

// Crowding is the read the opportunity scan's crowded_positioning objective
// takes of one symbol (spec §4.2): total open interest, the long/short share
// and which ratios it comes from, annualized funding, the flag, and the time
// of the figures.
type Crowding struct {
	Symbol string
	// AssetClass is the registry class of the symbol's perps (crypto,
	// us_equity, perp_only; "" when not in the registry).
	AssetClass      string
	OpenInterestUSD float64
	// HasShare is false when no venue publishes a share; LongShare and
	// ShortShare are then 0.
	HasShare              bool
	LongShare, ShortShare float64
	// RatioKinds names the measures behind the share ("global_account"
	// from Binance, "account" from Bybit), one per venue, in venue order.
	RatioKinds               []string
	FundingAnnualizedPercent float64
	Flag                     string
	// ObservedAt is the oldest observation in the totals; ReadAt the newest
	// read; Stale whether any summed row is older than
	// PositioningStaleAfter at now.
	ObservedAt, ReadAt time.Time
	Stale              bool
}

// Crowding returns the crowding read of symbol at now, and false when no perp
// of the symbol is listed. It is the totals, flag and staleness of Answer
// (the same rules: rows observed within PositioningTotalSpan of the newest
// row, open-interest-weighted shares, operators.PositioningFlag), computed
// without building the answer's rows: the opportunity scan reads it for
// every symbol of its universe.
func (p *Positioning) Crowding(symbol string, now time.Time) (Crowding, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	sym := p.syms[symbol]
	if sym == nil {
		return Crowding{}, false
	}
	var buf [8]posKey
	keys := buf[:0]
	for k, v := range sym.venues {
		if v.cur != nil {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return Crowding{}, false
	}
	if len(keys) > 1 {
		sort.Slice(keys, func(i, j int) bool {
			if keys[i].venue != keys[j].venue {
				return keys[i].venue < keys[j].venue
			}
			return keys[i].venueSymbol < keys[j].venueSymbol
		})
	}
	c := Crowding{Symbol: symbol, AssetClass: sym.venues[keys[0]].cur.AssetClass, RatioKinds: []string{}}
	var newest int64
	for _, k := range keys {
		if s := sym.venues[k].cur; !s.Delisted && s.ObservedNs > newest {
			newest = s.ObservedNs
		}
	}
	var longW, shortW, shareW, fundW float64
	var oldest int64
	venues := 0
	for _, k := range keys {
		s := sym.venues[k].cur
		if s.Delisted || newest-s.ObservedNs > int64(PositioningTotalSpan) {
			continue
		}
		venues++
		c.OpenInterestUSD += s.OpenInterestUsd
		fundW += operators.AnnualizeFunding(s.FundingRate, s.FundingIntervalHours) * s.OpenInterestUsd
		if s.LongShort != nil {
			longW += s.LongShort.LongShare * s.OpenInterestUsd
			shortW += s.LongShort.ShortShare * s.OpenInterestUsd
			shareW += s.OpenInterestUsd
			c.RatioKinds = append(c.RatioKinds, s.LongShort.Kind)
		}
		if oldest == 0 || s.ObservedNs < oldest {
			oldest = s.ObservedNs
		}
		if now.Sub(time.Unix(0, s.ObservedNs)) > PositioningStaleAfter {
			c.Stale = true
		}
		if r := time.Unix(0, s.ReadNs).UTC(); r.After(c.ReadAt) {
			c.ReadAt = r
		}
	}
	if venues == 0 {
		return Crowding{}, false // every perp is delisted
	}
	c.ObservedAt = time.Unix(0, oldest).UTC()
	long, short := 0.0, 0.0
	if shareW > 0 {
		long, short = longW/shareW, shortW/shareW
		c.HasShare, c.LongShare, c.ShortShare = true, math.Round(long*1e4)/1e4, math.Round(short*1e4)/1e4
	}
	if c.OpenInterestUSD > 0 {
		c.FundingAnnualizedPercent = pct(100 * fundW / c.OpenInterestUSD)
	}
	c.Flag = operators.PositioningFlag(c.OpenInterestUSD, long, short, shareW > 0)
	return c, true
}

// Symbols returns the symbols with at least one perp snapshot, sorted.
func (p *Positioning) Symbols() []string {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make([]string, 0, len(p.syms))
	for s, sym := range p.syms {
		for _, v := range sym.venues {
			if v.cur != nil {
				out = append(out, s)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}
