package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources/replay"
	"github.com/marketintel/mi/query"
	"github.com/marketintel/mi/sinks/views"
)

// TestReplayedUniswapDayFillsLiquidity is issue 13's acceptance for pool
// events: after a replay of the recorded Uniswap day (both USDC/WETH pools,
// eth_getLogs answers) through the pipeline, two API instances on the
// broker — each rebuilding its views from the topics, as `mi run --roles
// views` does — serve /api/v1/intelligence/ETHUSD with a filled liquidity
// block, the same in both, and the same as a liquidity view fed from the
// replay's records in process.
func TestReplayedUniswapDayFillsLiquidity(t *testing.T) {
	files := []string{
		fixtures.Path(t, "defi/uniswapv3_ethereum_USDC-WETH-0.05pct_0x88e6_eth_getLogs_2024-01-05.DERIVED.json"),
		fixtures.Path(t, "defi/uniswapv3_ethereum_USDC-WETH-0.3pct_0x8ad5_eth_getLogs_2024-01-05.DERIVED.json"),
	}
	h := startPipeline(t, t.TempDir(), "replay:"+files[0]+","+files[1])
	waitDone(t, h.brokers, 2*time.Minute)

	// The block a view fed without a broker gives.
	direct := views.NewLiquidity()
	src, err := replay.OpenAll(files)
	if err != nil {
		t.Fatal(err)
	}
	for {
		r, err := src.Next(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if r.Side != nil {
			v, err := sidetopic.PoolEvents.Decode(r.Side.Value)
			if err == nil {
				err = direct.ApplyRecord(v)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	src.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	instance := func() *query.Server {
		v, lv := views.New(), views.NewLiquidity()
		go func() { _ = pipeline.SyncViews(ctx, h.brokers, v, quietLogger(), nil) }()
		go func() {
			_ = pipeline.FollowSide(ctx, h.brokers, []pipeline.SideView{pipeline.ViewOf(sidetopic.PoolEvents, lv.ApplyRecord)}, quietLogger(), nil)
		}()
		return query.New(query.Deps{Views: v, Liquidity: lv, Version: "e2e"})
	}
	a, b := instance(), instance()
	block := func(s *query.Server) (json.RawMessage, error) {
		resp, err := s.App().Test(httptest.NewRequest(http.MethodGet, "/api/v1/intelligence/ETHUSD", nil))
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			return nil, fmt.Errorf("status %d: %.200s", resp.StatusCode, body)
		}
		var doc struct {
			Liquidity json.RawMessage `json:"liquidity"`
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			return nil, err
		}
		return doc.Liquidity, nil
	}
	// The reference block, rendered by a server over the direct view and
	// the same documents.
	want := func() (json.RawMessage, error) {
		return block(query.New(query.Deps{Views: h.views, Liquidity: direct, Version: "e2e"}))
	}
	deadline := time.Now().Add(time.Minute)
	for {
		msg := ""
		ref, err := want()
		ba, errA := block(a)
		bb, errB := block(b)
		switch {
		case err != nil || errA != nil || errB != nil:
			msg = fmt.Sprintf("reference %v, A %v, B %v", err, errA, errB)
		case !bytes.Equal(ba, ref) || !bytes.Equal(bb, ref):
			msg = fmt.Sprintf("blocks differ:\nA   %s\nB   %s\nref %s", ba, bb, ref)
		}
		if msg == "" {
			var l struct {
				Score    *int                           `json:"liquidity_score"`
				Slippage map[string]map[string]*float64 `json:"slippage_bps"`
				Pools    []any                          `json:"pools"`
			}
			if err := json.Unmarshal(ba, &l); err != nil {
				t.Fatal(err)
			}
			b10, s10 := l.Slippage["buy"]["10000"], l.Slippage["sell"]["10000"]
			if b10 == nil || s10 == nil || *b10 < 5 || *s10 < 5 || l.Score == nil || len(l.Pools) != 2 {
				t.Fatalf("liquidity block not filled: %s", ba)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
