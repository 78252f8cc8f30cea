package operators

import (
	"bufio"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/marketintel/mi/schemas"
)

// testBase is the default time origin of test trades: 2024-01-01T00:00:00Z.
var testBase = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()

// recorder collects an engine's output as deterministic protobuf bytes and
// as text lines.
type recorder struct {
	base    int64
	binOnly bool // record bytes only: no text, no clones (fast)
	bin     [][]byte
	lines   []string

	candles []*schemas.Candle
	docs    []*schemas.IntelligenceDocument
	changes []*schemas.SignalChange
	rejects []string // reasons
}

func newRecorder() *recorder { return &recorder{base: testBase} }

var marshalDet = proto.MarshalOptions{Deterministic: true}

func (r *recorder) emit() Emit {
	return Emit{
		Candle: func(c *schemas.Candle) {
			if r.binOnly {
				r.add(c, "")
				return
			}
			r.add(c, renderCandle(r.base, c))
			r.candles = append(r.candles, proto.Clone(c).(*schemas.Candle))
		},
		Document: func(d *schemas.IntelligenceDocument) {
			if r.binOnly {
				r.add(d, "")
				return
			}
			r.add(d, renderDoc(r.base, d))
			r.docs = append(r.docs, proto.Clone(d).(*schemas.IntelligenceDocument))
		},
		SignalChange: func(c *schemas.SignalChange) {
			if r.binOnly {
				r.add(c, "")
				return
			}
			r.add(c, renderChange(r.base, c))
			r.changes = append(r.changes, proto.Clone(c).(*schemas.SignalChange))
		},
		Reject: func(t *schemas.Trade, reason string) {
			b, err := marshalDet.Marshal(t)
			if err != nil {
				panic(err)
			}
			r.bin = append(r.bin, append(b, reason...))
			if r.binOnly {
				return
			}
			r.lines = append(r.lines, fmt.Sprintf("reject %s %s %s id=%s: %s", offset(r.base, t.EventTimeNs), t.Symbol, t.Venue, t.TradeId, reason))
			r.rejects = append(r.rejects, reason)
		},
	}
}

func (r *recorder) add(m proto.Message, line string) {
	b, err := marshalDet.Marshal(m)
	if err != nil {
		panic(err)
	}
	r.bin = append(r.bin, b)
	if !r.binOnly {
		r.lines = append(r.lines, line)
	}
}

func (r *recorder) text() string { return strings.Join(r.lines, "\n") + "\n" }

// docsOf returns the recorded documents of one symbol and window.
func (r *recorder) docsOf(symbol, window string) []*schemas.IntelligenceDocument {
	var out []*schemas.IntelligenceDocument
	for _, d := range r.docs {
		if d.Symbol == symbol && d.Window == window {
			out = append(out, d)
		}
	}
	return out
}

func offset(base, ns int64) string { return time.Duration(ns - base).String() }

