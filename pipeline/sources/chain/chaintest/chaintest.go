// Package chaintest runs a real EVM chain for tests of chain readers:
// go-ethereum's simulated backend (with funded accounts) behind a local
// JSON-RPC HTTP server that forwards every call to the backend's own RPC
// API — so eth_call takes state overrides exactly as geth does — and that
// counts calls per method and injects faults (delay, JSON-RPC error, HTTP
// status, no answer, refused eth_getLogs ranges, requests held until the
// test releases them). Contracts are deployed from compiled artifacts
// (.abi and .bin); TestERC20 (TestERC20.sol beside this file, built as
// TestERC20.md says) is embedded as ERC20.
package chaintest

import (
	"bytes"
	"cmp"
	"context"
	"crypto/ecdsa"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/marketintel/mi/pipeline/sources"
)

// ChainID is the simulated backend's chain id.
const ChainID = 1337

// Artifact is a compiled contract.
type Artifact struct {
	Name string
	ABI  abi.ABI
	// Bin is the creation code.
	Bin []byte
}

// LoadArtifact reads a contract from solc's --abi JSON and --bin hex.
func LoadArtifact(name, abiJSON, binHex string) (Artifact, error) {
	a, err := abi.JSON(strings.NewReader(abiJSON))
	if err != nil {
		return Artifact{}, fmt.Errorf("cannot read the ABI of %s: %w", name, err)
	}
	bin, err := hex.DecodeString(strings.TrimPrefix(strings.TrimSpace(binHex), "0x"))
	if err != nil {
		return Artifact{}, fmt.Errorf("cannot read the bytecode of %s: %w", name, err)
	}
	return Artifact{Name: name, ABI: a, Bin: bin}, nil
}

// ReadArtifact loads dir/name.abi and dir/name.bin, failing the test on an
// error.
func ReadArtifact(t TB, dir, name string) Artifact {
	t.Helper()
	a, err := os.ReadFile(filepath.Join(dir, name+".abi"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, name+".bin"))
	if err != nil {
		t.Fatal(err)
	}
	art, err := LoadArtifact(name, string(a), string(b))
	if err != nil {
		t.Fatal(err)
	}
	return art
}

//go:embed TestERC20.abi
var erc20ABI string

//go:embed TestERC20.bin
var erc20Bin string

// ERC20 is TestERC20: constructor (name, symbol, decimals, supply) mints
// supply to the deployer; storage slot 3 is balanceOf, 4 allowance, 5 owner.
var ERC20 = func() Artifact {
	a, err := LoadArtifact("TestERC20", erc20ABI, erc20Bin)
	if err != nil {
		panic("BUG: " + err.Error())
	}
	return a
}()

// BalanceSlot is the storage slot of balanceOf[holder] in TestERC20 (and
// in any ERC-20 whose balance mapping is at slot mappingSlot).
func BalanceSlot(holder common.Address, mappingSlot int64) common.Hash {
	return crypto.Keccak256Hash(common.LeftPadBytes(holder.Bytes(), 32), common.LeftPadBytes(big.NewInt(mappingSlot).Bytes(), 32))
}

// Account is a funded account.
type Account struct {
	Key     *ecdsa.PrivateKey
	Address common.Address
}

// Fault changes the server's answers to the requests it matches.
type Fault struct {
	// Method matches requests holding a call of this method ("" matches
	// every request).
	Method string
	// Delay is waited before answering (or failing).
	Delay time.Duration
	// Hang gives no answer at all: the request ends when the client gives
	// up (its timeout).
	Hang bool
	// Status, when not 0, answers this HTTP status with no JSON-RPC body
	// (503 for a node down behind a proxy, 429 for a provider's limit).
	Status int
	// Code and Message, when Code is not 0, answer every call of the
	// request with this JSON-RPC error.
	Code    int
	Message string
	// Count is how many requests the fault applies to; 0: until
	// ClearFaults.
	Count int
}

// Chain is a simulated chain behind a JSON-RPC HTTP server at URL.
type Chain struct {
	Backend *simulated.Backend
	// URL is the JSON-RPC endpoint.
	URL string
	// Accounts hold 1000 ETH each.
	Accounts []Account
	// GasLimit is the gas of every transaction Transact sends; 0 means
	// 5,000,000. Deploying a contract near the 24 KB code limit (Uniswap's
	// factory) needs more.
	GasLimit uint64

	rc  *rpc.Client
	srv *httptest.Server

	mu          sync.Mutex
	requests    int
	calls       map[string]int
	faults      []*Fault
	maxLogRange uint64
	holds       map[string]chan struct{}
	held        map[string]int
	seed        string
	keys        int
	dir         string
	closeOnce   sync.Once
}

