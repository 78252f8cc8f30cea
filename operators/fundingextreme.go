package operators

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/marketintel/mi/schemas"
)

// funding_extreme thresholds (spec §6; docs/positioning.md#funding_extreme).
const (
	// FundingExtremeMinOpenInterestUSD: a perp enters extreme funding only
	// with more open interest than this.
	FundingExtremeMinOpenInterestUSD = 5_000_000
	// FundingExtremeLong: annualized funding at or above it means longs are
	// crowded (they pay 50 %/yr to hold).
	FundingExtremeLong = 0.50
	// FundingExtremeShort: annualized funding at or below it means shorts are
	// crowded.
	FundingExtremeShort = -0.25
	// FundingExtremeExitRatio sets the hysteresis band: a perp in extreme
	// funding leaves it when its annualized funding falls below
	// FundingExtremeExitRatio × the entry threshold (45 %/yr, −22.5 %/yr), or
	// when its open interest falls to FundingExtremeMinOpenInterestUSD or
	// below. Without the band a rate hovering at 50 %/yr would fire on every
	// other poll.
	FundingExtremeExitRatio = 0.9
)

// Sides of a funding extreme.
const (
	FundingLongsCrowded  = "longs_crowded"
	FundingShortsCrowded = "shorts_crowded"
	fundingNormal        = "normal"
)

// FundingExtremeData is the data of a funding_extreme event.
type FundingExtremeData struct {
	// Venue and VenueSymbol name the perp: "binance" "BTCUSDT".
	Venue       string `json:"venue"`
	VenueSymbol string `json:"venueSymbol"`
	// Dex is the Hyperliquid builder dex of the perp ("xyz"), omitted on the
	// main dex and other venues.
	Dex string `json:"dex,omitempty"`
	// Side is longs_crowded (annualized ≥ +50 %) or shorts_crowded (≤ −25 %).
	Side string `json:"side"`
	// Previous is the state the perp left: normal, or the other side when
	// funding flipped from one extreme to the other between two polls.
	Previous string `json:"previous"`
	// FundingRate is the venue's rate per interval (fraction), paid every
	// FundingIntervalHours hours.
	FundingRate          float64 `json:"fundingRate"`
	FundingIntervalHours float64 `json:"fundingIntervalHours"`
	// AnnualizedFundingPercent is FundingRate × 8760 / FundingIntervalHours,
	// in percent per year; ThresholdPercent is the threshold it crossed (50
	// or −25).
	AnnualizedFundingPercent float64 `json:"annualizedFundingPercent"`
	ThresholdPercent         float64 `json:"thresholdPercent"`
	OpenInterestUSD          float64 `json:"openInterestUsd"`
	OpenInterest             float64 `json:"openInterest"`
	MarkPrice                float64 `json:"markPrice"`
	// ObservedAt is the venue's time of the figures (the event's time);
	// ReadAt when the poller read them.
	ObservedAt time.Time `json:"observedAt"`
	ReadAt     time.Time `json:"readAt"`
}

// FundingExtremeDetector fires funding_extreme when a perp enters extreme
// funding. It is a pure operator: time comes from the snapshots, and the
// same snapshots in the same order yield the same events with the same ids.
//
// Per perp (venue and venue symbol) it keeps a state: normal, longs_crowded
// or shorts_crowded. A snapshot with open interest above $5M and annualized
// funding ≥ 50 % enters longs_crowded, ≤ −25 % enters shorts_crowded;
// entering fires, staying does not. The perp leaves (to normal, silently)
// when its funding falls back inside the hysteresis band or its open interest
// to $5M or less, or when the venue delists it; entering again fires again.
// A jump from one extreme straight to the other fires for the new side.
// Snapshots not newer than the last one seen for the perp, history points and
// snapshots without a symbol are ignored.
type FundingExtremeDetector struct {
	perps map[string]*fundingPerp
}

type fundingPerp struct {
	State  string `json:"state"`
	LastNs int64  `json:"lastNs"`
	Symbol string `json:"symbol"`
}

// NewFundingExtremeDetector returns a detector with every perp normal.
func NewFundingExtremeDetector() *FundingExtremeDetector {
	return &FundingExtremeDetector{perps: map[string]*fundingPerp{}}
}