func ff(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func renderCandle(base int64, c *schemas.Candle) string {
	return fmt.Sprintf("candle %s %s %s chain=%s start=%s o=%s h=%s l=%s c=%s v=%s vusd=%s bv=%s sv=%s bvusd=%s svusd=%s bp=%s vwap=%s n=%d nb=%d ns=%d nu=%d",
		c.Symbol, c.Venue, schemas.VenueKindName(c.VenueKind), c.Chain, offset(base, c.StartNs),
		ff(c.Open), ff(c.High), ff(c.Low), ff(c.Close), ff(c.Volume), ff(c.VolumeUsd),
		ff(c.BuyVolume), ff(c.SellVolume), ff(c.BuyVolumeUsd), ff(c.SellVolumeUsd), ff(c.BuyPressure), ff(c.Vwap),
		c.TradeCount, c.BuyCount, c.SellCount, c.UnknownSideCount)
}

func renderDoc(base int64, d *schemas.IntelligenceDocument) string {
	o := d.Observations
	q := o.Quality
	return fmt.Sprintf("doc %s %s at=%s id=%s price=%s last=%s vol=%s buy=%s sell=%s bp=%s ratio=%s imb=%s chg=%s vacc=%s tacc=%s avg=%s rate=%s vrate=%s chgpm=%s n=%d large=%d lbuy=%s lsell=%s maxsize=%s maxusd=%s side=%s\n"+
		"    obs ws=%s prevvol=%s prevn=%d first=%s thr=%s high=%s low=%s vwap=%s late=%d dup=%d unk=%s venues=%s/%d",
		d.Symbol, d.Window, offset(base, d.TimestampNs), d.Id, ff(d.Price), offset(base, d.LastTradeTimeNs),
		ff(d.Volume), ff(d.BuyVolume), ff(d.SellVolume), ff(d.BuyPressure), ff(d.BuySellRatio), ff(d.BuySellImbalance),
		ff(d.PriceChangePercent), ff(d.VolumeAcceleration), ff(d.TradeAcceleration), ff(d.AverageTradeSize),
		ff(d.TradeRatePerMinute), ff(d.VolumeRatePerMinute), ff(d.PriceChangePerMinute), d.TradeCount, d.LargeTradeCount,
		ff(d.LargeBuyVolume), ff(d.LargeSellVolume), ff(d.MaxTradeSize), ff(d.MaxTradeNotional), d.DominantSide,
		ff(o.WindowSeconds), ff(o.PreviousVolume), o.PreviousTradeCount, ff(o.FirstPrice), ff(o.LargeTradeThresholdUsd),
		ff(o.High), ff(o.Low), ff(o.Vwap), q.LateTrades, q.DuplicateTrades, ff(q.UnknownSideShare),
		strings.Join(q.Venues, ","), q.VenueCount) +
		fmt.Sprintf("\n    sig %s/%s %s prev=%s since=%s age=%d mom=%s act=%s anom=%s conf=%s event=%s"+
			" base=%d/%t amult=%s vmult=%s az=%s vz=%s medv=%s medn=%s interp=%s/%s/%s/%s\n    evidence %s",
			d.Signal, d.SignalStrength, d.LifecycleState, d.PreviousSignal, offset(base, d.SignalChangedAtNs), d.SignalAgeSeconds,
			ff(d.MomentumScore), ff(d.ActivityScore), ff(d.AnomalyScore), ff(d.ConfidenceScore), d.EventType,
			d.BaselineSamples, d.BaselineReady, ff(d.ActivityMultiple), ff(d.VolumeMultiple), ff(d.ActivityZScore), ff(d.VolumeZScore),
			ff(o.BaselineVolumeMedian), ff(o.BaselineTradeCountMedian), d.Interpretation.Momentum, d.Interpretation.Activity,
			d.Interpretation.Buying, d.Interpretation.RelativeStrength, strings.Join(d.Evidence, " | "))
}

func renderChange(base int64, c *schemas.SignalChange) string {
	return fmt.Sprintf("change %s %s at=%s %s -> %s/%s version=%s doc=%s price=%s mom=%s act=%s anom=%s conf=%s bp=%s event=%s vol=%s n=%d base=%d",
		c.Symbol, c.Window, offset(base, c.ChangedAtNs), c.PreviousSignal, c.Signal, c.SignalStrength, c.AlgorithmVersion, c.DocumentId,
		ff(c.Price), ff(c.MomentumScore), ff(c.ActivityScore), ff(c.AnomalyScore), ff(c.ConfidenceScore), ff(c.BuyPressure),
		c.EventType, ff(c.Volume), c.TradeCount, c.BaselineSamples)
}

// tr builds a test trade at offset off from testBase. The notional is
// price*size, the trade id is derived from venue, offset, price and size.
func tr(sym, venue string, kind schemas.VenueKind, side schemas.Side, off time.Duration, price, size float64) *schemas.Trade {
	return &schemas.Trade{
		Venue:       venue,
		VenueKind:   kind,
		Symbol:      sym,
		EventTimeNs: testBase + int64(off),
		Price:       price,
		Size:        size,
		NotionalUsd: price * size,
		Side:        side,
		TradeId:     fmt.Sprintf("%s@%d:%s:%s", venue, off, ff(price), ff(size)),
	}
}

const (
	cex    = schemas.VenueKind_VENUE_KIND_CEX
	evm    = schemas.VenueKind_VENUE_KIND_ONCHAIN_DEX
	solana = schemas.VenueKind_VENUE_KIND_SOLANA_DEX
	buy    = schemas.Side_SIDE_BUY
	sell   = schemas.Side_SIDE_SELL
	unk    = schemas.Side_SIDE_UNKNOWN
)

// script is a parsed .test file: a config, a time base and trades.
type script struct {
	cfg    Config
	base   int64
	trades []*schemas.Trade
}

// parseScript parses the tiny trade language of testdata/*.test:
//
//	# comment
//	base 2024-08-08T00:00:00Z
//	config cex=5s onchain_dex=30s solana_dex=10s skew=1h
//	trade <offset> <symbol> <venue> <kind> <side> <price> <size> [id=..] [log=..] [notional=..] [chain=..]
//
// Offsets are Go durations from the base; kind is cex, onchain_dex or
// solana_dex; side is buy, sell or unknown. The default trade id is
// "l<line number>"; the default notional is price*size.
func parseScript(text string) (*script, error) {
	s := &script{cfg: DefaultConfig(), base: testBase}
	sc := bufio.NewScanner(strings.NewReader(text))
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if err := s.parseLine(f, line); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
	}
	return s, sc.Err()
}

