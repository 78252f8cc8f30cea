package ledger

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// backend opens a fresh, empty ledger and returns a function that opens the
// same database again (a restart).
type backend func(t testing.TB) (*SQL, func() *SQL)

func sqliteBackend(t testing.TB) (*SQL, func() *SQL) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	open := func() *SQL {
		s, err := Open(context.Background(), "sqlite:"+path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	return open(), open
}

// backends are the backends every conformance test runs on.
func backends() map[string]backend {
	return map[string]backend{"sqlite": sqliteBackend, "postgres": postgresBackend}
}

// conformance runs test on every backend.
func conformance(t *testing.T, test func(t *testing.T, s *SQL, reopen func() *SQL)) {
	for name, b := range backends() {
		t.Run(name, func(t *testing.T) {
			s, reopen := b(t)
			test(t, s, reopen)
			if err := s.Verify(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

var reqSeq atomic.Int64

func reqID() string { return fmt.Sprintf("req-%d-%d", time.Now().UnixNano(), reqSeq.Add(1)) }

func charge(amount int64) Charge {
	return Charge{Route: "GET /api/v1/intelligence/:symbol", AmountMicroUSD: amount, RequestID: reqID(), At: time.Now()}
}

func mustBalance(t *testing.T, s *SQL, key string, want int64) {
	t.Helper()
	got, err := s.KeyBalance(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("balance = %d, want %d", got, want)
	}
}

func TestConformanceKeyDebitRefund(t *testing.T) {
	conformance(t, func(t *testing.T, s *SQL, _ func() *SQL) {
		ctx := context.Background()
		key, err := s.CreateKey(ctx, 20_000, "test grant", reqID())
		if err != nil {
			t.Fatal(err)
		}
		if !WellFormedKey(key) || len(key) != len(KeyPrefix)+64 {
			t.Fatalf("key %q is not prefix + 64 hex digits", key)
		}
		mustBalance(t, s, key, 20_000)
		c := charge(5_000)
		if err := s.DebitKey(ctx, key, c); err != nil {
			t.Fatal(err)
		}
		mustBalance(t, s, key, 15_000)
		if err := s.DebitKey(ctx, key, c); !errors.Is(err, ErrDuplicateRequest) {
			t.Fatalf("second debit with the same request id: %v, want ErrDuplicateRequest", err)
		}
		mustBalance(t, s, key, 15_000)
		if err := s.RefundKey(ctx, key, c); err != nil {
			t.Fatal(err)
		}
		mustBalance(t, s, key, 20_000)
		if err := s.RefundKey(ctx, key, c); !errors.Is(err, ErrAlreadyRefunded) {
			t.Fatalf("second refund: %v, want ErrAlreadyRefunded", err)
		}
		if err := s.RefundKey(ctx, key, charge(5_000)); !errors.Is(err, ErrNoSuchDebit) {
			t.Fatalf("refund without debit: %v, want ErrNoSuchDebit", err)
		}
		wrong := charge(5_000)
		if err := s.DebitKey(ctx, key, wrong); err != nil {
			t.Fatal(err)
		}
		wrong.AmountMicroUSD = 6_000
		if err := s.RefundKey(ctx, key, wrong); !errors.Is(err, ErrNoSuchDebit) {
			t.Fatalf("refund of a different amount: %v, want ErrNoSuchDebit", err)
		}
		mustBalance(t, s, key, 15_000)
		if err := s.DebitKey(ctx, key, charge(15_001)); !errors.Is(err, ErrInsufficientCredit) {
			t.Fatalf("overdraft: %v, want ErrInsufficientCredit", err)
		}
		if err := s.DebitKey(ctx, key, charge(15_000)); err != nil {
			t.Fatal(err)
		}
		mustBalance(t, s, key, 0)
		if err := s.TopUpKey(ctx, key, 7, "top up", reqID()); err != nil {
			t.Fatal(err)
		}
		mustBalance(t, s, key, 7)
		if err := s.DebitKey(ctx, key, charge(0)); !errors.Is(err, ErrInvalidAmount) {
			t.Fatalf("zero charge: %v, want ErrInvalidAmount", err)
		}
	})
}

func TestConformanceUnknownKey(t *testing.T) {
	conformance(t, func(t *testing.T, s *SQL, _ func() *SQL) {
		ctx := context.Background()
		other, _ := NewKey()
		for _, k := range []string{other, "", "mi_live_", "nope", KeyPrefix + "ZZ"} {
			if err := s.DebitKey(ctx, k, charge(1)); !errors.Is(err, ErrUnknownKey) {
				t.Errorf("DebitKey(%q) = %v, want ErrUnknownKey", k, err)
			}
			if err := s.RefundKey(ctx, k, charge(1)); !errors.Is(err, ErrUnknownKey) {
				t.Errorf("RefundKey(%q) = %v, want ErrUnknownKey", k, err)
			}
			if _, err := s.KeyBalance(ctx, k); !errors.Is(err, ErrUnknownKey) {
				t.Errorf("KeyBalance(%q) = %v, want ErrUnknownKey", k, err)
			}
			if err := s.TopUpKey(ctx, k, 1, "", ""); !errors.Is(err, ErrUnknownKey) {
				t.Errorf("TopUpKey(%q) = %v, want ErrUnknownKey", k, err)
			}
			if k == "" {
				continue // Buy without a key buys a new one
			}
			if _, err := s.Buy(ctx, Purchase{APIKey: k, CreditMicroUSD: 1}); !errors.Is(err, ErrUnknownKey) {
				t.Errorf("Buy(%q) = %v, want ErrUnknownKey", k, err)
			}
		}
	})
}

func TestConformanceNonceOnceEver(t *testing.T) {
	conformance(t, func(t *testing.T, s *SQL, reopen func() *SQL) {
		ctx := context.Background()
		exp := time.Now().Add(time.Minute)
		payer := "0xAbCdEf0000000000000000000000000000000001"
		if err := s.ReserveNonce(ctx, "eip155:8453", payer, "0x01", exp); err != nil {
			t.Fatal(err)
		}
		if err := s.ReserveNonce(ctx, "eip155:8453", payer, "0x01", exp); !errors.Is(err, ErrNonceUsed) {
			t.Fatalf("second reserve: %v, want ErrNonceUsed", err)
		}
		// The same nonce of another payer or network is another authorization.
		if err := s.ReserveNonce(ctx, "eip155:137", payer, "0x01", exp); err != nil {
			t.Fatal(err)
		}
		if err := s.ReserveProof(ctx, "proof-1", exp); err != nil {
			t.Fatal(err)
		}
		if err := s.ReserveProof(ctx, "proof-1", exp); !errors.Is(err, ErrProofUsed) {
			t.Fatalf("second proof: %v, want ErrProofUsed", err)
		}
		s.Close()
		r := reopen()
		// Case of the 0x address does not make a new authorization.
		if err := r.ReserveNonce(ctx, "eip155:8453", "0xabcdef0000000000000000000000000000000001", "0x01", exp); !errors.Is(err, ErrNonceUsed) {
			t.Fatalf("reserve after restart: %v, want ErrNonceUsed", err)
		}
		if err := r.ReserveProof(ctx, "proof-1", exp); !errors.Is(err, ErrProofUsed) {
			t.Fatalf("proof after restart: %v, want ErrProofUsed", err)
		}
		if v, err := r.SchemaVersion(ctx); err != nil || v != len(migrations) {
			t.Fatalf("schema version %d, %v; want %d", v, err, len(migrations))
		}
		s.db = r.db // Verify runs on the reopened handle
	})
}

func TestConformanceConcurrentDebits(t *testing.T) {
	conformance(t, func(t *testing.T, s *SQL, _ func() *SQL) {
		ctx := context.Background()
		const price = 5_000
		key, err := s.CreateKey(ctx, 50*price, "test", reqID())
		if err != nil {
			t.Fatal(err)
		}
		var ok, short, other atomic.Int64
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range 200 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				switch err := s.DebitKey(ctx, key, charge(price)); {
				case err == nil:
					ok.Add(1)
				case errors.Is(err, ErrInsufficientCredit):
					short.Add(1)
				default:
					t.Error(err)
					other.Add(1)
				}
			}()
		}
		close(start)
		wg.Wait()
		if ok.Load() != 50 || short.Load() != 150 || other.Load() != 0 {
			t.Fatalf("%d succeeded, %d insufficient, %d other; want 50, 150, 0", ok.Load(), short.Load(), other.Load())
		}
		mustBalance(t, s, key, 0)

		// The same on a wallet's credit (sign-in with wallet).
		w := "eip155:0xCCCC000000000000000000000000000000000003"
		if err := s.CreditWallet(ctx, w, 50*price, "test", reqID()); err != nil {
			t.Fatal(err)
		}
		ok.Store(0)
		short.Store(0)
		start = make(chan struct{})
		for range 200 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				switch err := s.DebitWallet(ctx, w, charge(price)); {
				case err == nil:
					ok.Add(1)
				case errors.Is(err, ErrInsufficientCredit):
					short.Add(1)
				default:
					t.Error(err)
				}
			}()
		}
		close(start)
		wg.Wait()
		if bal, _ := s.WalletBalance(ctx, w); ok.Load() != 50 || short.Load() != 150 || bal != 0 {
			t.Fatalf("wallet: %d succeeded, %d insufficient, balance %d; want 50, 150, 0", ok.Load(), short.Load(), bal)
		}
	})
}

// TestConformanceConcurrentOpen: replicas starting together on one database
// migrate it once and all open.
func TestConformanceConcurrentOpen(t *testing.T) {
	conformance(t, func(t *testing.T, s *SQL, reopen func() *SQL) {
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := reopen()
				if v, err := r.SchemaVersion(context.Background()); err != nil || v != len(migrations) {
					t.Errorf("schema version %d, %v", v, err)
				}
			}()
		}
		wg.Wait()
	})
}

