package sidetopic

import (
	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/schemas"
)

// The side topics. A new one is declared here and listed in All; the
// pipeline creates every topic of All with its DLQ.

// PoolEvents carries the state changes of on-chain liquidity pools
// (schemas.PoolEvent: swaps, mints, burns, their retractions, and snapshots
// read from the chain), keyed by chain|address. Produced by the EVM
// connector (pipeline/sources/evmdex) and the Uniswap log replay
// (pipeline/sources/replay); applied by the liquidity view
// (sinks/views.Liquidity.ApplyRecord).
var PoolEvents = Topic[*schemas.PoolEvent]{
	Name: "mi.pool-events.v1",
	Key: func(e *schemas.PoolEvent) string {
		return operators.PoolKey(e.GetPool().GetChain(), e.GetPool().GetAddress())
	},
	New: func() *schemas.PoolEvent { return new(schemas.PoolEvent) },
}

// Rates carries the observations of the rates domain (schemas.RatesRecord:
// Treasury curves, overnight rates, lending rates, tokenized fund supply,
// Treasury auctions and read faults), keyed by the observation
// (schemas.RatesKey), so the reads of one observation stay in order.
// Produced by the rates pollers (pipeline/sources/ratesfeed and the
// publisher packages); applied by the rates view (sinks/ratesview) and
// written to Parquet (sinks/ratesfiles). docs/rates.md.
var Rates = Topic[*schemas.RatesRecord]{
	Name: schemas.TopicRates,
	Key:  schemas.RatesKey,
	New:  func() *schemas.RatesRecord { return new(schemas.RatesRecord) },
}

// Positioning carries perp positioning snapshots (schemas.PerpSnapshot:
// open interest, funding and long/short shares of one perp of one venue at
// one poll, delistings, and open-interest history points), keyed by
// venue|venue_symbol. Produced by the positioning pollers
// (pipeline/sources/perps); applied by the positioning view
// (sinks/views.Positioning.Apply), the Parquet sink and the funding_extreme
// detector. docs/positioning.md.
var Positioning = Topic[*schemas.PerpSnapshot]{
	Name: schemas.TopicPositioning,
	Key:  func(s *schemas.PerpSnapshot) string { return s.GetVenue() + "|" + s.GetVenueSymbol() },
	New:  func() *schemas.PerpSnapshot { return new(schemas.PerpSnapshot) },
}

// PredictionMarkets carries the prices of prediction markets listed on a
// perpetuals venue (schemas.PredictionQuote), keyed by venue|market_id.
// Produced by the outcome poller (pipeline/sources/perps); read by the
// prediction_market_move detector and the Parquet sink.
var PredictionMarkets = Topic[*schemas.PredictionQuote]{
	Name: schemas.TopicPredictionMarkets,
	Key:  func(q *schemas.PredictionQuote) string { return q.GetVenue() + "|" + q.GetMarketId() },
	New:  func() *schemas.PredictionQuote { return new(schemas.PredictionQuote) },
}

// News carries publisher headlines and SEC filings (schemas.NewsItem,
// unclassified), keyed by the item id, so every copy and revision of one
// item goes to one partition. Compacted: a view rebuilds from the last
// record of each id (the source sends an id again only when its content
// changed); the news day files keep the history. Produced by
// pipeline/sources/newsfeed; applied by sinks/newsview (docs/news.md).
var News = Topic[*schemas.NewsItem]{
	Name:      "mi.news.v1",
	Key:       func(n *schemas.NewsItem) string { return n.GetId() },
	New:       func() *schemas.NewsItem { return new(schemas.NewsItem) },
	Compacted: true,
}

// Stablecoins carries the depeg watch's readings of the listed USD
// stablecoins (schemas.StablecoinQuote), keyed by symbol|chain. Produced by
// the depeg watch (pipeline/sources/token.NewDepegSource); read by the
// stablecoin_depeg detector. docs/token.md.
var Stablecoins = Topic[*schemas.StablecoinQuote]{
	Name: schemas.TopicStablecoins,
	Key:  func(q *schemas.StablecoinQuote) string { return q.GetSymbol() + "|" + q.GetChain() },
	New:  func() *schemas.StablecoinQuote { return new(schemas.StablecoinQuote) },
}

// TokenRisk carries the scheduled risk checks of watched tokens
// (schemas.TokenRiskObservation), keyed by chain:token. Produced by the
// risk watch (pipeline/sources/token.NewRiskWatch); read by the
// token_risk_change detector. docs/token.md.
var TokenRisk = Topic[*schemas.TokenRiskObservation]{
	Name: schemas.TopicTokenRisk,
	Key: func(o *schemas.TokenRiskObservation) string {
		return operators.TokenRiskKey(o.GetChain(), o.GetToken())
	},
	New: func() *schemas.TokenRiskObservation { return new(schemas.TokenRiskObservation) },
}

// All lists every side topic.
var All = []Spec{PoolEvents.Spec(), Positioning.Spec(), PredictionMarkets.Spec(), Rates.Spec(), News.Spec(), Stablecoins.Spec(), TokenRisk.Spec()}