func (s *script) parseLine(f []string, line int) error {
	switch f[0] {
	case "base":
		if len(f) != 2 {
			return fmt.Errorf("want base <RFC 3339 time>")
		}
		t, err := time.Parse(time.RFC3339Nano, f[1])
		if err != nil {
			return err
		}
		s.base = t.UnixNano()
	case "config":
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			d, err := time.ParseDuration(v)
			if err != nil {
				return err
			}
			switch k {
			case "cex":
				s.cfg.LatenessCEX = d
			case "onchain_dex":
				s.cfg.LatenessOnchainDEX = d
			case "solana_dex":
				s.cfg.LatenessSolanaDEX = d
			case "skew":
				s.cfg.MaxFutureSkew = d
			default:
				return fmt.Errorf("unknown config %q", k)
			}
		}
	case "trade":
		if len(f) < 8 {
			return fmt.Errorf("want trade <offset> <symbol> <venue> <kind> <side> <price> <size> [key=value...]")
		}
		off, err := time.ParseDuration(f[1])
		if err != nil {
			return err
		}
		t := &schemas.Trade{Symbol: f[2], Venue: f[3], EventTimeNs: s.base + int64(off), TradeId: "l" + strconv.Itoa(line)}
		switch f[4] {
		case "cex":
			t.VenueKind = cex
		case "onchain_dex":
			t.VenueKind = evm
		case "solana_dex":
			t.VenueKind = solana
		default:
			return fmt.Errorf("unknown venue kind %q", f[4])
		}
		switch f[5] {
		case "buy":
			t.Side = buy
		case "sell":
			t.Side = sell
		case "unknown":
			t.Side = unk
		default:
			return fmt.Errorf("unknown side %q", f[5])
		}
		if t.Price, err = strconv.ParseFloat(f[6], 64); err != nil {
			return err
		}
		if t.Size, err = strconv.ParseFloat(f[7], 64); err != nil {
			return err
		}
		t.NotionalUsd = t.Price * t.Size
		for _, kv := range f[8:] {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "id":
				t.TradeId = v
			case "log":
				n, err := strconv.ParseUint(v, 10, 32)
				if err != nil {
					return err
				}
				t.LogIndex = uint32(n)
			case "notional":
				if t.NotionalUsd, err = strconv.ParseFloat(v, 64); err != nil {
					return err
				}
			case "chain":
				t.Chain = v
			default:
				return fmt.Errorf("unknown trade attribute %q", k)
			}
		}
		s.trades = append(s.trades, t)
	default:
		return fmt.Errorf("unknown directive %q", f[0])
	}
	return nil
}

// run pushes trades through a fresh engine and returns what it emitted.
func run(t testing.TB, cfg Config, base int64, trades []*schemas.Trade) *recorder {
	t.Helper()
	r := newRecorder()
	r.base = base
	e := NewEngine(cfg, r.emit())
	for _, tr := range trades {
		e.Push(tr)
	}
	return r
}

// checkFinite fails if any double field of m, or of a message inside it, is
// NaN or infinite.
func checkFinite(tb testing.TB, m proto.Message) {
	tb.Helper()
	var walk func(protoreflect.Message)
	walk = func(pm protoreflect.Message) {
		pm.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.Kind() == protoreflect.DoubleKind && !fd.IsList():
				if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
					tb.Fatalf("%s.%s = %v", pm.Descriptor().Name(), fd.Name(), f)
				}
			case fd.Kind() == protoreflect.MessageKind && !fd.IsList() && !fd.IsMap():
				walk(v.Message())
			case fd.Kind() == protoreflect.MessageKind && fd.IsList():
				for i := range v.List().Len() {
					walk(v.List().Get(i).Message())
				}
			}
			return true
		})
	}
	walk(m.ProtoReflect())
}
