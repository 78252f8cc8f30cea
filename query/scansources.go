package query

import (
	"time"

	"github.com/marketintel/mi/operators/opportunity"
	"github.com/marketintel/mi/query/history"
	"github.com/marketintel/mi/query/market"
)

// storeSmartMoney is the opportunity scan's smart_money source over the
// history store's kept rankings (market.SmartMoneySource): the net flow
// of each symbol's last ranking, fresh for history.SmartMoneyFreshFor.
type storeSmartMoney struct{ s *history.Store }

// SmartMoney implements market.SmartMoneySource.
func (h storeSmartMoney) SmartMoney(symbol string, now time.Time) (opportunity.SmartMoney, time.Time, bool) {
	f, ok := h.s.CachedSmartMoney(symbol)
	if !ok {
		return opportunity.SmartMoney{}, time.Time{}, false
	}
	nf := f.NetFlow
	return opportunity.SmartMoney{Direction: nf.TopDecileDirection, TopDecileWallets: nf.TopDecileWallets,
		TopDecileBuyUSD: nf.TopDecileBuyUSD, TopDecileSellUSD: nf.TopDecileSellUSD, TopDecileNetUSD: nf.TopDecileNetFlowUSD,
		AllWalletsNet: nf.AllWalletsNetFlowUSD, Stale: now.Sub(f.AsOf) > history.SmartMoneyFreshFor}, f.AsOf, true
}

// SmartMoneySymbols implements market.SmartMoneySource.
func (h storeSmartMoney) SmartMoneySymbols() []string { return h.s.SmartMoneySymbols() }

// WantSmartMoney implements market.SmartMoneySource.
func (h storeSmartMoney) WantSmartMoney(symbols []string) { h.s.WantSmartMoney(symbols) }

// storeTrackRecord is the opportunity scan's track record over the history
// store's cached hit rates (market.TrackRecordSource).
type storeTrackRecord struct{ s *history.Store }

// trackRecordSource names where the hit rates come from.
const trackRecordSource = "parquet:signal_changes scored on parquet:candles (GET /api/v1/intelligence/track-record)"

// HitRate1h implements market.TrackRecordSource.
func (h storeTrackRecord) HitRate1h(window, signal, symbol string) (market.TrackRecord1h, bool) {
	hr, ok := h.s.CachedHitRates(window)
	if !ok {
		return market.TrackRecord1h{}, false
	}
	out := market.TrackRecord1h{Horizon: history.HitRateHorizon, Window: window, Signal: signal, Days: history.HitRateDays,
		From: hr.From.UTC().Format(time.RFC3339), To: hr.To.UTC().Format(time.RFC3339), Source: trackRecordSource}
	if r := hr.BySignal[signal]; r.Samples > 0 {
		rate, avg := r.HitRate, r.AverageReturn
		out.Samples, out.HitRate, out.AverageReturnPercent = r.Samples, &rate, &avg
	}
	if r := hr.BySymbol[symbol][signal]; r.Samples > 0 {
		rate, avg := r.HitRate, r.AverageReturn
		out.SymbolSamples, out.SymbolHitRate, out.SymbolAverageReturnPercent = r.Samples, &rate, &avg
	}
	return out, true
}
