package history

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Horizons of the forward returns of a backtest (spec §2.6).
var Horizons = []string{"1m", "5m", "15m", "60m"}

var horizonDur = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, 60 * time.Minute}

// BacktestParams selects a backtest.
type BacktestParams struct {
	// Window is the analysis window of the signal documents (1m, 5m, 15m).
	Window string
	// MinConfidence keeps documents with confidence_score ≥ it.
	MinConfidence float64
	// MinBaselineSamples keeps documents with baseline_samples ≥ it.
	MinBaselineSamples int64
	// Start (inclusive) and End (exclusive) bound the signal times.
	Start, End time.Time
	// Symbols restricts the run; empty means every symbol.
	Symbols []string
}

// ReturnStats is BacktestReturnStats (spec §2.6).
type ReturnStats struct {
	Samples      int     `json:"samples"`
	Average      float64 `json:"averagePercent"`
	Median       float64 `json:"medianPercent"`
	PositiveRate float64 `json:"positiveRate"`
}

// EventStats is BacktestEventStats (spec §2.6).
type EventStats struct {
	Occurrences       int     `json:"occurrences"`
	AverageConfidence float64 `json:"averageConfidence"`
	WinRate5m         float64 `json:"winRate5m"`
	WinRate15m        float64 `json:"winRate15m"`
	WinRate60m        float64 `json:"winRate60m"`
	AverageReturn5m   float64 `json:"averageReturn5mPercent"`
	AverageReturn15m  float64 `json:"averageReturn15mPercent"`
	AverageReturn60m  float64 `json:"averageReturn60mPercent"`
	MedianReturn15m   float64 `json:"medianReturn15mPercent"`
	AverageMFE15m     float64 `json:"averageMfe15mPercent"`
	AverageMAE15m     float64 `json:"averageMae15mPercent"`
	Direction         string  `json:"direction"`
}

// BacktestResults is the body of the backtest route (spec §2.6), plus id
// when the run was persisted.
type BacktestResults struct {
	ID                       string                 `json:"id,omitempty"`
	Start                    time.Time              `json:"start"`
	End                      time.Time              `json:"end"`
	Window                   string                 `json:"window"`
	SymbolsAnalyzed          int                    `json:"symbolsAnalyzed"`
	SignalsEvaluated         int                    `json:"signalsEvaluated"`
	MinConfidence            int                    `json:"minConfidence"`
	MinBaselineSamples       int                    `json:"minBaselineSamples"`
	Methodology              string                 `json:"methodology"`
	DataResolution           string                 `json:"dataResolution"`
	EffectiveWindow          string                 `json:"effectiveWindow"`
	Signals                  map[string]EventStats  `json:"signals"`
	ConfidenceCalibration    map[string]EventStats  `json:"confidenceCalibration"`
	AllSignalsForwardReturns map[string]ReturnStats `json:"allSignalsForwardReturns"`
}

// Methodology is the methodology string of every backtest.
const Methodology = "walk-forward, no look-ahead: a qualifying signal is a stored signal document (BULLISH or BEARISH, " +
	"confidence >= minConfidence, baselineSamples >= minBaselineSamples) whose signal or event type differs from the " +
	"symbol's previous document; it enters at the document's price at its time t and is scored only on cross-venue " +
	"candles that start at or after t and end by t+h: the return at horizon h is the close of the last such candle (latest end, then latest start), " +
	"signed by the signal's direction (BEARISH is short); a win is a return above 0; MFE/MAE are the most favorable " +
	"and most adverse moves (high/low) of the candles ending by t+15m, as positive percentages; a horizon without " +
	"such a candle, or ending after the symbol's last stored candle, is not a sample"

// Outcome is one evaluated signal.
type Outcome struct {
	Symbol     string
	Time       time.Time
	Signal     string
	EventType  string
	Confidence float64
	Entry      float64
	// Returns are the signed forward returns in percent at Horizons; NaN
	// where the horizon has no sample.
	Returns [4]float64
	// MFE and MAE are over 15 minutes, percent ≥ 0; NaN without a sample.
	MFE, MAE float64
}

