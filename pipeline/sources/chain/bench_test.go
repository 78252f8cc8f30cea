package chain_test

import (
	"context"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/chain"
	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
)

// BenchmarkRead compares, in one run, eth_blockNumber against the local
// JSON-RPC server through go-ethereum's rpc client directly and through
// Client's shared read path (request sharing, rate limit, backoff gate,
// freshness), one caller at a time: the difference is the read path's
// overhead. Parallel runs 8 callers per core through Client: concurrent
// identical reads share requests, reported as rpc/op.
func BenchmarkRead(b *testing.B) {
	ch := chaintest.New(b)
	cfg := ch.Config("base")
	cfg.Limit = &sources.Limit{}
	c, err := chain.New(cfg, chain.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	raw, err := rpc.Dial(ch.URL)
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	ctx := context.Background()
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var n hexutil.Uint64
			if err := raw.CallContext(ctx, &n, "eth_blockNumber"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("client", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := c.BlockNumber(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		ch.ResetCounts()
		b.SetParallelism(8)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := c.BlockNumber(ctx); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(ch.Calls("eth_blockNumber"))/float64(b.N), "rpc/op")
	})
}

// BenchmarkCacheHit is a Cache answer within its TTL (a cached token-risk
// report), from parallel callers.
func BenchmarkCacheHit(b *testing.B) {
	cache := chain.NewCache[[]byte](time.Hour, 0, nil)
	ctx := context.Background()
	report := make([]byte, 2048)
	load := func(context.Context) ([]byte, error) { return report, nil }
	if _, err := cache.Get(ctx, "base:0xabc", load); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := cache.Get(ctx, "base:0xabc", load); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
