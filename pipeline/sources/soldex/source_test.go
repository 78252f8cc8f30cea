package soldex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/schemas"
)

const (
	wsol = "So11111111111111111111111111111111111111112"
	usdc = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
)

// solPool is the fixture's pool with its mints mapped to wrapped SOL (base)
// and USDC (quote), as in the derived transactions.
var solPool = Pool{Address: meteoraPool.Address, Venue: "meteora_dlmm", Name: "SOL/USDC", BaseMint: wsol, QuoteMint: usdc}

// derive rewrites the real metadata: the pool's mints become wSOL and USDC
// (6 decimals), every amount is multiplied by k, and odd variants swap pre
// and post balances (the other direction).
func derive(t testing.TB, raw []byte, k int) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"preTokenBalances", "postTokenBalances"} {
		for _, b := range m[key].([]any) {
			e := b.(map[string]any)
			ui := e["uiTokenAmount"].(map[string]any)
			switch e["mint"] {
			case meteoraPool.BaseMint:
				e["mint"] = wsol
			case meteoraPool.QuoteMint:
				e["mint"] = usdc
				ui["decimals"] = 6
			}
			v, _ := strconv.ParseInt(ui["amount"].(string), 10, 64)
			ui["amount"] = strconv.FormatInt(v*int64(k)/1000, 10)
		}
	}
	if k%2 == 1 {
		m["preTokenBalances"], m["postTokenBalances"] = m["postTokenBalances"], m["preTokenBalances"]
	}
	b, _ := json.Marshal(m)
	return b
}

type solTx struct {
	sig       string
	slot      uint64
	blockTime int64
	meta      []byte
	failed    bool
}

// solServer is a local Solana JSON-RPC server (HTTP POST, JSON-RPC 2.0)
// answering getSignaturesForAddress (newest first, until/before/limit) and
// getTransaction from the transactions it holds. Each listing reveals three
// more transactions (the chain advancing); listings repeat their newest
// entry; after the third listing the server answers 503 three times; the
// first getTransaction of every fifth transaction answers null (not yet
// available).
type solServer struct {
	mu       sync.Mutex
	txs      []solTx // oldest first
	visible  int
	lists    int
	failNext int
	asked    map[string]bool
	url      string
}

func (s *solServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failNext > 0 {
		s.failNext--
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	var req struct {
		ID     json.RawMessage   `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	reply := func(result any) {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}
	switch req.Method {
	case "getSignaturesForAddress":
		var addr string
		var opts struct {
			Limit  int    `json:"limit"`
			Until  string `json:"until"`
			Before string `json:"before"`
		}
		json.Unmarshal(req.Params[0], &addr)
		if len(req.Params) > 1 {
			json.Unmarshal(req.Params[1], &opts)
		}
		s.lists++
		if s.lists == 3 {
			s.failNext = 3
		}
		s.visible = min(len(s.txs), s.visible+3)
		var out []map[string]any
		started := opts.Before == ""
		for i := s.visible - 1; i >= 0; i-- {
			tx := s.txs[i]
			if tx.sig == opts.Until {
				break
			}
			if !started {
				started = tx.sig == opts.Before
				continue
			}
			var errv any
			if tx.failed {
				errv = map[string]any{"InstructionError": []any{0, "Custom"}}
			}
			out = append(out, map[string]any{"signature": tx.sig, "slot": tx.slot, "err": errv, "blockTime": tx.blockTime, "confirmationStatus": "confirmed"})
			if opts.Limit > 0 && len(out) >= opts.Limit {
				break
			}
		}
		if len(out) > 0 {
			out = append([]map[string]any{out[0]}, out...) // duplicated
		}
		reply(out)
	case "getTransaction":
		var sig string
		json.Unmarshal(req.Params[0], &sig)
		for i, tx := range s.txs {
			if tx.sig != sig {
				continue
			}
			if i%5 == 0 && !s.asked[sig] {
				s.asked[sig] = true
				reply(nil)
				return
			}
			reply(map[string]any{"slot": tx.slot, "blockTime": tx.blockTime, "meta": json.RawMessage(tx.meta),
				"transaction": map[string]any{"signatures": []string{sig}}})
			return
		}
		reply(nil)
	default:
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
		w.Write(b)
	}
}

func TestConnectorReplay(t *testing.T) {
	raw := readFixture(t)
	srv := &solServer{asked: map[string]bool{}}
	for i := 0; i < 24; i++ {
		tx := solTx{sig: fmt.Sprintf("sig%03d", i), slot: 300_000_000 + uint64(i)*3, blockTime: 1_700_000_000 + int64(i), meta: derive(t, raw, 1000+i)}
		switch i {
		case 7:
			tx.meta = raw // the real transaction: its vaults hold other mints, no swap of solPool
		case 11:
			tx.failed = true
		case 13:
			tx.meta = []byte(`{"err":null,"preTokenBalances":[{"accountIndex":1,"mint":"x","uiTokenAmount":{"amount":"NaN","decimals":6}}]}`) // a bad amount
		}
		srv.txs = append(srv.txs, tx)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv}
	go hs.Serve(ln)
	defer hs.Close()

	src, err := New(Config{RPC: "http://" + ln.Addr().String(), Pools: []Pool{solPool}, PollInterval: 2 * time.Millisecond,
		StartLimit: 1000, StopWhenIdle: true, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var got []sources.Record
	for {
		r, err := src.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v (stats %+v)", err, src.Stats())
		}
		got = append(got, r)
	}
	// What the parser reads from the same transactions.
	ref, _ := New(Config{RPC: "x", Pools: []Pool{solPool}})
	var want []sources.Record
	for _, tx := range srv.txs {
		if !tx.failed {
			want = append(want, ref.Records(tx.sig, tx.blockTime, tx.meta)...)
		}
	}
	if len(got) != len(want) || len(want) != 22 {
		t.Fatalf("%d records through the connector, %d from the parser", len(got), len(want))
	}
	buys, sells := 0, 0
	for i := range want {
		g, w := got[i], want[i]
		if (g.Trade == nil) != (w.Trade == nil) || g.Reason != w.Reason {
			t.Fatalf("record %d: %+v, want %+v", i, g, w)
		}
		if g.Trade == nil {
			continue
		}
		a, b := proto.Clone(g.Trade).(*schemas.Trade), proto.Clone(w.Trade).(*schemas.Trade)
		a.IngestTimeNs, b.IngestTimeNs = 0, 0
		if !proto.Equal(a, b) {
			t.Fatalf("trade %d:\n%v\n%v", i, a, b)
		}
		if a.Side == schemas.Side_SIDE_BUY {
			buys++
		} else {
			sells++
		}
	}
	if buys != 12 || sells != 9 || !strings.HasPrefix(want[11].Reason, ErrMalformed.Error()) {
		t.Fatalf("buys %d sells %d, record 11 %+v", buys, sells, want[11])
	}
	first := want[0].Trade // variant 1000: the fixture's own direction, a buy of SOL
	if first.Side != schemas.Side_SIDE_BUY || first.Symbol != "SOLUSD" || first.Wallet != "7Z2QzVa3q7r7m84nuez9eRn2u3oCUeg9D1bzdRvNFdxN" ||
		first.Size != 1700.985700449 || first.NotionalUsd != 9372599.925 {
		t.Fatalf("first trade %v", first)
	}
	st := src.Stats()
	if st.Errors == 0 || st.Duplicates == 0 {
		t.Fatalf("stats %+v: want errors (503 and not-yet-available) and duplicates", st)
	}
}
