package chain_test

import (
	"context"
	"errors"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/chain"
	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
	"github.com/marketintel/mi/pipeline/sources/clock"
)

var (
	t0     = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	supply = new(big.Int).Mul(big.NewInt(1_000_000), new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil))
	erc20  = chaintest.ERC20.ABI
)

// token starts a chain with TestERC20 deployed by Accounts[0].
func token(t *testing.T) (*chaintest.Chain, common.Address) {
	t.Helper()
	ch := chaintest.New(t)
	return ch, ch.Deploy(t, ch.Accounts[0], chaintest.ERC20, "Test Token", "TT", uint8(18), supply)
}

// client returns a client of ch without rate limit on fc (nil: system).
func client(t *testing.T, ch *chaintest.Chain, name string, fc clock.Clock, reg *sources.Registry) *chain.Client {
	t.Helper()
	cfg := ch.Config(name)
	cfg.Limit = &sources.Limit{}
	c, err := chain.New(cfg, chain.Options{Clock: fc, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// call packs method(args) for the contract at to, runs it through c and
// unpacks the result.
func call(t *testing.T, c *chain.Client, msg ethereum.CallMsg, method string, ov map[common.Address]ethereum.OverrideAccount, args ...any) ([]any, error) {
	t.Helper()
	data, err := erc20.Pack(method, args...)
	if err != nil {
		t.Fatal(err)
	}
	msg.Data = data
	out, err := c.Call(context.Background(), msg, nil, ov)
	if err != nil {
		return nil, err
	}
	res, err := erc20.Unpack(method, out)
	if err != nil {
		t.Fatalf("cannot unpack %s: %v", method, err)
	}
	return res, nil
}

func mustCall(t *testing.T, c *chain.Client, to common.Address, method string, args ...any) any {
	t.Helper()
	res, err := call(t, c, ethereum.CallMsg{To: &to}, method, nil, args...)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return res[0]
}

func TestERC20Reads(t *testing.T) {
	ch, tok := token(t)
	a0, a1 := ch.Accounts[0].Address, ch.Accounts[1].Address
	ch.Send(t, ch.Accounts[0], tok, erc20, "transfer", a1, big.NewInt(2500))
	reg := sources.NewRegistry(nil, nil)
	c := client(t, ch, "base", nil, reg)
	if got := mustCall(t, c, tok, "totalSupply").(*big.Int); got.Cmp(supply) != 0 {
		t.Fatalf("totalSupply %v", got)
	}
	if got := mustCall(t, c, tok, "balanceOf", a1).(*big.Int); got.Int64() != 2500 {
		t.Fatalf("balanceOf(a1) %v", got)
	}
	if got := mustCall(t, c, tok, "balanceOf", a0).(*big.Int); new(big.Int).Sub(supply, got).Int64() != 2500 {
		t.Fatalf("balanceOf(a0) %v", got)
	}
	if got := mustCall(t, c, tok, "symbol").(string); got != "TT" {
		t.Fatalf("symbol %q", got)
	}
	ctx := context.Background()
	code, err := c.Code(ctx, tok, nil)
	if err != nil || len(code) < 100 {
		t.Fatalf("code of the token: %d bytes, %v", len(code), err)
	}
	if code, err := c.Code(ctx, a0, nil); err != nil || len(code) != 0 {
		t.Fatalf("code of an account: %x, %v", code, err)
	}
	w, err := c.StorageAt(ctx, tok, common.BigToHash(big.NewInt(2)), nil) // totalSupply
	if err != nil || w.Big().Cmp(supply) != 0 {
		t.Fatalf("slot 2 = %v, %v", w.Big(), err)
	}
	w, err = c.StorageAt(ctx, tok, chaintest.BalanceSlot(a1, 3), nil)
	if err != nil || w.Big().Int64() != 2500 {
		t.Fatalf("balance slot of a1 = %v, %v", w.Big(), err)
	}
	w, _ = c.StorageAt(ctx, tok, common.BigToHash(big.NewInt(5)), nil) // owner
	if common.BytesToAddress(w[12:]) != a0 {
		t.Fatalf("owner slot %x", w)
	}
	head, err := c.BlockNumber(ctx)
	want, _ := ch.Backend.Client().BlockNumber(ctx)
	if err != nil || head != want || head < 2 {
		t.Fatalf("block number %d, %v; the backend says %d", head, err, want)
	}
	h, err := c.Header(ctx, nil)
	if err != nil || h.Number != head || h.Time == 0 {
		t.Fatalf("latest header %+v, %v", h, err)
	}
	hs, err := c.Headers(ctx, []uint64{0, 1, 2})
	if err != nil || len(hs) != 3 || hs[1].ParentHash != hs[0].Hash || hs[2].ParentHash != hs[1].Hash {
		t.Fatalf("headers %+v, %v", hs, err)
	}
	if _, err := c.Header(ctx, big.NewInt(1_000_000)); !errors.Is(err, chain.ErrNoBlock) {
		t.Fatalf("a block the chain lacks: %v", err)
	}
	f := reg.Snapshot()[0]
	if f.Name != "chain:base" || f.State != "ok" || f.Stale || !f.LastData.Equal(time.Unix(int64(h.Time), 0).UTC()) {
		t.Fatalf("freshness %+v", f)
	}
}

// TestStateOverrides gives an account tokens it does not have (a storage
// override of its balance slot) and simulates a transfer from it; gives a
// fresh address the token's code; gives an account without ether the
// ether a call needs.
func TestStateOverrides(t *testing.T) {
	ch, tok := token(t)
	c := client(t, ch, "base", nil, nil)
	poor, dest := ch.Accounts[3].Address, ch.Accounts[1].Address
	from := ethereum.CallMsg{From: poor, To: &tok}
	_, err := call(t, c, from, "transfer", nil, dest, big.NewInt(1000))
	var rev *chain.RevertError
	if !errors.As(err, &rev) || rev.Kind != chain.RevertMessage || rev.Reason != "ERC20: transfer amount exceeds balance" {
		t.Fatalf("transfer without a balance: %v", err)
	}
	ov := map[common.Address]ethereum.OverrideAccount{
		tok: {StateDiff: map[common.Hash]common.Hash{chaintest.BalanceSlot(poor, 3): common.BigToHash(big.NewInt(5000))}},
	}
	res, err := call(t, c, from, "transfer", ov, dest, big.NewInt(1000))
	if err != nil || res[0] != true {
		t.Fatalf("transfer with an overridden balance: %v, %v", res, err)
	}
	res, _ = call(t, c, ethereum.CallMsg{To: &tok}, "balanceOf", ov, poor)
	if res[0].(*big.Int).Int64() != 5000 {
		t.Fatalf("overridden balance %v", res[0])
	}
	if got := mustCall(t, c, tok, "balanceOf", poor).(*big.Int); got.Sign() != 0 {
		t.Fatalf("the override leaked into the chain: %v", got)
	}
	// Code: the token's runtime code at an address that has none.
	code, err := c.Code(context.Background(), tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	ghost := common.HexToAddress("0x00000000000000000000000000000000deadbeef")
	res, err = call(t, c, ethereum.CallMsg{To: &ghost}, "decimals", map[common.Address]ethereum.OverrideAccount{ghost: {Code: code}})
	if err != nil || res[0].(uint8) != 18 {
		t.Fatalf("decimals() of overridden code: %v, %v", res, err)
	}
	// Balance: a key without ether sends 1 ETH.
	k, _ := crypto.GenerateKey()
	broke := crypto.PubkeyToAddress(k.PublicKey)
	oneEth := big.NewInt(1e18)
	msg := ethereum.CallMsg{From: broke, To: &dest, Value: oneEth}
	_, err = c.Call(context.Background(), msg, nil, nil)
	var ce *chain.CallError
	if !errors.As(err, &ce) || errors.As(err, &rev) {
		t.Fatalf("sending ether without ether: %v, want a node error that is not a revert", err)
	}
	if _, err := c.Call(context.Background(), msg, nil, map[common.Address]ethereum.OverrideAccount{broke: {Balance: new(big.Int).Mul(oneEth, big.NewInt(2))}}); err != nil {
		t.Fatalf("with an overridden balance: %v", err)
	}
	// At an old block the override still applies to that block's state.
	res, err = call(t, c, ethereum.CallMsg{To: &tok}, "totalSupply", nil)
	if err != nil || res[0].(*big.Int).Cmp(supply) != 0 {
		t.Fatal(err)
	}
}

func TestReverts(t *testing.T) {
	ch, tok := token(t)
	reg := sources.NewRegistry(nil, nil)
	c := client(t, ch, "base", nil, reg)
	stranger := ch.Accounts[2].Address
	f := func(msg ethereum.CallMsg, method string, args []any, kind chain.RevertKind, text string) {
		t.Helper()
		_, err := call(t, c, msg, method, nil, args...)
		var rev *chain.RevertError
		if !errors.As(err, &rev) || rev.Kind != kind || err.Error() != text {
			t.Fatalf("%s: got %v (%T), want %s revert %q", method, err, err, kind, text)
		}
	}
	sel := "0x" + common.Bytes2Hex(crypto.Keccak256([]byte("Unauthorized(address)"))[:4])
	f(ethereum.CallMsg{From: stranger, To: &tok}, "transfer", []any{ch.Accounts[0].Address, big.NewInt(1)}, chain.RevertMessage, "execution reverted: ERC20: transfer amount exceeds balance")
	f(ethereum.CallMsg{From: stranger, To: &tok}, "transferFrom", []any{ch.Accounts[0].Address, stranger, big.NewInt(1)}, chain.RevertMessage, "execution reverted: ERC20: insufficient allowance")
	f(ethereum.CallMsg{From: stranger, To: &tok}, "mint", []any{stranger, big.NewInt(1)}, chain.RevertCustom, "execution reverted: custom error "+sel)
	f(ethereum.CallMsg{To: &tok}, "ratio", []any{big.NewInt(1), big.NewInt(0)}, chain.RevertPanic, "execution reverted: panic 0x12 (division or modulo by zero)")
	// A revert inside a batch is the element's error.
	okData, _ := erc20.Pack("ratio", big.NewInt(6), big.NewInt(3))
	badData, _ := erc20.Pack("ratio", big.NewInt(6), big.NewInt(0))
	var r1, r2 string
	batch := []rpc.BatchElem{
		{Method: "eth_call", Args: []any{map[string]any{"to": tok, "data": "0x" + common.Bytes2Hex(okData)}, "latest"}, Result: &r1},
		{Method: "eth_call", Args: []any{map[string]any{"to": tok, "data": "0x" + common.Bytes2Hex(badData)}, "latest"}, Result: &r2},
	}
	if err := c.Batch(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
	var rev *chain.RevertError
	if batch[0].Error != nil || new(big.Int).SetBytes(common.FromHex(r1)).Int64() != 2 || !errors.As(batch[1].Error, &rev) || rev.Kind != chain.RevertPanic {
		t.Fatalf("batch: %v %q / %v", batch[0].Error, r1, batch[1].Error)
	}
	if f := reg.Snapshot()[0]; f.State != "ok" || f.ConsecutiveFailures != 0 {
		t.Fatalf("reverts counted as chain failures: %+v", f)
	}
}

func TestDecodeRevert(t *testing.T) {
	errData := func(s string) []byte {
		args := abi.Arguments{{Type: mustType(t, "string")}}
		b, _ := args.Pack(s)
		return append(common.FromHex("0x08c379a0"), b...)
	}
	f := func(data []byte, kind chain.RevertKind, text string) {
		t.Helper()
		e := chain.DecodeRevert(data)
		if e.Kind != kind || e.Error() != text {
			t.Fatalf("DecodeRevert(%x) = %s %q, want %s %q", data, e.Kind, e.Error(), kind, text)
		}
	}
	f(nil, chain.RevertNoData, "execution reverted without a reason")
	f(errData("Ownable: caller is not the owner"), chain.RevertMessage, "execution reverted: Ownable: caller is not the owner")
	f(errData(""), chain.RevertMessage, "execution reverted: ")
	f(append(common.FromHex("0x4e487b71"), common.LeftPadBytes([]byte{0x11}, 32)...), chain.RevertPanic, "execution reverted: panic 0x11 (arithmetic overflow or underflow)")
	f(append(common.FromHex("0x4e487b71"), common.LeftPadBytes([]byte{0x99}, 32)...), chain.RevertPanic, "execution reverted: panic 0x99")
	f(common.FromHex("0x4e487b71"), chain.RevertCustom, "execution reverted: custom error 0x4e487b71") // panic without its code
	f(common.FromHex("0x08c379a0ffff"), chain.RevertCustom, "execution reverted: custom error 0x08c379a0")
	f(common.FromHex("0xfb8f41b2"), chain.RevertCustom, "execution reverted: custom error 0xfb8f41b2")
	f(common.FromHex("0xab"), chain.RevertCustom, "execution reverted: custom error 0xab")
}

func mustType(t testing.TB, s string) abi.Type {
	ty, err := abi.NewType(s, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

func FuzzDecodeRevert(f *testing.F) {
	args := abi.Arguments{{Type: mustType(f, "string")}}
	b, _ := args.Pack("ERC20: transfer amount exceeds balance")
	f.Add(append(common.FromHex("0x08c379a0"), b...))
	f.Add(append(common.FromHex("0x4e487b71"), common.LeftPadBytes([]byte{0x12}, 32)...))
	f.Add(common.FromHex("0xfb8f41b2000000000000000000000000deadbeef"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		e := chain.DecodeRevert(data)
		if e.Error() == "" || (len(data) > 0) == (e.Kind == chain.RevertNoData) {
			t.Fatalf("DecodeRevert(%x) = %+v", data, e)
		}
	})
}

// TestLogsSplit reads the Transfer logs of 13 blocks from a node that
// refuses ranges over 4 blocks, and with max_log_range 5; both give the
// logs the backend itself gives, in order.
func TestLogsSplit(t *testing.T) {
	ch, tok := token(t)
	for i := range 12 {
		ch.Send(t, ch.Accounts[0], tok, erc20, "transfer", ch.Accounts[1+i%3].Address, big.NewInt(int64(100+i)))
	}
	ctx := context.Background()
	q := ethereum.FilterQuery{Addresses: []common.Address{tok}, Topics: [][]common.Hash{{erc20.Events["Transfer"].ID}}}
	want, err := ch.Backend.Client().FilterLogs(ctx, ethereum.FilterQuery{FromBlock: big.NewInt(0), Addresses: q.Addresses, Topics: q.Topics})
	if err != nil || len(want) != 13 {
		t.Fatalf("the backend's logs: %d, %v", len(want), err)
	}
	same := func(got []types.Log) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%d logs, want %d", len(got), len(want))
		}
		for i := range got {
			if got[i].TxHash != want[i].TxHash || got[i].Index != want[i].Index || got[i].BlockNumber != want[i].BlockNumber {
				t.Fatalf("log %d: block %d tx %s, want block %d tx %s", i, got[i].BlockNumber, got[i].TxHash.Hex(), want[i].BlockNumber, want[i].TxHash.Hex())
			}
		}
	}
	head, _ := ch.Backend.Client().BlockNumber(ctx)
	ch.RefuseLogRange(4)
	c := client(t, ch, "base", nil, nil)
	logs, err := c.Logs(ctx, q) // from 0 to the latest block
	if err != nil {
		t.Fatal(err)
	}
	same(logs)
	if n := ch.Calls("eth_getLogs"); n < 5 {
		t.Fatalf("%d eth_getLogs calls over %d blocks refused above 4", n, head+1)
	}
	// Configured range: ceil((head+1)/5) requests, none refused.
	ch.ClearFaults()
	ch.ResetCounts()
	cfg := ch.Config("base5")
	cfg.MaxLogRange = 5
	c5, _ := chain.New(cfg, chain.Options{})
	defer c5.Close()
	q.FromBlock, q.ToBlock = big.NewInt(0), new(big.Int).SetUint64(head)
	logs, err = c5.Logs(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	same(logs)
	if n, w := ch.Calls("eth_getLogs"), int(head+1+4)/5; n != w {
		t.Fatalf("%d eth_getLogs calls, want %d", n, w)
	}
	// A single block the node still refuses is an error, not a loop.
	ch.RefuseLogRange(1)
	ch.Inject(chaintest.Fault{Method: "eth_getLogs", Code: -32005, Message: "query returned more than 10000 results"})
	if _, err := c5.Logs(ctx, ethereum.FilterQuery{FromBlock: big.NewInt(1), ToBlock: big.NewInt(2)}); err == nil {
		t.Fatal("a refused single block gave no error")
	}
}

// TestSingleflight: 100 concurrent identical reads make one eth_call,
// counted at the server; reads after it make their own.
func TestSingleflight(t *testing.T) {
	ch, tok := token(t)
	c := client(t, ch, "base", nil, nil)
	ch.ResetCounts()
	release := ch.Hold("eth_call")
	const n = 100
	var wg sync.WaitGroup
	results := make([]*big.Int, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := call(t, c, ethereum.CallMsg{To: &tok}, "totalSupply", nil)
			errs[i] = err
			if err == nil {
				results[i] = res[0].(*big.Int)
			}
		}()
	}
	waitFor(t, func() bool { return c.Stats().Reads == n && ch.Held("eth_call") == 1 })
	release()
	wg.Wait()
	for i := range n {
		if errs[i] != nil || results[i].Cmp(supply) != 0 {
			t.Fatalf("read %d: %v, %v", i, results[i], errs[i])
		}
	}
	if got := ch.Calls("eth_call"); got != 1 {
		t.Fatalf("%d concurrent reads made %d eth_call, want 1", n, got)
	}
	mustCall(t, c, tok, "totalSupply")
	mustCall(t, c, tok, "totalSupply")
	if got := ch.Calls("eth_call"); got != 3 {
		t.Fatalf("two later reads: %d eth_call in all, want 3 (no caching without Cache)", got)
	}
	// Different parameters are different reads.
	mustCall(t, c, tok, "balanceOf", ch.Accounts[0].Address)
	mustCall(t, c, tok, "balanceOf", ch.Accounts[1].Address)
	if got := ch.Calls("eth_call"); got != 5 {
		t.Fatalf("%d eth_call, want 5", got)
	}
}

// TestCache: 100 concurrent requests for one token share one chain read;
// requests within the TTL of it share it too; after the TTL a new read.
func TestCache(t *testing.T) {
	ch, tok := token(t)
	fc := clock.NewFake(t0)
	c := client(t, ch, "base", fc, nil)
	cache := chain.NewCache[*big.Int](45*time.Second, 0, fc)
	load := func(ctx context.Context) (*big.Int, error) {
		res, err := call(t, c, ethereum.CallMsg{To: &tok}, "totalSupply", nil)
		if err != nil {
			return nil, err
		}
		return res[0].(*big.Int), nil
	}
	ch.ResetCounts()
	release := ch.Hold("eth_call")
	const n = 100
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := cache.Get(context.Background(), "base:"+tok.Hex(), load)
			if err == nil && v.Cmp(supply) != 0 {
				err = errors.New("wrong supply")
			}
			errs <- err
		}()
	}
	waitFor(t, func() bool { return cache.Stats().Misses == n && ch.Held("eth_call") == 1 })
	release()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := ch.Calls("eth_call"); got != 1 {
		t.Fatalf("%d requests made %d eth_call, want 1", n, got)
	}
	get := func() {
		t.Helper()
		if _, err := cache.Get(context.Background(), "base:"+tok.Hex(), load); err != nil {
			t.Fatal(err)
		}
	}
	fc.Advance(44 * time.Second)
	get()
	if got := ch.Calls("eth_call"); got != 1 {
		t.Fatalf("a request 44 s later made a read (%d eth_call)", got)
	}
	fc.Advance(time.Second)
	get()
	if got, s := ch.Calls("eth_call"), cache.Stats(); got != 2 || s.Loads != 2 || s.Hits != 1 {
		t.Fatalf("at 45 s: %d eth_call, stats %+v; want 2 reads, 2 loads, 1 hit", got, s)
	}
	// Errors are not cached.
	fails := 0
	bad := func(ctx context.Context) (*big.Int, error) { fails++; return nil, errors.New("rpc down") }
	for range 2 {
		if _, err := cache.Get(context.Background(), "other", bad); err == nil {
			t.Fatal("error lost")
		}
	}
	if fails != 2 {
		t.Fatalf("an error was cached (%d loads)", fails)
	}
	// The bound holds.
	small := chain.NewCache[int](time.Minute, 3, fc)
	for i := range 10 {
		_, _ = small.Get(context.Background(), string(rune('a'+i)), func(context.Context) (int, error) { return i, nil })
	}
	if small.Len() != 3 {
		t.Fatalf("bounded cache holds %d", small.Len())
	}
}

// TestStaleChain: a chain whose node fails is reported stale while the
// other answers; while it backs off, reads fail at once without a request;
// after the backoff it recovers.
func TestStaleChain(t *testing.T) {
	good, tok := token(t)
	bad := chaintest.New(t)
	fc := clock.NewFake(t0)
	reg := sources.NewRegistry(nil, fc)
	cfgs := []sources.ChainConfig{good.Config("base"), bad.Config("arbitrum"), {Chain: "polygon", RPC: "http://127.0.0.1:1", Disabled: true}}
	for i := range cfgs {
		cfgs[i].Limit = &sources.Limit{}
	}
	set, err := chain.Open(cfgs, chain.Options{Registry: reg, Clock: fc, MinBackoff: 4 * time.Second, Rand: func() float64 { return 0 }})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	if _, err := set.Get("polygon"); !errors.Is(err, chain.ErrUnknownChain) || err.Error() != `chain not supported: "polygon"; supported chains: arbitrum, base` {
		t.Fatalf("disabled chain: %v", err)
	}
	base, _ := set.Get("base")
	arb, _ := set.Get("arbitrum")
	bad.Inject(chaintest.Fault{Status: 503})
	ctx := context.Background()
	if _, err := arb.BlockNumber(ctx); err == nil {
		t.Fatal("a 503 gave no error")
	}
	var ce *chain.CallError
	var he rpc.HTTPError
	if _, err := arb.BlockNumber(ctx); !errors.Is(err, chain.ErrUnavailable) || errors.As(err, &ce) {
		t.Fatalf("during the backoff: %v, want ErrUnavailable", err)
	}
	if bad.Requests() != 1 {
		t.Fatalf("%d requests reached the failing node during its backoff", bad.Requests())
	}
	if got := mustCall(t, base, tok, "totalSupply").(*big.Int); got.Cmp(supply) != 0 {
		t.Fatal("the healthy chain does not answer")
	}
	snap := reg.Snapshot()
	if len(snap) != 2 || snap[0].Name != "chain:arbitrum" || !snap[0].Stale || snap[0].State != "failing" || snap[0].ConsecutiveFailures != 1 ||
		snap[1].Name != "chain:base" || snap[1].Stale {
		t.Fatalf("freshness %+v", snap)
	}
	// The backoff window is 0.75 × 4 s with the jitter pinned at 0.
	fc.Advance(2999 * time.Millisecond)
	if _, err := arb.BlockNumber(ctx); !errors.Is(err, chain.ErrUnavailable) {
		t.Fatalf("before the end of the backoff: %v", err)
	}
	fc.Advance(time.Millisecond)
	_, err = arb.BlockNumber(ctx)
	if !errors.As(err, &ce) || !errors.As(err, &he) || he.StatusCode != 503 {
		t.Fatalf("after the backoff, still down: %v", err)
	}
	// The second window doubles: 6 s.
	fc.Advance(6 * time.Second)
	bad.ClearFaults()
	if _, err := arb.BlockNumber(ctx); err != nil {
		t.Fatalf("after recovery: %v", err)
	}
	if f := reg.Snapshot()[0]; f.Stale || f.State != "ok" || f.ConsecutiveFailures != 0 || f.LastError == "" {
		t.Fatalf("recovered freshness %+v", f)
	}
	// A JSON-RPC error object means the node is up.
	bad.Inject(chaintest.Fault{Method: "eth_blockNumber", Code: -32603, Message: "internal error", Count: 1})
	if _, err := arb.BlockNumber(ctx); !errors.As(err, &ce) {
		t.Fatalf("JSON-RPC error: %v", err)
	}
	if f := reg.Snapshot()[0]; f.Stale {
		t.Fatalf("a node's error object made the chain stale: %+v", f)
	}
}

// TestTimeout: a node that does not answer fails the read after the
// entry's timeout, with context.DeadlineExceeded.
func TestTimeout(t *testing.T) {
	ch := chaintest.New(t)
	cfg := ch.Config("optimism")
	cfg.Timeout = sources.Duration(100 * time.Millisecond)
	c, err := chain.New(cfg, chain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ch.Inject(chaintest.Fault{Hang: true})
	if _, err := c.BlockNumber(context.Background()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want a deadline error", err)
	}
	// A caller that gives up earlier gets its own context's error.
	ch.ClearFaults()
	ch.Inject(chaintest.Fault{Delay: time.Hour})
	c2, _ := chain.New(ch.Config("optimism"), chain.Options{})
	defer c2.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c2.BlockNumber(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled caller: %v", err)
	}
}

// TestChainRateLimit: at 1 request/s with bursts of 1, the second of two
// different reads waits one second on the clock.
func TestChainRateLimit(t *testing.T) {
	ch := chaintest.New(t)
	fc := clock.NewFake(t0)
	cfg := ch.Config("base")
	cfg.Limit = &sources.Limit{Rate: 1, Burst: 1}
	c, _ := chain.New(cfg, chain.Options{Clock: fc})
	defer c.Close()
	ctx := context.Background()
	if _, err := c.BlockNumber(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { _, err := c.Code(ctx, ch.Accounts[0].Address, nil); done <- err }()
	if err := fc.BlockUntil(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if d, _ := fc.Next(); d.Sub(t0) != time.Second || ch.Requests() != 1 {
		t.Fatalf("the second read waits until +%v with %d requests sent", d.Sub(t0), ch.Requests())
	}
	fc.AdvanceToNext()
	if err := <-done; err != nil || ch.Requests() != 2 {
		t.Fatalf("%v, %d requests", err, ch.Requests())
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition never met")
		}
		time.Sleep(200 * time.Microsecond)
	}
}