// Direction returns +1 for BULLISH and -1 for BEARISH.
func (o Outcome) Direction() float64 {
	if o.Signal == "BEARISH" {
		return -1
	}
	return 1
}

// priceSQL is the slim cross-venue price series the backtest and the track
// record score on: per (symbol, candle start) the close of the leading
// venue (leadKey), the highest high and the lowest low of the
// stored candles as they are (no roll-up: every stored interval is at least
// a minute), with the candle end. Parameters: files, symbols, from, to.
const priceSQL = `
SELECT symbol, ts, max(ts + to_seconds(CASE interval WHEN '1m' THEN 60 WHEN '5m' THEN 300 WHEN '15m' THEN 900 ELSE 3600 END)) AS cend,
       arg_min(close, ` + leadKey + `) AS close,
       max(high) AS high, min(low) AS low
FROM ` + readCandles + `
WHERE list_contains(?::VARCHAR[], symbol) AND ts >= ?::TIMESTAMPTZ AND ts < ?::TIMESTAMPTZ
GROUP BY symbol, ts`

// Outcomes scores the qualifying signals of p. It also returns the number
// of symbols with documents in the range and the candle resolutions read.
func (s *Store) Outcomes(ctx context.Context, p BacktestParams) ([]Outcome, int, []string, error) {
	sigFiles := s.signalFiles(p.Window, datasetsDay(p.Start), datasetsDay(p.End.Add(-time.Nanosecond)))
	if len(sigFiles) == 0 {
		return nil, 0, nil, ErrNoData
	}
	symbols := p.Symbols
	if symbols == nil {
		symbols = []string{}
	}
	var analyzed int
	if err := s.db.QueryRowContext(ctx, `SELECT count(DISTINCT symbol) FROM `+readSignals+`
WHERE (list_contains(?::VARCHAR[], symbol) OR len(?::VARCHAR[]) = 0) AND ts >= ?::TIMESTAMPTZ AND ts < ?::TIMESTAMPTZ`,
		sigFiles, symbols, symbols, p.Start.UTC(), p.End.UTC()).Scan(&analyzed); err != nil {
		return nil, 0, nil, fmt.Errorf("cannot count backtest symbols: %w", err)
	}
	if analyzed == 0 {
		return nil, 0, nil, ErrNoData
	}
	candleSyms := symbols
	if len(candleSyms) == 0 {
		all, err := s.Symbols(ctx)
		if err != nil {
			return nil, 0, nil, err
		}
		candleSyms = all
	}
	cEnd := p.End.Add(time.Hour)
	cs := s.candleFiles("1m", datasetsDay(p.Start), datasetsDay(cEnd.Add(-time.Nanosecond)))
	if len(cs.files) == 0 {
		return nil, analyzed, nil, nil
	}
	// Every symbol is scored on its own candles and documents only, so the
	// symbols run in batches sized to the memory limit
	// (bytesPerOutcomeCandle): DuckDB's window and sort then hold one batch
	// at a time, which keeps months of many symbols inside the limit. Each
	// batch selects its qualifying signals (qualifyingSQL) and streams its
	// candles ordered by symbol and time (venuePriceSQL); each symbol's
	// signals are scored in Go as soon as its candles are read
	// (priceSeries.scoreSignal). Batches go in symbol order, so the
	// outcomes are in symbol and time order.
	candleSyms = slices.Compact(slices.Sorted(slices.Values(candleSyms)))
	size := max(1, int(s.memoryBytes/bytesPerOutcomeCandle/candlesPerSymbol(cs)))
	var out []Outcome
	for batch := range slices.Chunk(candleSyms, size) {
		docSyms := batch
		if len(symbols) == 0 && len(batch) == len(candleSyms) {
			docSyms = symbols // one batch of every symbol: no symbol list to bind
		}
		sigs, err := s.qualifying(ctx, sigFiles, docSyms, p)
		if err != nil {
			return nil, 0, nil, err
		}
		if len(sigs) == 0 {
			continue
		}
		if out, err = s.scoreBatch(ctx, cs.files, batch, sigs, p.Start, cEnd, out); err != nil {
			return nil, 0, nil, err
		}
	}
	return out, analyzed, cs.resolutions, nil
}

