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

// All lists every side topic.
var All = []Spec{PoolEvents.Spec(), News.Spec()}