func fundingKey(venue, venueSymbol string) string { return venue + "|" + venueSymbol }

// FundingExtremeSide classifies one snapshot's funding given the perp's
// current state ("" or normal when it is not extreme): the side it is in
// after the snapshot, or normal. It is the rule of the detector without the
// state keeping.
func FundingExtremeSide(current string, openInterestUSD, annualized float64) string {
	if !(openInterestUSD > FundingExtremeMinOpenInterestUSD) {
		return fundingNormal
	}
	switch {
	case annualized >= FundingExtremeLong:
		return FundingLongsCrowded
	case annualized <= FundingExtremeShort:
		return FundingShortsCrowded
	case current == FundingLongsCrowded && annualized >= FundingExtremeExitRatio*FundingExtremeLong:
		return FundingLongsCrowded
	case current == FundingShortsCrowded && annualized <= FundingExtremeExitRatio*FundingExtremeShort:
		return FundingShortsCrowded
	}
	return fundingNormal
}

// Push runs one snapshot through the detector and appends the event it fires,
// if any, to out.
func (d *FundingExtremeDetector) Push(s *schemas.PerpSnapshot, out []AlertEvent) []AlertEvent {
	if s == nil || s.History || s.Symbol == "" || s.Venue == "" || s.VenueSymbol == "" {
		return out
	}
	k := fundingKey(s.Venue, s.VenueSymbol)
	p := d.perps[k]
	if p == nil {
		p = &fundingPerp{State: fundingNormal}
		d.perps[k] = p
	} else if s.ObservedNs <= p.LastNs {
		return out
	}
	p.LastNs, p.Symbol = s.ObservedNs, s.Symbol
	ann := AnnualizeFunding(s.FundingRate, s.FundingIntervalHours)
	next := fundingNormal
	if !s.Delisted {
		next = FundingExtremeSide(p.State, s.OpenInterestUsd, ann)
	}
	prev := p.State
	p.State = next
	if next == fundingNormal || next == prev {
		return out
	}
	thr := FundingExtremeLong
	if next == FundingShortsCrowded {
		thr = FundingExtremeShort
	}
	data := FundingExtremeData{
		Venue: s.Venue, VenueSymbol: s.VenueSymbol, Dex: s.Dex, Side: next, Previous: prev,
		FundingRate: s.FundingRate, FundingIntervalHours: s.FundingIntervalHours,
		AnnualizedFundingPercent: ann * 100, ThresholdPercent: thr * 100,
		OpenInterestUSD: s.OpenInterestUsd, OpenInterest: s.OpenInterest, MarkPrice: s.MarkPrice,
		ObservedAt: time.Unix(0, s.ObservedNs).UTC(), ReadAt: time.Unix(0, s.ReadNs).UTC(),
	}
	return append(out, newAlertEvent(AlertFundingExtreme, s.Symbol, s.ObservedNs, k+"|"+next, data))
}

// MarshalState returns the detector state as JSON, for a checkpoint. The
// encoding is sorted by key, so equal states give equal bytes.
func (d *FundingExtremeDetector) MarshalState() []byte {
	keys := make([]string, 0, len(d.perps))
	for k := range d.perps {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	type entry struct {
		Key string `json:"key"`
		fundingPerp
	}
	es := make([]entry, len(keys))
	for i, k := range keys {
		es[i] = entry{k, *d.perps[k]}
	}
	b, err := json.Marshal(es)
	if err != nil {
		panic("BUG: cannot marshal funding detector state: " + err.Error())
	}
	return b
}

// RestoreState replaces the detector state with one MarshalState returned.
func (d *FundingExtremeDetector) RestoreState(b []byte) error {
	var es []struct {
		Key string `json:"key"`
		fundingPerp
	}
	if err := json.Unmarshal(b, &es); err != nil {
		return fmt.Errorf("cannot restore funding detector state: %w", err)
	}
	m := make(map[string]*fundingPerp, len(es))
	for _, e := range es {
		switch e.State {
		case fundingNormal, FundingLongsCrowded, FundingShortsCrowded:
		default:
			return fmt.Errorf("cannot restore funding detector state: perp %q has state %q", e.Key, e.State)
		}
		p := e.fundingPerp
		m[e.Key] = &p
	}
	d.perps = m
	return nil
}