func TestConformanceWalletAndPurchase(t *testing.T) {
	conformance(t, func(t *testing.T, s *SQL, _ func() *SQL) {
		ctx := context.Background()
		w := "eip155:0xAAAA000000000000000000000000000000000001"
		if bal, err := s.WalletBalance(ctx, w); err != nil || bal != 0 {
			t.Fatalf("unknown wallet balance %d, %v", bal, err)
		}
		if err := s.DebitWallet(ctx, w, charge(1)); !errors.Is(err, ErrInsufficientCredit) {
			t.Fatalf("debit of unknown wallet: %v", err)
		}
		// A pack bought without key: a new key, the wallet shares its balance.
		r, err := s.Buy(ctx, Purchase{Wallet: w, CreditMicroUSD: 5_000_000, Route: "POST /api/v1/credits/buy/:pack", RequestID: reqID()})
		if err != nil {
			t.Fatal(err)
		}
		if !WellFormedKey(r.APIKey) || r.BalanceMicroUSD != 5_000_000 {
			t.Fatalf("purchase = %+v", r)
		}
		if bal, _ := s.WalletBalance(ctx, w); bal != 5_000_000 {
			t.Fatalf("wallet balance %d after pack, want 5000000 (not granted twice)", bal)
		}
		c := charge(10_000)
		if err := s.DebitWallet(ctx, w, c); err != nil {
			t.Fatal(err)
		}
		mustBalance(t, s, r.APIKey, 4_990_000)
		if err := s.RefundWallet(ctx, w, c); err != nil {
			t.Fatal(err)
		}
		mustBalance(t, s, r.APIKey, 5_000_000)
		// Top-up of the key by the same wallet: one balance, no second key.
		r2, err := s.Buy(ctx, Purchase{APIKey: r.APIKey, Wallet: w, CreditMicroUSD: 22_000_000, RequestID: reqID()})
		if err != nil {
			t.Fatal(err)
		}
		if r2.APIKey != "" || r2.BalanceMicroUSD != 27_000_000 {
			t.Fatalf("top-up = %+v", r2)
		}
		// A second wallet with its own credit tops up the key: its account
		// merges into the key's.
		w2 := "solana:9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"
		if err := s.CreditWallet(ctx, w2, 1_000, "operator", reqID()); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Buy(ctx, Purchase{APIKey: r.APIKey, Wallet: w2, CreditMicroUSD: 5_000_000, RequestID: reqID()}); err != nil {
			t.Fatal(err)
		}
		mustBalance(t, s, r.APIKey, 32_001_000)
		for _, x := range []string{w, w2} {
			if bal, _ := s.WalletBalance(ctx, x); bal != 32_001_000 {
				t.Fatalf("wallet %s balance %d, want 32001000", x, bal)
			}
		}
		a, err := s.KeyAccount(ctx, r.APIKey)
		if err != nil || len(a.Wallets) != 2 || a.Keys != 1 {
			t.Fatalf("account %+v, %v", a, err)
		}
		// The purchase request id is recorded once.
		dup := reqID()
		if _, err := s.Buy(ctx, Purchase{Wallet: w, CreditMicroUSD: 1, RequestID: dup}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Buy(ctx, Purchase{Wallet: w, CreditMicroUSD: 1, RequestID: dup}); !errors.Is(err, ErrDuplicateRequest) {
			t.Fatalf("duplicate purchase: %v", err)
		}
	})
}

// TestConformanceBalancesEqualEntries drives random operation sequences and
// checks, after every step, the balances against a model and against the sum
// of the entries.
func TestConformanceBalancesEqualEntries(t *testing.T) {
	conformance(t, func(t *testing.T, s *SQL, _ func() *SQL) {
		ctx := context.Background()
		rng := rand.New(rand.NewPCG(1, 2))
		m := newModel()
		wallets := []string{"eip155:0x00000000000000000000000000000000000000a1", "eip155:0x00000000000000000000000000000000000000A2",
			"eip155:0x00000000000000000000000000000000000000a3", "solana:So1anaWa11etBase58xyzSo1anaWa11etBase5"}
		type debitRec struct {
			key, wallet string
			c           Charge
		}
		var debits []debitRec
		for step := range 200 {
			amt := int64(rng.IntN(20_000) + 1)
			var err error
			switch op := rng.IntN(8); {
			case op == 0 || len(m.keys) == 0:
				var k string
				if k, err = s.CreateKey(ctx, amt, "grant", reqID()); err == nil {
					m.newKey(k, amt)
				}
			case op == 1:
				k := m.keys[rng.IntN(len(m.keys))]
				if err = s.TopUpKey(ctx, k, amt, "top up", reqID()); err == nil {
					m.bal[m.keyAcct[k]] += amt
				}
			case op == 2:
				k, c := m.keys[rng.IntN(len(m.keys))], charge(amt)
				err = s.DebitKey(ctx, k, c)
				if m.bal[m.keyAcct[k]] < amt {
					if !errors.Is(err, ErrInsufficientCredit) {
						t.Fatalf("step %d: debit beyond balance: %v", step, err)
					}
					err = nil
				} else if err == nil {
					m.bal[m.keyAcct[k]] -= amt
					debits = append(debits, debitRec{key: k, c: c})
				}
			case op == 3:
				w, c := wallets[rng.IntN(len(wallets))], charge(amt)
				err = s.DebitWallet(ctx, w, c)
				if a, ok := m.walletAcct[w]; !ok || m.bal[a] < amt {
					if !errors.Is(err, ErrInsufficientCredit) {
						t.Fatalf("step %d: wallet debit beyond balance: %v", step, err)
					}
					err = nil
				} else if err == nil {
					m.bal[a] -= amt
					debits = append(debits, debitRec{wallet: w, c: c})
				}
			case op == 4 && len(debits) > 0:
				i := rng.IntN(len(debits))
				d := debits[i]
				debits = append(debits[:i], debits[i+1:]...)
				if d.key != "" {
					err = s.RefundKey(ctx, d.key, d.c)
					m.bal[m.keyAcct[d.key]] += d.c.AmountMicroUSD
				} else {
					err = s.RefundWallet(ctx, d.wallet, d.c)
					m.bal[m.walletAcct[d.wallet]] += d.c.AmountMicroUSD
				}
			case op == 5:
				w := wallets[rng.IntN(len(wallets))]
				if err = s.CreditWallet(ctx, w, amt, "credit", reqID()); err == nil {
					if _, ok := m.walletAcct[w]; !ok {
						m.walletAcct[w] = m.newAcct()
					}
					m.bal[m.walletAcct[w]] += amt
				}
			default:
				w := wallets[rng.IntN(len(wallets))]
				p := Purchase{Wallet: w, CreditMicroUSD: amt, RequestID: reqID()}
				if rng.IntN(2) == 0 {
					p.APIKey = m.keys[rng.IntN(len(m.keys))]
				}
				var r PurchaseResult
				if r, err = s.Buy(ctx, p); err == nil {
					m.buy(p, r)
				}
			}
			if err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			if err := s.Verify(ctx); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			if step%4 != 0 {
				continue
			}
			for _, k := range m.keys {
				if got, _ := s.KeyBalance(ctx, k); got != m.bal[m.keyAcct[k]] {
					t.Fatalf("step %d: key balance %d, model %d", step, got, m.bal[m.keyAcct[k]])
				}
			}
			for _, w := range wallets {
				want := int64(0)
				if a, ok := m.walletAcct[w]; ok {
					want = m.bal[a]
				}
				if got, _ := s.WalletBalance(ctx, w); got != want {
					t.Fatalf("step %d: wallet %s balance %d, model %d", step, w, got, want)
				}
			}
		}
	})
}

// model is the test's own account of balances, following the rules of Buy.
type model struct {
	n          int
	keys       []string
	keyAcct    map[string]int
	walletAcct map[string]int
	bal        map[int]int64
}

func newModel() *model {
	return &model{keyAcct: map[string]int{}, walletAcct: map[string]int{}, bal: map[int]int64{}}
}

func (m *model) newAcct() int { m.n++; return m.n }

func (m *model) newKey(k string, credit int64) {
	a := m.newAcct()
	m.keys = append(m.keys, k)
	m.keyAcct[k] = a
	m.bal[a] = credit
}

func (m *model) buy(p Purchase, r PurchaseResult) {
	var a int
	switch {
	case p.APIKey != "":
		a = m.keyAcct[p.APIKey]
	default:
		if wa, ok := m.walletAcct[p.Wallet]; ok {
			a = wa
		} else {
			a = m.newAcct()
		}
		m.keys = append(m.keys, r.APIKey)
		m.keyAcct[r.APIKey] = a
	}
	m.bal[a] += p.CreditMicroUSD
	if old, ok := m.walletAcct[p.Wallet]; ok && old != a {
		m.bal[a] += m.bal[old]
		m.bal[old] = 0
		for k, ka := range m.keyAcct {
			if ka == old {
				m.keyAcct[k] = a
			}
		}
		for w, wa := range m.walletAcct {
			if wa == old {
				m.walletAcct[w] = a
			}
		}
	}
	m.walletAcct[p.Wallet] = a
}
