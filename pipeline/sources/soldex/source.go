package soldex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/symbols"
	"github.com/marketintel/mi/schemas"
)

// Config configures the Solana DEX connector.
type Config struct {
	// RPC is the Solana JSON-RPC HTTP endpoint.
	RPC string
	// Pools are the pools to follow.
	Pools []Pool
	// PollInterval is the time between polls; default 2s.
	PollInterval time.Duration
	// StartLimit is how many recent signatures per pool the first poll reads
	// (history); 0 starts with the next new transaction.
	StartLimit int
	// StopWhenIdle ends the source (io.EOF) at the first poll that finds
	// nothing new after one that did: a bounded backfill, and the tests.
	StopWhenIdle bool
	// MinBackoff and MaxBackoff bound the retry delay; defaults 500ms, 30s.
	MinBackoff, MaxBackoff time.Duration
	// Logf receives one line per failure streak.
	Logf func(format string, args ...any)
	// Now stamps IngestTimeNs; default time.Now.
	Now func() time.Time
	// Client is the HTTP client; default one with a 30s timeout.
	Client *http.Client
}

// Stats are the connector's counters.
type Stats struct {
	Errors       uint64 // failed polls
	Transactions uint64 // transactions read
	Duplicates   uint64 // signatures seen again and skipped
}

// Source follows the pools' transactions. It implements sources.Source.
type Source struct {
	cfg    Config
	pools  map[string]*Pool
	order  []string
	last   map[string]string // pool -> newest signature read
	seen   map[string]bool   // signatures read, for dedupe (bounded)
	seenQ  []string
	solusd float64
	out    chan sources.Record
	done   chan struct{}
	start  sync.Once
	cancel context.CancelFunc
	id     atomic.Int64
	mu     sync.Mutex
	stats  Stats
}

// New validates the configuration.
func New(cfg Config) (*Source, error) {
	if cfg.RPC == "" || len(cfg.Pools) == 0 {
		return nil, errors.New("cannot start soldex: rpc and pools are required")
	}
	if cfg.PollInterval == 0 {
		cfg.PollInterval = 2 * time.Second
	}
	if cfg.MinBackoff == 0 {
		cfg.MinBackoff = 500 * time.Millisecond
	}
	if cfg.MaxBackoff == 0 {
		cfg.MaxBackoff = 30 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: 30 * time.Second}
	}
	s := &Source{cfg: cfg, pools: map[string]*Pool{}, last: map[string]string{}, seen: map[string]bool{},
		out: make(chan sources.Record, 256), done: make(chan struct{})}
	for i := range cfg.Pools {
		p := &cfg.Pools[i]
		if p.Address == "" || p.BaseMint == "" || p.QuoteMint == "" || p.Venue == "" {
			return nil, fmt.Errorf("cannot follow pool %+v: address, venue, base_mint and quote_mint are required", *p)
		}
		if s.pools[p.Address] != nil {
			return nil, fmt.Errorf("cannot follow pool %s twice", p.Address)
		}
		s.pools[p.Address] = p
		s.order = append(s.order, p.Address)
	}
	return s, nil
}

// Name is "soldex".
func (s *Source) Name() string { return "soldex" }

// Stats returns a copy of the counters.
func (s *Source) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Next returns the next trade or rejected transaction.
func (s *Source) Next(ctx context.Context) (sources.Record, error) {
	s.start.Do(func() {
		rctx, cancel := context.WithCancel(context.Background())
		s.cancel = cancel
		go s.run(rctx)
	})
	select {
	case r, ok := <-s.out:
		if !ok {
			return sources.Record{}, io.EOF
		}
		return r, nil
	case <-ctx.Done():
		return sources.Record{}, ctx.Err()
	}
}

// Close stops the connector.
func (s *Source) Close() error {
	s.start.Do(func() { close(s.out); close(s.done) })
	if s.cancel != nil {
		s.cancel()
		<-s.done
	}
	return nil
}

