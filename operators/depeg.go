package operators

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/marketintel/mi/schemas"
)

// stablecoin_depeg thresholds (spec §6; docs/token.md#stablecoin_depeg).
const (
	// DepegWatchBps and DepegBps: a stablecoin whose DEX price is this far
	// from $1 (basis points, either side) is in WATCH, or DEPEG.
	DepegWatchBps = 30.0
	DepegBps      = 100.0
	// DepegExitBps: a level is left (silently) when the deviation falls
	// this far below its threshold, so a price hovering at 30 bp does not
	// fire on every read.
	DepegExitBps = 5.0
	// DepegMinDepthUSD: a reading from a pool holding at least this much
	// confirms itself; a shallower pool's reading needs the oracle.
	DepegMinDepthUSD = 250_000.0
	// DepegOracleMaxAge: an oracle answer older than this (before the
	// reading) does not confirm.
	DepegOracleMaxAge = 24 * time.Hour
)

// Depeg levels.
const (
	DepegNormal = "NORMAL"
	DepegWatch  = "WATCH"
	DepegLevel  = "DEPEG"
)

// StablecoinSymbols are the eleven USD stablecoins the depeg watch lists
// (docs/token.md).
var StablecoinSymbols = []string{"USDC", "USDT", "DAI", "USDS", "PYUSD", "FRAX", "LUSD", "USDP", "RLUSD", "USDe", "TUSD"}

// StablecoinDepegData is the data of a stablecoin_depeg event.
type StablecoinDepegData struct {
	Stablecoin string `json:"stablecoin"`
	Chain      string `json:"chain"`
	Pool       string `json:"pool"`
	Venue      string `json:"venue"`
	// Level is WATCH or DEPEG; Previous the level left (NORMAL or WATCH).
	Level    string `json:"level"`
	Previous string `json:"previous"`
	// DexPrice is USD per token from our read of the pool; DeviationBps
	// (DexPrice - 1) x 10,000, negative below the peg; ThresholdBps the
	// threshold crossed (30 or 100).
	DexPrice     float64 `json:"dexPrice"`
	DeviationBps float64 `json:"deviationBps"`
	ThresholdBps float64 `json:"thresholdBps"`
	DepthUSD     float64 `json:"depthUsd"`
	// ConfirmedBy is "depth" (the pool holds at least $250,000), "oracle"
	// (the Chainlink answer is off the peg on the same side by at least
	// 30 bp) or "depth+oracle".
	ConfirmedBy string    `json:"confirmedBy"`
	OraclePrice *float64  `json:"oraclePrice"`
	ObservedAt  time.Time `json:"observedAt"`
	ReadAt      time.Time `json:"readAt"`
	Block       uint64    `json:"block"`
}

// DepegDetector fires stablecoin_depeg when a listed stablecoin's DEX price
// moves from NORMAL to WATCH (|deviation| ≥ 30 bp), to DEPEG (≥ 100 bp),
// or from WATCH to DEPEG; a reading moves the level only when it is
// confirmed — by its pool's depth or by the Chainlink feed — so a thin
// pool alone cannot fire. Levels are left silently once the deviation is
// DepegExitBps inside the threshold (a confirmed reading is not needed to
// calm down). It is a pure operator: time comes from the readings; per
// stablecoin and chain it keeps the level and the last reading's time, and
// readings not newer are ignored.
type DepegDetector struct {
	coins map[string]*depegCoin
}

type depegCoin struct {
	Level  string `json:"level"`
	LastNs int64  `json:"lastNs"`
}

// NewDepegDetector returns a detector with every stablecoin NORMAL.
func NewDepegDetector() *DepegDetector { return &DepegDetector{coins: map[string]*depegCoin{}} }

// DepegLevelOf classifies a deviation (bp) given the current level: the
// rule of the detector without confirmation and state.
func DepegLevelOf(current string, devBps float64) string {
	d := math.Abs(devBps)
	switch {
	case d >= DepegBps:
		return DepegLevel
	case current == DepegLevel && d >= DepegBps-DepegExitBps:
		return DepegLevel
	case d >= DepegWatchBps:
		return DepegWatch
	case current != DepegNormal && current != "" && d >= DepegWatchBps-DepegExitBps:
		return DepegWatch
	}
	return DepegNormal
}

