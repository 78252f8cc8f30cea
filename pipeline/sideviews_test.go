package pipeline

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources/replay"
	"github.com/marketintel/mi/sinks/views"
)

var uniswapDay = []string{
	"defi/uniswapv3_ethereum_USDC-WETH-0.05pct_0x88e6_eth_getLogs_2024-01-05.DERIVED.json",
	"defi/uniswapv3_ethereum_USDC-WETH-0.3pct_0x8ad5_eth_getLogs_2024-01-05.DERIVED.json",
}

// TestFollowSideTwoInstances ingests the replay of the recorded Uniswap day
// (trades and mi.pool-events.v1 records), then ingests its second half
// again as a source resumed after a crash would (same seq numbers), and
// follows the pool events with two API instances' liquidity views: both
// drop the copies and give the same block, equal to a view fed directly
// from the replay's records without a broker.
func TestFollowSideTwoInstances(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	emb, err := StartEmbedded("127.0.0.1:0", "", quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	brokers := []string{emb.Addr()}
	if err := EnsureTopics(ctx, brokers, 3); err != nil {
		t.Fatal(err)
	}
	paths := []string{fixtures.Path(t, uniswapDay[0]), fixtures.Path(t, uniswapDay[1])}

	// The reference: the replay's pool events applied in process.
	direct := views.NewLiquidity()
	src, err := replay.OpenAll(paths)
	if err != nil {
		t.Fatal(err)
	}
	records := 0
	for {
		r, err := src.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		records++
		if r.Side != nil {
			v, err := sidetopic.PoolEvents.Decode(r.Side.Value)
			if err != nil {
				t.Fatal(err)
			}
			if err := direct.ApplyRecord(v); err != nil {
				t.Fatal(err)
			}
		}
	}
	src.Close()

	for i, resume := range []Checkpoint{{}, {Records: int64(records / 2)}} {
		src, err := replay.OpenAll(paths)
		if err != nil {
			t.Fatal(err)
		}
		if err := Ingest(ctx, IngestConfig{Brokers: brokers, Logger: quiet, TxnSuffix: "-" + string(rune('a'+i))}, src, resume); err != nil {
			t.Fatal(err)
		}
		src.Close()
	}

	follow := func() *views.Liquidity {
		lv := views.NewLiquidity()
		ready := make(chan struct{})
		go func() {
			_ = FollowSide(ctx, brokers, []SideView{ViewOf(sidetopic.PoolEvents, lv.ApplyRecord)}, quiet, ready)
		}()
		select {
		case <-ready:
		case <-ctx.Done():
			t.Fatal("side views not ready")
		}
		return lv
	}
	a, b := follow(), follow()
	want := direct.Report("ETHUSD")
	if len(want.Pools) != 2 || want.Score == nil || len(want.Estimates) != 6 || want.Estimates[1].CostBps == nil {
		t.Fatalf("reference block %+v", want)
	}
	for name, lv := range map[string]*views.Liquidity{"A": a, "B": b} {
		if got := lv.Report("ETHUSD"); !reflect.DeepEqual(got, want) {
			t.Fatalf("instance %s:\n%+v\nwant\n%+v", name, got, want)
		}
	}
}
