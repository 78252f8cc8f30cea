package evmdex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/pipeline/sources/venue/uniswap"
)

// chainServer is a local Ethereum JSON-RPC server built with go-ethereum's
// rpc package. It replays the recorded Uniswap v3 day: eth_blockNumber,
// eth_getLogs, eth_getBlockByNumber, eth_call (token0, token1, fee,
// tickSpacing on the pools; decimals and symbol on the tokens, from the
// Uniswap token list) and eth_subscribe("newHeads") over WebSocket. Its head
// advances on a clock; it can drop every connection for a while, answers
// eth_getLogs shuffled and with duplicates, and can put a range of blocks on
// a fork (another hash and an extra swap) that is later replaced.
type chainServer struct {
	t      testing.TB
	blocks map[uint64][]types.Log // canonical logs per block
	times  map[uint64]uint64      // block timestamps
	first  uint64
	last   uint64
	tokens map[common.Address]tokenEntry
	pools  map[common.Address]poolEntry

	mu          sync.Mutex
	head        uint64
	forkFrom    uint64 // while not 0, blocks from here on are on a fork
	forkServed  bool   // eth_getLogs answered with fork logs
	forkRead    bool   // and the client asked for the head again since
	down        bool
	conns       map[net.Conn]bool
	heads       []chan uint64
	rng         *rand.Rand
	noSubscribe bool
	logsCalls   int

	url, wsURL string
	srv        *http.Server
}

type tokenEntry struct {
	symbol   string
	decimals uint8
}

type poolEntry struct {
	token0, token1 common.Address
	fee, spacing   int64
}

var (
	poolA = common.HexToAddress("0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640")
	poolB = common.HexToAddress("0x8ad599c3a0ff1de082011efddc58f1908eb6e6d8")
	usdc  = common.HexToAddress("0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48")
	weth  = common.HexToAddress("0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2")
)

const (
	fileA = "defi/uniswapv3_ethereum_USDC-WETH-0.05pct_0x88e6_eth_getLogs_2024-01-05.DERIVED.json"
	fileB = "defi/uniswapv3_ethereum_USDC-WETH-0.3pct_0x8ad5_eth_getLogs_2024-01-05.DERIVED.json"
)