// depegConfirmation says what confirms q's deviation: "" when nothing.
func depegConfirmation(q *schemas.StablecoinQuote, devBps float64) string {
	var by string
	if q.DepthUsd >= DepegMinDepthUSD {
		by = "depth"
	}
	if q.HasOracle && q.OracleUpdatedNs > 0 && q.ObservedNs-q.OracleUpdatedNs <= int64(DepegOracleMaxAge) {
		od := (q.OraclePrice - 1) * 10_000
		if math.Abs(od) >= DepegWatchBps && math.Signbit(od) == math.Signbit(devBps) {
			if by == "" {
				by = "oracle"
			} else {
				by += "+oracle"
			}
		}
	}
	return by
}

var depegRank = map[string]int{DepegNormal: 0, DepegWatch: 1, DepegLevel: 2}

// Push runs one reading through the detector and appends the event it
// fires, if any, to out.
func (d *DepegDetector) Push(q *schemas.StablecoinQuote, out []AlertEvent) []AlertEvent {
	if q == nil || q.Symbol == "" || !(q.DexPrice > 0) || math.IsInf(q.DexPrice, 0) {
		return out
	}
	k := q.Symbol + "|" + q.Chain
	c := d.coins[k]
	if c == nil {
		c = &depegCoin{Level: DepegNormal}
		d.coins[k] = c
	} else if q.ObservedNs <= c.LastNs {
		return out
	}
	c.LastNs = q.ObservedNs
	dev := (q.DexPrice - 1) * 10_000
	next := DepegLevelOf(c.Level, dev)
	prev := c.Level
	if depegRank[next] <= depegRank[prev] {
		c.Level = next // calming down or staying needs no confirmation
		return out
	}
	by := depegConfirmation(q, dev)
	if by == "" {
		return out // unconfirmed: the level stays
	}
	c.Level = next
	thr := DepegWatchBps
	if next == DepegLevel {
		thr = DepegBps
	}
	data := StablecoinDepegData{Stablecoin: q.Symbol, Chain: q.Chain, Pool: q.Pool, Venue: q.Venue, Level: next, Previous: prev,
		DexPrice: q.DexPrice, DeviationBps: dev, ThresholdBps: thr, DepthUSD: q.DepthUsd, ConfirmedBy: by,
		ObservedAt: time.Unix(0, q.ObservedNs).UTC(), ReadAt: time.Unix(0, q.ReadNs).UTC(), Block: q.Block}
	if q.HasOracle {
		p := q.OraclePrice
		data.OraclePrice = &p
	}
	return append(out, newAlertEvent(AlertStablecoinDepeg, q.Symbol, q.ObservedNs, k+"|"+next, data))
}

// MarshalState returns the detector state as JSON (sorted keys).
func (d *DepegDetector) MarshalState() []byte {
	keys := make([]string, 0, len(d.coins))
	for k := range d.coins {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	type entry struct {
		Key string `json:"key"`
		depegCoin
	}
	es := make([]entry, len(keys))
	for i, k := range keys {
		es[i] = entry{k, *d.coins[k]}
	}
	b, err := json.Marshal(es)
	if err != nil {
		panic("BUG: cannot marshal depeg detector state: " + err.Error())
	}
	return b
}

// RestoreState replaces the state with one MarshalState returned.
func (d *DepegDetector) RestoreState(b []byte) error {
	var es []struct {
		Key string `json:"key"`
		depegCoin
	}
	if err := json.Unmarshal(b, &es); err != nil {
		return fmt.Errorf("cannot restore depeg detector state: %w", err)
	}
	m := make(map[string]*depegCoin, len(es))
	for _, e := range es {
		if _, ok := depegRank[e.Level]; !ok {
			return fmt.Errorf("cannot restore depeg detector state: %q has level %q", e.Key, e.Level)
		}
		c := e.depegCoin
		m[e.Key] = &c
	}
	d.coins = m
	return nil
}