// TB is what the helpers need of a test: testing.TB satisfies it, and so
// does a program that deploys contracts outside a test (the demo chain).
type TB interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// New starts a chain with four funded accounts and its server; both stop
// at the end of the test.
func New(t testing.TB) *Chain {
	t.Helper()
	c, err := Start(StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// StartOptions configure Start.
type StartOptions struct {
	// Seed, when set, derives every account key (the four funded ones and
	// those of NewAccount) from it, so the same transactions deploy the
	// same contract addresses on every run; empty: random keys.
	Seed string
	// Addr is the server's listen address (e.g. "127.0.0.1:8545"); empty:
	// a free loopback port.
	Addr string
	// Alloc holds further genesis accounts: contracts placed at fixed
	// addresses with their code and storage (the offline demo puts a
	// reserve at the real Aave Pool's address this way).
	Alloc types.GenesisAlloc
	// GenesisTime, when not zero, is the genesis block's timestamp. A
	// chain that mines no block then answers every read as of that time,
	// so recorded state keeps its recorded date.
	GenesisTime time.Time
}

// Start starts a chain and its server outside a test; Close stops both.
func Start(o StartOptions) (*Chain, error) {
	eth := new(big.Int).Exp(big.NewInt(10), big.NewInt(21), nil)
	alloc := types.GenesisAlloc{}
	for a, acc := range o.Alloc {
		alloc[a] = acc
	}
	c := &Chain{calls: map[string]int{}, holds: map[string]chan struct{}{}, held: map[string]int{}, seed: o.Seed}
	for range 4 {
		k, err := c.newKey()
		if err != nil {
			return nil, err
		}
		a := Account{Key: k, Address: crypto.PubkeyToAddress(k.PublicKey)}
		c.Accounts = append(c.Accounts, a)
		alloc[a.Address] = types.Account{Balance: eth}
	}
	// The backend's node serves its whole RPC API (eth, with geth's
	// eth_call overrides) on a Unix socket; the server forwards to it.
	dir, err := os.MkdirTemp("", "chaintest")
	if err != nil {
		return nil, err
	}
	c.dir = dir
	ipc := filepath.Join(dir, "geth.ipc")
	c.Backend = simulated.NewBackend(alloc, func(nc *node.Config, ec *ethconfig.Config) {
		nc.IPCPath = ipc
		if !o.GenesisTime.IsZero() {
			ec.Genesis.Timestamp = uint64(o.GenesisTime.Unix())
		}
	})
	if c.rc, err = rpc.Dial(ipc); err != nil {
		_ = c.Backend.Close()
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("cannot attach to the simulated node: %w", err)
	}
	c.srv = httptest.NewUnstartedServer(c)
	if o.Addr != "" {
		l, err := net.Listen("tcp", o.Addr)
		if err != nil {
			c.rc.Close()
			_ = c.Backend.Close()
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("cannot listen on %s: %w", o.Addr, err)
		}
		c.srv.Listener.Close()
		c.srv.Listener = l
	}
	c.srv.Start()
	c.URL = c.srv.URL
	return c, nil
}

// Close stops the server and the chain; it may be called more than once.
func (c *Chain) Close() { c.closeOnce.Do(c.close) }

func (c *Chain) close() {
	c.mu.Lock()
	for m, ch := range c.holds {
		close(ch)
		delete(c.holds, m)
	}
	c.mu.Unlock()
	c.srv.CloseClientConnections()
	c.srv.Close()
	c.rc.Close()
	_ = c.Backend.Close()
	_ = os.RemoveAll(c.dir)
}

// newKey returns the next account key: derived from the seed when there is
// one (keccak256(seed/n)), else random.
func (c *Chain) newKey() (*ecdsa.PrivateKey, error) {
	if c.seed == "" {
		return crypto.GenerateKey()
	}
	c.mu.Lock()
	n := c.keys
	c.keys++
	c.mu.Unlock()
	return crypto.ToECDSA(crypto.Keccak256([]byte(fmt.Sprintf("%s/%d", c.seed, n))))
}

// Config is a chain entry named name pointing at the server.
func (c *Chain) Config(name string) sources.ChainConfig {
	return sources.ChainConfig{Chain: name, RPC: c.URL}
}

// Transact sends data from `from` to `to` (nil deploys), mines a block and
// returns the receipt; a reverted transaction fails the test.
func (c *Chain) Transact(t TB, from Account, to *common.Address, data []byte) *types.Receipt {
	t.Helper()
	r := c.TransactStatus(t, from, to, data)
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("transaction %s reverted", r.TxHash.Hex())
	}
	return r
}

// TransactStatus is Transact without the check of the receipt's status.
func (c *Chain) TransactStatus(t TB, from Account, to *common.Address, data []byte) *types.Receipt {
	t.Helper()
	return c.TransactValueStatus(t, from, to, nil, data)
}

// TransactValue is Transact sending value wei with the call.
func (c *Chain) TransactValue(t TB, from Account, to *common.Address, value *big.Int, data []byte) *types.Receipt {
	t.Helper()
	r := c.TransactValueStatus(t, from, to, value, data)
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("transaction %s reverted", r.TxHash.Hex())
	}
	return r
}