func loadLogs(tb testing.TB, rel string) []types.Log {
	tb.Helper()
	b, err := os.ReadFile(fixtures.Path(tb, rel))
	if err != nil {
		tb.Fatal(err)
	}
	var doc struct {
		Result []types.Log `json:"result"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		tb.Fatalf("cannot decode %s: %v", rel, err)
	}
	return doc.Result
}

func newChainServer(tb testing.TB) *chainServer {
	tb.Helper()
	s := &chainServer{
		t: tb, blocks: map[uint64][]types.Log{}, times: map[uint64]uint64{},
		tokens: map[common.Address]tokenEntry{}, conns: map[net.Conn]bool{},
		rng: rand.New(rand.NewPCG(1, 2)),
		pools: map[common.Address]poolEntry{
			poolA: {usdc, weth, 500, 10},
			poolB: {usdc, weth, 3000, 60},
		},
	}
	for _, f := range []string{fileA, fileB} {
		for _, l := range loadLogs(tb, f) {
			s.blocks[l.BlockNumber] = append(s.blocks[l.BlockNumber], l)
			s.times[l.BlockNumber] = l.BlockTimestamp
		}
	}
	s.first, s.last = ^uint64(0), 0
	for n := range s.blocks {
		s.first, s.last = min(s.first, n), max(s.last, n)
	}
	// Timestamps of blocks without logs: the previous block's.
	prev := s.times[s.first]
	for n := s.first; n <= s.last+100; n++ {
		if ts, ok := s.times[n]; ok {
			prev = ts
		} else {
			s.times[n] = prev
		}
	}
	tl, err := os.ReadFile(fixtures.Path(tb, "defi/uniswap_default_token_list_mainnet_tokens.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var list []struct {
		Address  string `json:"address"`
		Symbol   string `json:"symbol"`
		Decimals uint8  `json:"decimals"`
		ChainID  int    `json:"chainId"`
	}
	if err := json.Unmarshal(tl, &list); err != nil {
		tb.Fatal(err)
	}
	for _, e := range list {
		if e.ChainID == 1 {
			s.tokens[common.HexToAddress(e.Address)] = tokenEntry{e.Symbol, e.Decimals}
		}
	}
	s.head = s.first
	return s
}

func (s *chainServer) start() {
	rs := rpc.NewServer()
	if err := rs.RegisterName("eth", &ethService{s}); err != nil {
		s.t.Fatal(err)
	}
	ws := rs.WebsocketHandler([]string{"*"})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.t.Fatal(err)
	}
	s.url = "http://" + ln.Addr().String()
	s.wsURL = "ws://" + ln.Addr().String()
	s.srv = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
				ws.ServeHTTP(w, r)
				return
			}
			rs.ServeHTTP(w, r)
		}),
		ConnState: func(c net.Conn, st http.ConnState) {
			s.mu.Lock()
			defer s.mu.Unlock()
			switch st {
			case http.StateNew:
				if s.down {
					c.Close()
					return
				}
				s.conns[c] = true
			case http.StateClosed, http.StateHijacked:
				if st == http.StateClosed {
					delete(s.conns, c)
				}
			}
		},
	}
	go s.srv.Serve(ln)
	s.t.Cleanup(func() { s.srv.Close(); rs.Stop() })
}

// disconnect drops every connection and refuses new ones for d.
func (s *chainServer) disconnect(d time.Duration) {
	s.mu.Lock()
	s.down = true
	for c := range s.conns {
		c.Close()
		delete(s.conns, c)
	}
	s.mu.Unlock()
	time.AfterFunc(d, func() {
		s.mu.Lock()
		s.down = false
		s.mu.Unlock()
	})
}

// advance moves the head to n and notifies subscribers.
func (s *chainServer) advance(n uint64) {
	s.mu.Lock()
	s.head = n
	hs := append([]chan uint64(nil), s.heads...)
	s.mu.Unlock()
	for _, h := range hs {
		select {
		case h <- n:
		default:
		}
	}
}

func (s *chainServer) hash(n uint64) common.Hash {
	tag := "canonical"
	if s.onFork(n) {
		tag = "fork"
	}
	return crypto.Keccak256Hash([]byte(fmt.Sprintf("%s-%d", tag, n)))
}

// logsOf are the logs of block n: on the fork, the first two fork blocks
// also hold a copy of their first swap under another transaction hash.
func (s *chainServer) logsOf(n uint64) []types.Log {
	ls := s.blocks[n]
	if !s.onFork(n) || n > s.forkFrom+1 || len(ls) == 0 {
		return ls
	}
	extra := ls[0]
	extra.TxHash = crypto.Keccak256Hash([]byte(fmt.Sprintf("fork-tx-%d", n)))
	extra.Index = 9999
	return append(append([]types.Log(nil), ls...), extra)
}

func (s *chainServer) onFork(n uint64) bool { return s.forkFrom != 0 && n >= s.forkFrom }

type ethService struct{ s *chainServer }

func (e *ethService) BlockNumber() hexutil.Uint64 {
	e.s.mu.Lock()
	defer e.s.mu.Unlock()
	if e.s.forkServed {
		e.s.forkRead = true
	}
	return hexutil.Uint64(e.s.head)
}

type filterArg struct {
	FromBlock hexutil.Uint64   `json:"fromBlock"`
	ToBlock   hexutil.Uint64   `json:"toBlock"`
	Address   []common.Address `json:"address"`
	Topics    [][]common.Hash  `json:"topics"`
	BlockHash *common.Hash     `json:"blockHash"`
}

func (e *ethService) GetLogs(f filterArg) ([]types.Log, error) {
	s := e.s
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logsCalls++
	from, to := uint64(f.FromBlock), min(uint64(f.ToBlock), s.head)
	if from > s.head {
		return nil, nil
	}
	if to >= from && to-from >= 10000 {
		return nil, errors.New("query returned more than 10000 results")
	}
	want := map[common.Address]bool{}
	for _, a := range f.Address {
		want[a] = true
	}
	topics := map[common.Hash]bool{}
	if len(f.Topics) > 0 {
		for _, h := range f.Topics[0] {
			topics[h] = true
		}
	}
	var out []types.Log
	for n := from; n <= to; n++ {
		for _, l := range s.logsOf(n) {
			if len(want) > 0 && !want[l.Address] || len(topics) > 0 && !topics[l.Topics[0]] {
				continue
			}
			l.BlockHash = s.hash(n)
			l.BlockTimestamp = 0 // make the connector read block times
			out = append(out, l)
			if s.onFork(n) {
				s.forkServed = true
			}
		}
	}
	// Reordered and duplicated.
	s.rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	for i := 0; i < len(out); i += 5 {
		out = append(out, out[i])
	}
	return out, nil
}

func (e *ethService) GetBlockByNumber(num string, full bool) (map[string]any, error) {
	s := e.s
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := hexutil.DecodeUint64(num)
	if err != nil {
		if num != "latest" {
			return nil, fmt.Errorf("bad block number %q", num)
		}
		n = s.head
	}
	if n > s.head {
		return nil, nil
	}
	return map[string]any{
		"number": hexutil.Uint64(n), "hash": s.hash(n), "parentHash": s.hash(n - 1),
		"timestamp": hexutil.Uint64(s.times[n]),
	}, nil
}

type callArg struct {
	To    *common.Address `json:"to"`
	Data  hexutil.Bytes   `json:"data"`
	Input hexutil.Bytes   `json:"input"`
}

func (e *ethService) Call(c callArg, block *string) (hexutil.Bytes, error) {
	s := e.s
	data := c.Input
	if len(data) == 0 {
		data = c.Data
	}
	if c.To == nil || len(data) < 4 {
		return nil, errors.New("execution reverted")
	}
	if p, ok := s.pools[*c.To]; ok {
		for name, m := range uniswap.PoolABI.Methods {
			if string(m.ID) != string(data[:4]) {
				continue
			}
			switch name {
			case "token0":
				return m.Outputs.Pack(p.token0)
			case "token1":
				return m.Outputs.Pack(p.token1)
			case "fee":
				return m.Outputs.Pack(bigInt(p.fee))
			case "tickSpacing":
				return m.Outputs.Pack(bigInt(p.spacing))
			}
		}
	}
	if t, ok := s.tokens[*c.To]; ok {
		for name, m := range ERC20ABI.Methods {
			if string(m.ID) != string(data[:4]) {
				continue
			}
			switch name {
			case "decimals":
				return m.Outputs.Pack(t.decimals)
			case "symbol":
				return m.Outputs.Pack(t.symbol)
			}
		}
	}
	return nil, errors.New("execution reverted")
}

func (e *ethService) NewHeads(ctx context.Context) (*rpc.Subscription, error) {
	s := e.s
	if s.noSubscribe {
		return nil, errors.New("subscriptions not supported")
	}
	nf, ok := rpc.NotifierFromContext(ctx)
	if !ok {
		return nil, rpc.ErrNotificationsUnsupported
	}
	sub := nf.CreateSubscription()
	ch := make(chan uint64, 64)
	s.mu.Lock()
	s.heads = append(s.heads, ch)
	s.mu.Unlock()
	go func() {
		defer func() {
			s.mu.Lock()
			for i, h := range s.heads {
				if h == ch {
					s.heads = append(s.heads[:i], s.heads[i+1:]...)
					break
				}
			}
			s.mu.Unlock()
		}()
		for {
			select {
			case n := <-ch:
				s.mu.Lock()
				h := map[string]any{"number": hexutil.Uint64(n), "hash": s.hash(n), "timestamp": hexutil.Uint64(s.times[n])}
				s.mu.Unlock()
				if nf.Notify(sub.ID, h) != nil {
					return
				}
			case <-sub.Err():
				return
			}
		}
	}()
	return sub, nil
}

// sortedBlocks returns the block numbers with logs, ascending.
func (s *chainServer) sortedBlocks() []uint64 {
	out := make([]uint64, 0, len(s.blocks))
	for n := range s.blocks {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func bigInt(v int64) *big.Int { return big.NewInt(v) }
