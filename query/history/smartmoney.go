package history

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/operators/smartmoney"
)

// SmartMoneyLookback is how far back the smart-money ranking reads the
// stored trades.
const SmartMoneyLookback = 30 * 24 * time.Hour

// ErrNoWalletTrades is returned when no on-chain wallet trade of the
// symbol is stored in the lookback (the route's 404).
var ErrNoWalletTrades = errors.New("no on-chain wallet trade of the symbol is stored")

// DefaultRouters are router and aggregator contracts whose address shows
// as a swap's recipient when a wallet trades through them (lower case):
// Uniswap's v2 Router02, SwapRouter, SwapRouter02 and Universal Routers
// on Ethereum and Base, 1inch v5/v6, 0x Exchange Proxy, Jupiter v6.
var DefaultRouters = map[string]bool{
	"0x7a250d5630b4cf539739df2c5dacb4c659f2488d":  true, // Uniswap V2 Router02 (Ethereum)
	"0x4752ba5dbc23f44d87826276bf6fd6b1c372ad24":  true, // Uniswap V2 Router02 (Base, Arbitrum)
	"0xe592427a0aece92de3edee1f18e0157c05861564":  true, // Uniswap V3 SwapRouter
	"0x68b3465833fb72a70ecdf485e0e4c7bd8665fc45":  true, // Uniswap SwapRouter02
	"0x2626664c2603336e57b271c5c0b26f421741e481":  true, // Uniswap SwapRouter02 (Base)
	"0x3fc91a3afd70395cd496c647d5a6cc9d4b2b7fad":  true, // Uniswap Universal Router
	"0x6ff5693b99212da76ad316178a184ab56d299b43":  true, // Uniswap Universal Router v4 (Base)
	"0x1111111254eeb25477b68fb85ed929f73a960582":  true, // 1inch v5
	"0x111111125421ca6dc452d289314280a0f8842a65":  true, // 1inch v6
	"0xdef1c0ded9bec7f1a1670819833240f027b25eff":  true, // 0x Exchange Proxy
	"jup6lkbzbjs1jkkwapdhny74zcz3tluzoi5qnyvtav4": true, // Jupiter v6 (lower-cased base58)
}

// smartMoneySQL reads, in one scan, a symbol's on-chain wallet trades of
// known side in the lookback, in no order. Trades under the minimum
// notional come without their strings (NULL chain, market and wallet:
// nothing to copy) and are only counted. SmartMoney orders the rows by time
// in Go — DuckDB hands them over in runs already in time order (a day file
// is sorted by its natural key), which are merged — and smartmoney.OrderTies
// puts the rows of one time (one block on a chain) in a fixed order.
// Within a block the order does not change a wallet's average-cost PnL
// except for round trips, which are excluded.
const smartMoneySQL = `SELECT epoch_ns(event_time)::BIGINT AS t,
  (CASE WHEN notional_usd >= ? THEN chain END)::VARCHAR AS chain, (CASE WHEN notional_usd >= ? THEN market END)::VARCHAR AS market,
  (CASE WHEN notional_usd >= ? THEN wallet END)::VARCHAR AS wallet,
  (CASE WHEN side = 'BUY' THEN 1 ELSE 0 END)::BIGINT AS buy, price::DOUBLE AS price, size::DOUBLE AS size, notional_usd::DOUBLE AS usd
FROM read_parquet(?::VARCHAR[], hive_partitioning = true, union_by_name = true)
WHERE symbol = ? AND wallet <> '' AND side IN ('BUY', 'SELL')
  AND event_time >= ?::TIMESTAMP AND event_time <= ?::TIMESTAMP`

// tradeFiles returns the trades files of days in [from, to].
func (s *Store) tradeFiles(from, to time.Time) []string {
	var out []string
	for _, l := range s.leaves(datasets.KindTrades, true, from.Format(datasets.DateFormat), to.Format(datasets.DateFormat)) {
		out = append(out, s.files(datasets.KindTrades, l)...)
	}
	return out
}

// SmartMoney ranks the wallets that traded symbol on chain over the
// lookback ending at the store's now (smartmoney.Rank): ErrNoWalletTrades
// when none is stored. The ranking's net flow is kept for the opportunity
// scan (CachedSmartMoney).
func (s *Store) SmartMoney(ctx context.Context, symbol string, routers map[string]bool) (smartmoney.Answer, error) {
	now := s.Now()
	from := now.Add(-SmartMoneyLookback)
	files := s.tradeFiles(from, now)
	if len(files) == 0 {
		return smartmoney.Answer{}, fmt.Errorf("%w: %s", ErrNoWalletTrades, symbol)
	}
	ts := func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05.999999999") }
	minUSD := smartmoney.MinTradeUSD
	args := []any{minUSD, minUSD, minUSD, files, symbol, ts(from), ts(now)}
	var trades []smartmoney.Trade
	var runs []int // where each time-ordered run of trades starts
	under := 0
	dict := smartmoney.NewDict()
	err := s.queryBatches(ctx, smartMoneySQL, args, func(rec arrow.RecordBatch) error {
		tt, buy := colInt64(rec, 0), colInt64(rec, 4)
		chains, markets, ws := colString(rec, 1), colString(rec, 2), colString(rec, 3)
		price, size, usd := colFloat64(rec, 5), colFloat64(rec, 6), colFloat64(rec, 7)
		var lastChain, lastMarket string
		var chainID, marketID uint32
		first := true
		for j := range tt {
			if ws.IsNull(j) {
				under++ // under the minimum notional
				continue
			}
			// Runs of one chain and one pool are common: look up once.
			if c := chains.Value(j); first || c != lastChain {
				lastChain, chainID = c, dict.ID(c)
			}
			if m := markets.Value(j); first || m != lastMarket {
				lastMarket, marketID = m, dict.ID(m)
			}
			first = false
			if n := len(trades); n == 0 || tt[j] < trades[n-1].TimeNs {
				runs = append(runs, n)
			}
			trades = append(trades, smartmoney.Trade{TimeNs: tt[j], Chain: chainID, Market: marketID, Wallet: dict.ID(ws.Value(j)),
				Buy: buy[j] == 1, Price: price[j], Size: size[j], USD: usd[j]})
		}
		return nil
	})
	if err != nil {
		return smartmoney.Answer{}, fmt.Errorf("cannot read the trades of %s: %w", symbol, err)
	}
	if len(trades) == 0 && under == 0 {
		return smartmoney.Answer{}, fmt.Errorf("%w: %s", ErrNoWalletTrades, symbol)
	}
	trades = smartmoney.MergeRuns(trades, runs)
	smartmoney.OrderTies(trades, dict)
	if routers == nil {
		routers = DefaultRouters
	}
	a := smartmoney.Rank(trades, smartmoney.Options{Symbol: symbol, Now: now, From: from, Routers: routers, Under: under, Dict: dict})
	s.rememberSmartMoney(a)
	return a, nil
}
