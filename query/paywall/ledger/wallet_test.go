package ledger

import (
	"context"
	"errors"
	"testing"
)

func TestWalletID(t *testing.T) {
	ok := func(network, addr, want string) {
		t.Helper()
		got, err := WalletID(network, addr)
		if err != nil || got != want {
			t.Errorf("WalletID(%q, %q) = %q, %v; want %q", network, addr, got, err, want)
		}
		if back, err := ParseWalletID(got); err != nil || back != got {
			t.Errorf("ParseWalletID(%q) = %q, %v", got, back, err)
		}
	}
	ok("eip155:8453", "0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "eip155:0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266")
	ok("eip155", "0Xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", "eip155:0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266")
	ok("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM", "solana:9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM")
	bad := func(network, addr string) {
		t.Helper()
		if got, err := WalletID(network, addr); !errors.Is(err, ErrInvalidWallet) {
			t.Errorf("WalletID(%q, %q) = %q, %v; want ErrInvalidWallet", network, addr, got, err)
		}
	}
	bad("eip155:1", "0x1234")
	bad("eip155:1", "0xg39fd6e51aad88f6f4ce6ab8827279cfffb92266")
	bad("eip155:1", "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM")
	bad("solana", "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266") // '0' and 'x' are not base58
	bad("solana", "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWl")
	bad("solana", "short")
	bad("cosmos:cosmoshub-4", "cosmos1abc")
	bad("", "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266")
	for _, id := range []string{"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM", ""} {
		if _, err := ParseWalletID(id); !errors.Is(err, ErrInvalidWallet) {
			t.Errorf("ParseWalletID(%q) accepted an id without namespace", id)
		}
	}
}

// TestConformanceWalletNamespaces: credit is held per (namespace, address);
// an id without a namespace is refused rather than guessed.
func TestConformanceWalletNamespaces(t *testing.T) {
	conformance(t, func(t *testing.T, s *SQL, _ func() *SQL) {
		ctx := context.Background()
		evm := "eip155:0x00000000000000000000000000000000000000e1"
		sol := "solana:9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"
		if _, err := s.Buy(ctx, Purchase{Wallet: sol, CreditMicroUSD: 5_000_000, RequestID: reqID()}); err != nil {
			t.Fatal(err)
		}
		if bal, err := s.WalletBalance(ctx, sol); err != nil || bal != 5_000_000 {
			t.Fatalf("solana wallet balance %d, %v", bal, err)
		}
		if bal, err := s.WalletBalance(ctx, evm); err != nil || bal != 0 {
			t.Fatalf("evm wallet balance %d, %v; want 0", bal, err)
		}
		if err := s.DebitWallet(ctx, evm, charge(1)); !errors.Is(err, ErrInsufficientCredit) {
			t.Fatalf("evm debit: %v", err)
		}
		for _, bare := range []string{"9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM", "0x00000000000000000000000000000000000000e1", "eip155:9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"} {
			if err := s.DebitWallet(ctx, bare, charge(1)); !errors.Is(err, ErrInvalidWallet) {
				t.Fatalf("debit of %q: %v, want ErrInvalidWallet", bare, err)
			}
			if _, err := s.Buy(ctx, Purchase{Wallet: bare, CreditMicroUSD: 1, RequestID: reqID()}); !errors.Is(err, ErrInvalidWallet) {
				t.Fatalf("purchase by %q: %v, want ErrInvalidWallet", bare, err)
			}
		}
		if bal, _ := s.WalletBalance(ctx, sol); bal != 5_000_000 {
			t.Fatalf("solana wallet balance %d after refused calls", bal)
		}
	})
}

// TestConformanceWalletMigration: wallets stored as bare addresses before
// migration 3 keep their credit under their namespaced ids.
func TestConformanceWalletMigration(t *testing.T) {
	conformance(t, func(t *testing.T, s *SQL, reopen func() *SQL) {
		ctx := context.Background()
		for _, st := range []string{
			`DELETE FROM schema_migrations WHERE version = 3`,
			`INSERT INTO accounts (balance, created_at) VALUES (700, 1)`,
		} {
			if _, err := s.db.ExecContext(ctx, st); err != nil {
				t.Fatal(err)
			}
		}
		var acct int64
		if err := s.db.QueryRowContext(ctx, `SELECT MAX(id) FROM accounts`).Scan(&acct); err != nil {
			t.Fatal(err)
		}
		for _, w := range []struct {
			addr string
			amt  int64
		}{{"0x00000000000000000000000000000000000000f1", 300}, {"9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM", 400}} {
			if _, err := s.db.ExecContext(ctx, s.q(`INSERT INTO wallets (address, account_id, created_at) VALUES (?, ?, 1)`), w.addr, acct); err != nil {
				t.Fatal(err)
			}
			if _, err := s.db.ExecContext(ctx, s.q(`INSERT INTO entries (account_id, wallet, kind, amount, request_id, created_at) VALUES (?, ?, 'credit', ?, ?, 1)`),
				acct, w.addr, w.amt, reqID()); err != nil {
				t.Fatal(err)
			}
		}
		r := reopen()
		for _, id := range []string{"eip155:0x00000000000000000000000000000000000000f1", "solana:9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"} {
			if bal, err := r.WalletBalance(ctx, id); err != nil || bal != 700 {
				t.Fatalf("%s balance %d, %v after migration; want 700", id, bal, err)
			}
		}
		var bare int
		if err := r.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM entries WHERE wallet IS NOT NULL AND wallet NOT LIKE 'eip155:%' AND wallet NOT LIKE 'solana:%'`).Scan(&bare); err != nil || bare != 0 {
			t.Fatalf("%d entries with a bare wallet, %v", bare, err)
		}
		c := charge(100)
		if err := r.DebitWallet(ctx, "solana:9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM", c); err != nil {
			t.Fatal(err)
		}
		if err := r.RefundWallet(ctx, "solana:9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM", c); err != nil {
			t.Fatal(err)
		}
	})
}
