package evmdex

import (
	"context"
	"io"
	"syscall"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sources/venue/uniswap"
)

// BenchmarkDecodeSwap decodes the recorded day's Swap logs (already
// JSON-decoded, as ethclient hands them over) into trades: ABI decoding, side,
// amounts, price and validation. One op is one log.
func BenchmarkDecodeSwap(b *testing.B) {
	var logs []types.Log
	for _, l := range loadLogs(b, fileA) {
		if l.Topics[0] == uniswap.TopicSwap {
			logs = append(logs, l)
		}
	}
	meta := &operators.PoolMeta{Chain: "ethereum", Address: "0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640", Fee: 500, TickSpacing: 10,
		Ticker0: "USDC", Ticker1: "WETH", Decimals0: 6, Decimals1: 18, Symbol0: "USD", Symbol1: "ETHUSD", Resolved: true}
	s, err := New(Config{ChainConfig: ChainConfig{Chain: "ethereum", RPC: "http://127.0.0.1:1"}, Pools: []PoolConfig{{Chain: "ethereum", Address: meta.Address}}})
	if err != nil {
		b.Fatal(err)
	}
	s.pools[common.HexToAddress(meta.Address)] = meta
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuSeconds()
	for i := 0; i < b.N; i++ {
		l := &logs[i%len(logs)]
		if rec, _ := s.decode(l, int64(l.BlockTimestamp)*1e9); rec == nil || rec.Trade == nil {
			b.Fatalf("no trade: %+v", rec)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "logs/s")
	b.ReportMetric(float64(b.N)/(cpuSeconds()-c0), "logs/cpu-s")
}

// cpuSeconds is the process's CPU time (user + system) so far. Run with
// -cpu 1: the work per CPU second is then the rate of one core, whatever
// else the shared machine runs.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic("BUG: getrusage: " + err.Error())
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkConnectorDay reads the recorded day of both USDC/WETH pools
// (7,099 blocks, 6,313 swaps) through the connector from the local JSON-RPC
// server over WebSocket, head already at the end: eth_getLogs in ranges of
// 2,000 blocks, block headers, eth_call metadata. One op is the whole day;
// trades/s is reported.
func BenchmarkConnectorDay(b *testing.B) {
	s := newChainServer(b)
	s.start()
	s.advance(s.last)
	b.ResetTimer()
	trades := 0
	for i := 0; i < b.N; i++ {
		src, err := New(Config{ChainConfig: ChainConfig{Chain: "ethereum", RPC: s.wsURL, MaxRange: 2000},
			Pools:      []PoolConfig{{Chain: "ethereum", Address: poolA.Hex()}, {Chain: "ethereum", Address: poolB.Hex()}},
			StartBlock: s.first, EndBlock: s.last})
		if err != nil {
			b.Fatal(err)
		}
		for {
			r, err := src.Next(context.Background())
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if r.Trade != nil {
				trades++
			}
		}
		src.Close()
	}
	b.ReportMetric(float64(trades)/b.Elapsed().Seconds(), "trades/s")
}