// NewAccount returns a new account holding eth wei, sent by Accounts[0].
func (c *Chain) NewAccount(t TB, eth *big.Int) Account {
	t.Helper()
	k, err := c.newKey()
	if err != nil {
		t.Fatal(err)
	}
	a := Account{Key: k, Address: crypto.PubkeyToAddress(k.PublicKey)}
	c.TransactValue(t, c.Accounts[0], &a.Address, eth, nil)
	return a
}

// CallContract runs method of the contract at `to` with eth_call against
// the latest block, directly on the backend (not counted, no faults), and
// returns the unpacked outputs.
func (c *Chain) CallContract(a abi.ABI, to common.Address, method string, args ...any) ([]any, error) {
	data, err := a.Pack(method, args...)
	if err != nil {
		return nil, err
	}
	out, err := c.Backend.Client().CallContract(context.Background(), ethereum.CallMsg{To: &to, Data: data}, nil)
	if err != nil {
		return nil, err
	}
	return a.Unpack(method, out)
}

// TransactValueStatus is TransactValue without the check of the receipt's
// status.
func (c *Chain) TransactValueStatus(t TB, from Account, to *common.Address, value *big.Int, data []byte) *types.Receipt {
	t.Helper()
	ctx := context.Background()
	cl := c.Backend.Client()
	nonce, err := cl.PendingNonceAt(ctx, from.Address)
	if err != nil {
		t.Fatal(err)
	}
	head, err := cl.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	chainID := big.NewInt(ChainID)
	tx, err := types.SignNewTx(from.Key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{
		ChainID: chainID, Nonce: nonce, GasTipCap: big.NewInt(1e9),
		GasFeeCap: new(big.Int).Add(big.NewInt(1e9), new(big.Int).Mul(head.BaseFee, big.NewInt(2))),
		Gas:       cmp.Or(c.GasLimit, 5_000_000), To: to, Data: data, Value: value,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	c.Backend.Commit()
	r, err := cl.TransactionReceipt(ctx, tx.Hash())
	if err != nil {
		t.Fatalf("no receipt for %s: %v", tx.Hash().Hex(), err)
	}
	return r
}

// Deploy deploys art with constructor args from `from` and returns its
// address.
func (c *Chain) Deploy(t TB, from Account, art Artifact, args ...any) common.Address {
	t.Helper()
	packed, err := art.ABI.Pack("", args...)
	if err != nil {
		t.Fatalf("cannot pack the constructor of %s: %v", art.Name, err)
	}
	r := c.Transact(t, from, nil, append(append([]byte(nil), art.Bin...), packed...))
	return r.ContractAddress
}

// Send calls method of the contract at `to` with args in a transaction
// from `from`, mined in its own block.
func (c *Chain) Send(t TB, from Account, to common.Address, a abi.ABI, method string, args ...any) *types.Receipt {
	t.Helper()
	data, err := a.Pack(method, args...)
	if err != nil {
		t.Fatalf("cannot pack %s: %v", method, err)
	}
	return c.Transact(t, from, &to, data)
}

// Requests is the number of HTTP requests served (a batch is one).
func (c *Chain) Requests() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.requests
}

// Calls is the number of JSON-RPC calls of method served (each call of a
// batch counts).
func (c *Chain) Calls(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[method]
}

// ResetCounts sets the counters to zero.
func (c *Chain) ResetCounts() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests, c.calls = 0, map[string]int{}
}

// Inject adds a fault; the first matching fault applies to a request.
func (c *Chain) Inject(f Fault) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.faults = append(c.faults, &f)
}

// ClearFaults removes every fault and the log range limit.
func (c *Chain) ClearFaults() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.faults, c.maxLogRange = nil, 0
}

// RefuseLogRange makes eth_getLogs over more than n blocks fail with
// -32005 "query exceeds max block range n", as providers do (0: accept
// any range).
func (c *Chain) RefuseLogRange(n uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.maxLogRange = n
}

