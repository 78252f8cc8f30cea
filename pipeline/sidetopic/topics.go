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

// All lists every side topic.
var All = []Spec{PoolEvents.Spec()}