// bytesPerOutcomeCandle is the DuckDB memory a backtest or track-record
// batch plans per stored candle of a symbol (candlesPerSymbol: a day per
// file at the file's width), with room to spare: a batch of 50 symbols ×
// 30 days of 1m (2.2M candles) ran in 512MB.
var bytesPerOutcomeCandle int64 = 1000

// Backtest runs p (see Methodology). It returns ErrNoData when no signal
// document of the window lies in the range.
func (s *Store) Backtest(ctx context.Context, p BacktestParams) (BacktestResults, error) {
	outs, analyzed, res, err := s.Outcomes(ctx, p)
	if err != nil {
		return BacktestResults{}, err
	}
	r := BacktestResults{
		Start: p.Start.UTC(), End: p.End.UTC(), Window: p.Window, SymbolsAnalyzed: analyzed,
		MinConfidence: int(math.Round(p.MinConfidence)), MinBaselineSamples: int(p.MinBaselineSamples),
		Methodology: Methodology, DataResolution: strings.Join(res, ","),
		EffectiveWindow:          strconv.Itoa(int(windowSeconds(p.Window))),
		Signals:                  map[string]EventStats{},
		ConfidenceCalibration:    map[string]EventStats{},
		AllSignalsForwardReturns: map[string]ReturnStats{},
	}
	if r.DataResolution == "" {
		r.DataResolution = "none"
	}
	var evaluated []Outcome
	for _, o := range outs {
		if !math.IsNaN(o.Returns[0]) || !math.IsNaN(o.Returns[3]) {
			evaluated = append(evaluated, o)
		}
	}
	r.SignalsEvaluated = len(evaluated)
	byEvent := map[string][]Outcome{}
	byBucket := map[string][]Outcome{}
	for _, o := range evaluated {
		byEvent[o.EventType] = append(byEvent[o.EventType], o)
		b := ConfidenceBucket(o.Confidence)
		byBucket[b] = append(byBucket[b], o)
	}
	for k, v := range byEvent {
		r.Signals[k] = eventStats(v)
	}
	for k, v := range byBucket {
		r.ConfidenceCalibration[k] = eventStats(v)
	}
	for i, h := range Horizons {
		var xs []float64
		for _, o := range evaluated {
			if !math.IsNaN(o.Returns[i]) {
				xs = append(xs, o.Returns[i])
			}
		}
		r.AllSignalsForwardReturns[h] = ReturnStats{Samples: len(xs), Average: mean(xs), Median: median(xs), PositiveRate: positiveRate(xs)}
	}
	return r, nil
}

func windowSeconds(w string) int64 {
	switch w {
	case "1m":
		return 60
	case "15m":
		return 900
	}
	return 300
}

// ConfidenceBucket names the decile of a confidence score: "60-69" holds
// 60 ≤ c < 70; "90-100" holds 90 ≤ c ≤ 100.
func ConfidenceBucket(c float64) string {
	lo := int(math.Floor(c/10)) * 10
	lo = max(0, min(lo, 90))
	hi := lo + 9
	if lo == 90 {
		hi = 100
	}
	return strconv.Itoa(lo) + "-" + strconv.Itoa(hi)
}