// Hold makes requests with a call of method wait until release is called
// (or the client gives up); Held counts the waiting ones.
func (c *Chain) Hold(method string) (release func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan struct{})
	c.holds[method] = ch
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			if c.holds[method] == ch {
				delete(c.holds, method)
			}
			c.mu.Unlock()
			close(ch)
		})
	}
}

// Held is the number of requests with a call of method waiting on a Hold.
func (c *Chain) Held(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held[method]
}

type message struct {
	Version string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

type answer struct {
	Version string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// ServeHTTP answers one JSON-RPC request or batch.
func (c *Chain) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err != nil {
		return
	}
	body = bytes.TrimSpace(body)
	batch := len(body) > 0 && body[0] == '['
	var msgs []message
	if batch {
		err = json.Unmarshal(body, &msgs)
	} else {
		var m message
		err = json.Unmarshal(body, &m)
		msgs = []message{m}
	}
	if err != nil {
		writeJSON(w, answer{Version: "2.0", ID: json.RawMessage("null"), Error: &rpcError{Code: -32700, Message: "parse error"}})
		return
	}
	ctx := r.Context()
	fault, holds := c.admit(msgs)
	if fault != nil {
		if fault.Delay > 0 {
			select {
			case <-time.After(fault.Delay):
			case <-ctx.Done():
				return
			}
		}
		switch {
		case fault.Hang:
			<-ctx.Done()
			return
		case fault.Status != 0:
			http.Error(w, http.StatusText(fault.Status), fault.Status)
			return
		}
	}
	for _, h := range holds {
		select {
		case <-h.ch:
		case <-ctx.Done():
		}
		c.mu.Lock()
		c.held[h.method]--
		c.mu.Unlock()
	}
	out := make([]answer, len(msgs))
	for i, m := range msgs {
		if fault != nil && fault.Code != 0 {
			out[i] = answer{Version: "2.0", ID: m.ID, Error: &rpcError{Code: fault.Code, Message: fault.Message}}
			continue
		}
		out[i] = c.forward(ctx, m)
	}
	if batch {
		writeJSON(w, out)
	} else {
		writeJSON(w, out[0])
	}
}

type hold struct {
	method string
	ch     chan struct{}
}

// admit counts the request and returns the fault and holds that apply.
func (c *Chain) admit(msgs []message) (*Fault, []hold) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests++
	var holds []hold
	for _, m := range msgs {
		c.calls[m.Method]++
		if ch, ok := c.holds[m.Method]; ok {
			holds = append(holds, hold{m.Method, ch})
			c.held[m.Method]++
		}
	}
	for i, f := range c.faults {
		match := f.Method == ""
		for _, m := range msgs {
			match = match || m.Method == f.Method
		}
		if !match {
			continue
		}
		if f.Count > 0 {
			f.Count--
			if f.Count == 0 {
				c.faults = append(c.faults[:i:i], c.faults[i+1:]...)
			}
		}
		return f, holds
	}
	return nil, holds
}

func (c *Chain) forward(ctx context.Context, m message) answer {
	a := answer{Version: "2.0", ID: m.ID}
	var params []json.RawMessage
	if len(m.Params) > 0 && string(m.Params) != "null" {
		if err := json.Unmarshal(m.Params, &params); err != nil {
			a.Error = &rpcError{Code: -32602, Message: "invalid params: want an array"}
			return a
		}
	}
	if m.Method == "eth_getLogs" && len(params) == 1 {
		if n := c.logRangeLimit(); n > 0 {
			var q struct{ FromBlock, ToBlock string }
			_ = json.Unmarshal(params[0], &q)
			from, err1 := hexutil.DecodeUint64(q.FromBlock)
			to, err2 := hexutil.DecodeUint64(q.ToBlock)
			if err1 == nil && err2 == nil && to >= from && to-from+1 > n {
				a.Error = &rpcError{Code: -32005, Message: fmt.Sprintf("query exceeds max block range %d", n)}
				return a
			}
		}
	}
	args := make([]any, len(params))
	for i, p := range params {
		args[i] = p
	}
	var res json.RawMessage
	if err := c.rc.CallContext(ctx, &res, m.Method, args...); err != nil {
		e := &rpcError{Code: -32000, Message: err.Error()}
		var re rpc.Error
		if errors.As(err, &re) {
			e.Code = re.ErrorCode()
		}
		var de rpc.DataError
		if errors.As(err, &de) {
			e.Data = de.ErrorData()
		}
		a.Error = e
		return a
	}
	if res == nil {
		res = json.RawMessage("null")
	}
	a.Result = res
	return a
}

func (c *Chain) logRangeLimit() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.maxLogRange
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