func (s *Source) run(ctx context.Context) {
	defer close(s.done)
	defer close(s.out)
	bo := sources.Backoff{Min: s.cfg.MinBackoff, Max: s.cfg.MaxBackoff}
	failing, found := false, false
	for {
		n, err := s.poll(ctx)
		if ctx.Err() != nil {
			return
		}
		wait := s.cfg.PollInterval
		if err != nil {
			s.mu.Lock()
			s.stats.Errors++
			s.mu.Unlock()
			if !failing && s.cfg.Logf != nil {
				s.cfg.Logf("soldex: cannot read %s: %v; retrying with backoff", s.cfg.RPC, err)
			}
			failing = true
			wait = bo.Next()
		} else {
			failing = false
			bo.Reset()
			if n > 0 {
				found = true
			} else if found && s.cfg.StopWhenIdle {
				return
			}
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return
		}
	}
}

type sigInfo struct {
	Signature string          `json:"signature"`
	Slot      uint64          `json:"slot"`
	Err       json.RawMessage `json:"err"`
	BlockTime *int64          `json:"blockTime"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (s *Source) call(ctx context.Context, method string, params []any, out any) error {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.id.Add(1), "method": method, "params": params})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.RPC, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("cannot call %s: %w", method, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.cfg.Client.Do(req)
	if err != nil {
		return fmt.Errorf("cannot call %s: %w", method, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("cannot read %s answer: %w", method, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("cannot call %s: HTTP %d", method, resp.StatusCode)
	}
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		return fmt.Errorf("cannot decode %s answer: %w", method, err)
	}
	if env.Error != nil {
		return fmt.Errorf("cannot call %s: %d %s", method, env.Error.Code, env.Error.Message)
	}
	if err := json.Unmarshal(env.Result, out); err != nil {
		return fmt.Errorf("cannot decode %s result: %w", method, err)
	}
	return nil
}

// signatures returns the pool's signatures newer than the last read, oldest
// first, paging back with before when a page is full.
func (s *Source) signatures(ctx context.Context, pool string) ([]sigInfo, error) {
	const page = 1000
	until, first := s.last[pool], s.last[pool] == ""
	var all []sigInfo
	before := ""
	for {
		opts := map[string]any{"limit": page, "commitment": "confirmed"}
		if first {
			opts["limit"] = max(1, s.cfg.StartLimit)
		}
		if until != "" {
			opts["until"] = until
		}
		if before != "" {
			opts["before"] = before
		}
		var res []sigInfo
		if err := s.call(ctx, "getSignaturesForAddress", []any{pool, opts}, &res); err != nil {
			return nil, err
		}
		all = append(all, res...)
		if first || len(res) < page {
			break
		}
		before = res[len(res)-1].Signature
	}
	// Newest first on the wire; oldest first here (stable by slot).
	sort.SliceStable(all, func(i, j int) bool { return all[i].Slot > all[j].Slot })
	for i, j := 0, len(all)-1; i < j; i, j = i+1, j-1 {
		all[i], all[j] = all[j], all[i]
	}
	if first && s.cfg.StartLimit == 0 && len(all) > 0 {
		// Start after the newest: nothing of the past.
		s.last[pool] = all[len(all)-1].Signature
		return nil, nil
	}
	return all, nil
}

// poll reads every pool's new transactions and returns how many it read.
func (s *Source) poll(ctx context.Context) (int, error) {
	type item struct {
		sigInfo
		pool string
	}
	var items []item
	newest := map[string]string{}
	for _, p := range s.order {
		sigs, err := s.signatures(ctx, p)
		if err != nil {
			return 0, err
		}
		for _, g := range sigs {
			items = append(items, item{g, p})
			newest[p] = g.Signature
		}
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].Slot < items[j].Slot })
	n := 0
	for _, it := range items {
		if s.seen[it.Signature] {
			s.mu.Lock()
			s.stats.Duplicates++
			s.mu.Unlock()
			continue
		}
		if len(it.Err) > 0 && string(it.Err) != "null" {
			s.markSeen(it.Signature)
			continue // failed transactions move no balances
		}
		var tx struct {
			Slot      uint64          `json:"slot"`
			BlockTime *int64          `json:"blockTime"`
			Meta      json.RawMessage `json:"meta"`
		}
		if err := s.call(ctx, "getTransaction", []any{it.Signature, map[string]any{"encoding": "json", "maxSupportedTransactionVersion": 0, "commitment": "confirmed"}}, &tx); err != nil {
			return n, err
		}
		if tx.Meta == nil {
			return n, fmt.Errorf("cannot read transaction %s: not found yet", it.Signature)
		}
		bt := int64(0)
		if tx.BlockTime != nil {
			bt = *tx.BlockTime
		} else if it.BlockTime != nil {
			bt = *it.BlockTime
		}
		for _, r := range s.Records(it.Signature, bt, tx.Meta) {
			select {
			case s.out <- r:
			case <-ctx.Done():
				return n, ctx.Err()
			}
		}
		s.markSeen(it.Signature)
		n++
		s.mu.Lock()
		s.stats.Transactions++
		s.mu.Unlock()
	}
	for p, sig := range newest {
		s.last[p] = sig
	}
	return n, nil
}

func (s *Source) markSeen(sig string) {
	s.seen[sig] = true
	s.seenQ = append(s.seenQ, sig)
	if len(s.seenQ) > 100_000 {
		delete(s.seen, s.seenQ[0])
		s.seenQ = s.seenQ[1:]
	}
}

// Records turns one transaction's metadata into records: a trade per swap of
// a known pool, or one rejected record with the reason. It is what the
// connector emits for the transaction and is exported for replays and tests.
func (s *Source) Records(signature string, blockTime int64, meta []byte) []sources.Record {
	swaps, err, ok := scanSwaps(meta, s.pools, s.order)
	if !ok {
		swaps, err = parseMetaGeneral(meta, s.pools, s.order)
	}
	if err != nil {
		return []sources.Record{{Raw: append([]byte(nil), meta...), Reason: err.Error()}}
	}
	out := make([]sources.Record, 0, len(swaps))
	for i, sw := range swaps {
		t, reason := s.trade(signature, i, blockTime, sw)
		if t == nil {
			out = append(out, sources.Record{Raw: append([]byte(nil), meta...), Reason: reason})
			continue
		}
		out = append(out, sources.Record{Trade: t})
	}
	return out
}

func (s *Source) trade(sig string, idx int, blockTime int64, sw Swap) (*schemas.Trade, string) {
	p := sw.Pool
	base, okB := symbols.LookupToken("solana", p.BaseMint)
	quote, okQ := symbols.LookupToken("solana", p.QuoteMint)
	if !okB || !okQ {
		return nil, "unknown token: pool " + p.Address + " mints are not both in the registry"
	}
	if base.Decimals != sw.BaseDecimals || quote.Decimals != sw.QuoteDecimals {
		return nil, "bad decimals: the transaction's token decimals differ from the registry's"
	}
	t := &schemas.Trade{
		Venue: p.Venue, VenueKind: schemas.VenueKind_VENUE_KIND_SOLANA_DEX, Chain: "solana", Market: p.Address,
		Symbol: base.Symbol, VenueSymbol: base.Ticker + "/" + quote.Ticker,
		EventTimeNs: blockTime * 1e9, IngestTimeNs: s.cfg.Now().UnixNano(),
		TradeId: sig, LogIndex: uint32(idx), Wallet: sw.Trader, Source: "soldex",
	}
	if sw.BaseDelta.Sign() < 0 {
		t.Side = schemas.Side_SIDE_BUY // base left the pool
	} else {
		t.Side = schemas.Side_SIDE_SELL
	}
	size := amount(sw.BaseDelta, base.Decimals)
	q := amount(sw.QuoteDelta, quote.Decimals)
	t.Size = size
	switch quote.Symbol {
	case symbols.USD:
		t.NotionalUsd = q
		if base.Symbol == "SOLUSD" && size > 0 {
			s.solusd = q / size
		}
	case "SOLUSD":
		if s.solusd == 0 {
			return nil, "no SOLUSD price yet: no SOL/stablecoin pool has traded since start"
		}
		t.NotionalUsd = q * s.solusd
	default:
		return nil, "unsupported pool: quote " + quote.Ticker + " is neither a USD stablecoin nor SOL"
	}
	if size > 0 {
		t.Price = t.NotionalUsd / size
	}
	if err := schemas.Validate(t); err != nil {
		return nil, err.Error()
	}
	return t, ""
}

func amount(x *big.Int, decimals int) float64 {
	f := new(big.Float).SetPrec(128).SetInt(new(big.Int).Abs(x))
	f.Quo(f, new(big.Float).SetPrec(128).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)))
	v, _ := f.Float64()
	return v
}