func eventStats(os []Outcome) EventStats {
	var st EventStats
	st.Occurrences = len(os)
	var conf []float64
	var r [4][]float64
	var mfe, mae []float64
	bull, bear := 0, 0
	for _, o := range os {
		conf = append(conf, o.Confidence)
		for i := range r {
			if !math.IsNaN(o.Returns[i]) {
				r[i] = append(r[i], o.Returns[i])
			}
		}
		if !math.IsNaN(o.MFE) {
			mfe = append(mfe, o.MFE)
			mae = append(mae, o.MAE)
		}
		if o.Signal == "BEARISH" {
			bear++
		} else {
			bull++
		}
	}
	st.AverageConfidence = mean(conf)
	st.WinRate5m, st.WinRate15m, st.WinRate60m = positiveRate(r[1]), positiveRate(r[2]), positiveRate(r[3])
	st.AverageReturn5m, st.AverageReturn15m, st.AverageReturn60m = mean(r[1]), mean(r[2]), mean(r[3])
	st.MedianReturn15m = median(r[2])
	st.AverageMFE15m, st.AverageMAE15m = mean(mfe), mean(mae)
	switch {
	case bear == 0:
		st.Direction = "BULLISH"
	case bull == 0:
		st.Direction = "BEARISH"
	default:
		st.Direction = "MIXED"
	}
	return st
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s/float64(len(xs)) + 0 // -0 reads as 0, as every number of the service does
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	ys := slices.Clone(xs)
	slices.Sort(ys)
	n := len(ys)
	if n%2 == 1 {
		return ys[n/2] + 0 // -0 reads as 0
	}
	return (ys[n/2-1]+ys[n/2])/2 + 0
}

// positiveRate is the percentage of xs above 0; 0 without samples.
func positiveRate(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	n := 0
	for _, x := range xs {
		if x > 0 {
			n++
		}
	}
	return 100 * float64(n) / float64(len(xs))
}

// BacktestDir is the directory under the data root that holds persisted
// backtest runs, one JSON file per run named <id>.json.
const BacktestDir = "backtests"

// Persist stores r under <root>/backtests/<id>.json (written to a temporary
// name, then renamed) and returns r with its new id: "bt_", the UTC time,
// "_" and 128 random bits in hex. The id is the only key of the free route
// that answers a stored run, so it must not be guessable.
func (s *Store) Persist(r BacktestResults) (BacktestResults, error) {
	var rnd [16]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return r, fmt.Errorf("cannot make a backtest id: %w", err)
	}
	r.ID = "bt_" + s.Now().Format("20060102T150405Z") + "_" + hex.EncodeToString(rnd[:])
	dir := filepath.Join(s.root, BacktestDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r, fmt.Errorf("cannot create %s: %w", dir, err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		return r, fmt.Errorf("cannot encode the backtest: %w", err)
	}
	tmp := filepath.Join(dir, "."+r.ID+".tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return r, fmt.Errorf("cannot persist the backtest: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, r.ID+".json")); err != nil {
		return r, fmt.Errorf("cannot persist the backtest: %w", err)
	}
	return r, nil
}

// LoadBacktest reads a persisted run by id. It returns ErrNoData for an
// unknown id and for anything that is not an id Persist makes (so no
// request can name another file).
func (s *Store) LoadBacktest(id string) (BacktestResults, error) {
	var r BacktestResults
	if !validBacktestID(id) {
		return r, ErrNoData
	}
	b, err := os.ReadFile(filepath.Join(s.root, BacktestDir, id+".json"))
	if err != nil {
		return r, ErrNoData
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("cannot decode backtest %s: %w", id, err)
	}
	return r, nil
}

// validBacktestID reports whether id has the shape of Persist's ids:
// "bt_", 16 characters of time, "_", 12 (older runs) to 32 lower-case hex
// digits.
func validBacktestID(id string) bool {
	rest, ok := strings.CutPrefix(id, "bt_")
	if !ok || len(rest) < 17+12 || len(rest) > 17+32 || rest[16] != '_' {
		return false
	}
	if _, err := time.Parse("20060102T150405Z", rest[:16]); err != nil {
		return false
	}
	for _, ch := range rest[17:] {
		if (ch < '0' || ch > '9') && (ch < 'a' || ch > 'f') {
			return false
		}
	}
	return true
}
