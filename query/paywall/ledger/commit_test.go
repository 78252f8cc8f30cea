package ledger

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// gate holds the committer in its first batch so that the operations queued
// meanwhile form the next batch, and records the size of every batch
// attempt.
type gate struct {
	s       *SQL
	mu      sync.Mutex
	sizes   []int
	blocked chan struct{}
	release chan struct{}
}

// newGate installs the gate and runs hold (any batched operation) as the
// first batch, which waits in the committer until open.
func newGate(t *testing.T, s *SQL, hold func() error) (*gate, <-chan error) {
	t.Helper()
	g := &gate{s: s, blocked: make(chan struct{}), release: make(chan struct{})}
	first := true
	s.commit.beforeBatch = func(n int) {
		g.mu.Lock()
		g.sizes = append(g.sizes, n)
		f := first
		first = false
		g.mu.Unlock()
		if f {
			close(g.blocked)
			<-g.release
		}
	}
	held := make(chan error, 1)
	go func() { held <- hold() }()
	<-g.blocked
	return g, held
}

// queue runs op in a goroutine and returns once it is queued, so operations
// queue in the order of the calls.
func (g *gate) queue(t *testing.T, op func() error) <-chan error {
	t.Helper()
	n := g.s.commit.queued()
	res := make(chan error, 1)
	go func() { res <- op() }()
	for deadline := time.Now().Add(10 * time.Second); g.s.commit.queued() == n; {
		if time.Now().After(deadline) {
			t.Fatal("operation never queued")
		}
		time.Sleep(time.Millisecond)
	}
	return res
}

func (g *gate) open() { close(g.release) }

func (g *gate) batchSizes() []int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]int(nil), g.sizes...)
}

// addFailTrigger makes appending an entry with route "boom" fail with a
// database error.
func addFailTrigger(t *testing.T, s *SQL) {
	t.Helper()
	stmts := []string{`CREATE TRIGGER boom BEFORE INSERT ON entries WHEN NEW.route = 'boom'
		BEGIN SELECT RAISE(ABORT, 'boom'); END`}
	if s.Dialect() == DialectPostgres {
		stmts = []string{`CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN IF NEW.route = 'boom' THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$`,
			`CREATE TRIGGER boom BEFORE INSERT ON entries FOR EACH ROW EXECUTE FUNCTION boom()`}
	}
	for _, st := range stmts {
		if _, err := s.DB().Exec(st); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConformanceBatchIsolation: operations coalesced into one batch apply
// in arrival order, each conditional on the ones before it, each with its
// own result; a refusal and a database error of one operation leave the
// others applied.
func TestConformanceBatchIsolation(t *testing.T) {
	conformance(t, func(t *testing.T, s *SQL, _ func() *SQL) {
		ctx := context.Background()
		addFailTrigger(t, s)
		key, err := s.CreateKey(ctx, 10_000, "test", reqID())
		if err != nil {
			t.Fatal(err)
		}
		other, err := s.CreateKey(ctx, 1_000, "test", reqID())
		if err != nil {
			t.Fatal(err)
		}
		w := "eip155:0xdddd000000000000000000000000000000000004"
		if err := s.CreditWallet(ctx, w, 3_000, "test", reqID()); err != nil {
			t.Fatal(err)
		}
		g, held := newGate(t, s, func() error { return s.DebitKey(ctx, other, charge(1_000)) })

		d1, d2, d3 := charge(4_000), charge(4_000), charge(4_000)
		unknown, _ := NewKey()
		boom := charge(100)
		boom.Route = "boom"
		wd := charge(2_500)
		grantID := reqID()
		type want struct {
			name string
			res  <-chan error
			is   error // nil: success
		}
		steps := []want{
			{"debit 1", g.queue(t, func() error { return s.DebitKey(ctx, key, d1) }), nil},
			{"debit 1 again", g.queue(t, func() error { return s.DebitKey(ctx, key, d1) }), ErrDuplicateRequest},
			{"debit 2", g.queue(t, func() error { return s.DebitKey(ctx, key, d2) }), nil},
			{"debit 3 beyond the balance left by 1 and 2", g.queue(t, func() error { return s.DebitKey(ctx, key, d3) }), ErrInsufficientCredit},
			{"debit that fails in the database", g.queue(t, func() error { return s.DebitKey(ctx, key, boom) }), errBoom},
			{"refund of debit 1 in the same batch", g.queue(t, func() error { return s.RefundKey(ctx, key, d1) }), nil},
			{"refund of debit 1 again", g.queue(t, func() error { return s.RefundKey(ctx, key, d1) }), ErrAlreadyRefunded},
			{"refund of debit 3 (refused)", g.queue(t, func() error { return s.RefundKey(ctx, key, d3) }), ErrNoSuchDebit},
			{"debit of an unknown key", g.queue(t, func() error { return s.DebitKey(ctx, unknown, charge(1)) }), ErrUnknownKey},
			{"wallet debit", g.queue(t, func() error { return s.DebitWallet(ctx, w, wd) }), nil},
			{"wallet debit beyond its balance", g.queue(t, func() error { return s.DebitWallet(ctx, w, charge(501)) }), ErrInsufficientCredit},
			{"wallet refund", g.queue(t, func() error { return s.RefundWallet(ctx, w, wd) }), nil},
			{"top-up", g.queue(t, func() error { return s.TopUpKey(ctx, key, 7, "top up", grantID) }), nil},
			{"top-up again", g.queue(t, func() error { return s.TopUpKey(ctx, key, 7, "top up", grantID) }), ErrDuplicateRequest},
		}
		g.open()
		if err := <-held; err != nil {
			t.Fatal(err)
		}
		for _, st := range steps {
			err := <-st.res
			switch {
			case st.is == errBoom:
				if err == nil || !strings.Contains(err.Error(), "boom") {
					t.Errorf("%s: %v, want the database error", st.name, err)
				}
			case !errors.Is(err, st.is) || (st.is == nil && err != nil):
				t.Errorf("%s: %v, want %v", st.name, err, st.is)
			}
		}
		if sizes := g.batchSizes(); len(sizes) < 2 || sizes[1] != len(steps) {
			t.Fatalf("batch attempts %v, want the %d queued operations in one batch after the first", sizes, len(steps))
		}
		mustBalance(t, s, key, 10_000-4_000-4_000+4_000+7)
		mustBalance(t, s, other, 0)
		if bal, err := s.WalletBalance(ctx, w); err != nil || bal != 3_000 {
			t.Fatalf("wallet balance %d, %v; want 3000", bal, err)
		}
	})
}

// errBoom marks the expectation of the trigger's database error.
var errBoom = errors.New("boom")

// TestConformanceBatchCommitFails: when the batch's commit fails, every
// caller of the batch gets an error, nothing of it is applied, and the
// ledger goes on working.
func TestConformanceBatchCommitFails(t *testing.T) {
	conformance(t, func(t *testing.T, s *SQL, _ func() *SQL) {
		ctx := context.Background()
		// A deferred foreign key is checked at commit: this row fails it.
		if _, err := s.DB().Exec(`CREATE TABLE commit_guard (account_id BIGINT
			REFERENCES accounts(id) DEFERRABLE INITIALLY DEFERRED)`); err != nil {
			t.Fatal(err)
		}
		key, err := s.CreateKey(ctx, 10_000, "test", reqID())
		if err != nil {
			t.Fatal(err)
		}
		w := "eip155:0xeeee000000000000000000000000000000000005"
		if err := s.CreditWallet(ctx, w, 3_000, "test", reqID()); err != nil {
			t.Fatal(err)
		}
		g, held := newGate(t, s, func() error { return s.DebitKey(ctx, key, charge(1_000)) })
		s.commit.commitHook = `INSERT INTO commit_guard (account_id) VALUES (-1)`
		var res []<-chan error
		for range 5 {
			res = append(res, g.queue(t, func() error { return s.DebitKey(ctx, key, charge(1_000)) }))
		}
		res = append(res, g.queue(t, func() error { return s.DebitWallet(ctx, w, charge(1_000)) }))
		res = append(res, g.queue(t, func() error { return s.DebitKey(ctx, key, charge(1_000_000)) })) // a refusal
		g.open()
		// The held batch reads the hook too: it was set while the batch
		// waited before its transaction.
		if err := <-held; err == nil {
			t.Fatal("the held batch committed despite the failing commit")
		}
		for i, r := range res {
			err := <-r
			if err == nil || errors.Is(err, ErrInsufficientCredit) {
				t.Errorf("operation %d: %v, want the commit error", i, err)
			}
		}
		mustBalance(t, s, key, 10_000)
		if bal, _ := s.WalletBalance(ctx, w); bal != 3_000 {
			t.Fatalf("wallet balance %d, want 3000", bal)
		}
		if err := s.Verify(ctx); err != nil {
			t.Fatal(err)
		}
		// The connection is usable again: the next batch commits.
		s.commit.commitHook = ""
		if err := s.DebitKey(ctx, key, charge(1_000)); err != nil {
			t.Fatal(err)
		}
		mustBalance(t, s, key, 9_000)
	})
}

// TestConformanceBatchWithdraw: a caller whose context ends while its
// operation waits in the queue gets the context's error, and the operation
// is never applied; Close answers the operations still queued with
// ErrClosed.
func TestConformanceBatchWithdraw(t *testing.T) {
	conformance(t, func(t *testing.T, s *SQL, reopen func() *SQL) {
		ctx := context.Background()
		key, err := s.CreateKey(ctx, 10_000, "test", reqID())
		if err != nil {
			t.Fatal(err)
		}
		g, held := newGate(t, s, func() error { return s.DebitKey(ctx, key, charge(1_000)) })
		cctx, cancel := context.WithCancel(ctx)
		withdrawn := g.queue(t, func() error { return s.DebitKey(cctx, key, charge(2_000)) })
		cancel()
		if err := <-withdrawn; !errors.Is(err, context.Canceled) {
			t.Fatalf("withdrawn debit: %v, want context.Canceled", err)
		}
		g.open()
		if err := <-held; err != nil {
			t.Fatal(err)
		}
		mustBalance(t, s, key, 9_000)

		// Close with an operation queued behind a running batch.
		g, held = newGate(t, s, func() error { return s.DebitKey(ctx, key, charge(1_000)) })
		queued := g.queue(t, func() error { return s.DebitKey(ctx, key, charge(1_000)) })
		closed := make(chan error, 1)
		go func() { closed <- s.Close() }()
		for !s.commit.isClosed() {
			time.Sleep(time.Millisecond)
		}
		g.open()
		if err := <-held; err != nil {
			t.Fatalf("batch running at Close: %v, want committed", err)
		}
		if err := <-queued; !errors.Is(err, ErrClosed) {
			t.Fatalf("operation queued at Close: %v, want ErrClosed", err)
		}
		if err := <-closed; err != nil {
			t.Fatal(err)
		}
		if err := s.DebitKey(ctx, key, charge(1)); !errors.Is(err, ErrClosed) {
			t.Fatalf("debit after Close: %v, want ErrClosed", err)
		}
		r := reopen()
		mustBalance(t, r, key, 8_000)
		*s = SQL{db: r.db, dialect: r.dialect} // conformance verifies s
	})
}

// TestConformanceConcurrentReplicas: replicas with their own committers on
// one database (each batch a transaction competing for the same account)
// still never overdraw, and a request id debited on two replicas at once is
// recorded once.
func TestConformanceConcurrentReplicas(t *testing.T) {
	conformance(t, func(t *testing.T, s *SQL, reopen func() *SQL) {
		ctx := context.Background()
		const price = 5_000
		replicas := []*SQL{s, reopen(), reopen(), reopen()}
		key, err := s.CreateKey(ctx, 50*price, "test", reqID())
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		counts := map[string]int{}
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range 200 {
			// Every charge is sent twice, to two replicas.
			c := charge(price)
			for _, r := range []*SQL{replicas[i%4], replicas[(i+1)%4]} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					err := r.DebitKey(ctx, key, c)
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err == nil:
						counts["ok"]++
					case errors.Is(err, ErrInsufficientCredit):
						counts["short"]++
					case errors.Is(err, ErrDuplicateRequest):
						counts["dup"]++
					default:
						t.Error(err)
					}
				}()
			}
		}
		close(start)
		wg.Wait()
		if counts["ok"] != 50 || counts["ok"]+counts["short"]+counts["dup"] != 400 {
			t.Fatalf("outcomes %v; want 50 successes of 400 attempts", counts)
		}
		mustBalance(t, s, key, 0)
		var n int
		if err := s.DB().QueryRow(`SELECT COUNT(*) FROM entries WHERE kind = 'debit'`).Scan(&n); err != nil || n != 50 {
			t.Fatalf("%d debit entries, %v; want 50", n, err)
		}
	})
}

// TestConformanceBatchPanic: a panic in a batch (a broken invariant) reaches
// the leader's caller, applies nothing of that batch, and leaves the
// committer working for the operations queued behind it.
func TestConformanceBatchPanic(t *testing.T) {
	conformance(t, func(t *testing.T, s *SQL, _ func() *SQL) {
		ctx := context.Background()
		key, err := s.CreateKey(ctx, 10_000, "test", reqID())
		if err != nil {
			t.Fatal(err)
		}
		// The first batch waits until the next operation is queued, then
		// panics.
		g := &gate{s: s, blocked: make(chan struct{}), release: make(chan struct{})}
		first := true
		s.commit.beforeBatch = func(n int) {
			if first {
				first = false
				close(g.blocked)
				<-g.release
				panic("BUG: test")
			}
		}
		held := make(chan error, 1)
		go func() {
			held <- func() (err error) {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("panicked: %v", r)
					}
				}()
				return s.DebitKey(ctx, key, charge(1_000))
			}()
		}()
		<-g.blocked
		queued := g.queue(t, func() error { return s.DebitKey(ctx, key, charge(2_000)) })
		g.open()
		if err := <-held; err == nil || !strings.Contains(err.Error(), "panicked: BUG: test") {
			t.Fatalf("leader: %v, want the panic", err)
		}
		if err := <-queued; err != nil {
			t.Fatalf("operation queued behind the panicking batch: %v", err)
		}
		mustBalance(t, s, key, 8_000)
	})
}

// TestPostgresBatchDeadlockRetried: a batch that deadlocks with another
// transaction (another replica locking the same accounts in the other order)
// is run again, and its callers get their results, not the deadlock.
func TestPostgresBatchDeadlockRetried(t *testing.T) {
	s, _ := postgresBackend(t)
	ctx := context.Background()
	var keys [3]string
	var accts [3]int64
	for i := range keys {
		k, err := s.CreateKey(ctx, 10_000, "test", reqID())
		if err != nil {
			t.Fatal(err)
		}
		a, err := s.KeyAccount(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		keys[i], accts[i] = k, a.ID
	}
	// The other transaction holds account 1.
	other, err := s.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Rollback()
	if _, err := other.Exec(`SELECT id FROM accounts WHERE id = $1 FOR UPDATE`, accts[1]); err != nil {
		t.Fatal(err)
	}
	g, held := newGate(t, s, func() error { return s.DebitKey(ctx, keys[2], charge(1_000)) })
	r0 := g.queue(t, func() error { return s.DebitKey(ctx, keys[0], charge(1_000)) })
	r1 := g.queue(t, func() error { return s.DebitKey(ctx, keys[1], charge(1_000)) })
	g.open()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	// The batch locked account 0 and waits for account 1.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var n int
		if err := s.DB().QueryRow(`SELECT COUNT(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
			WHERE NOT l.granted AND a.datname = current_database()`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the batch never waited for the other transaction")
		}
	}
	// Now the other transaction wants account 0: a deadlock. PostgreSQL
	// aborts the transaction whose deadlock check runs first, normally the
	// batch, which waited first.
	_, otherErr := other.Exec(`SELECT id FROM accounts WHERE id = $1 FOR UPDATE`, accts[0])
	other.Rollback()
	for i, r := range []<-chan error{r0, r1} {
		if err := <-r; err != nil {
			t.Errorf("debit %d: %v, want success after the retry", i, err)
		}
	}
	if otherErr == nil {
		if sizes := g.batchSizes(); len(sizes) < 3 || sizes[1] != 2 || sizes[2] != 2 {
			t.Fatalf("batch attempts %v, want the batch of 2 run again", sizes)
		}
	} else if !retryable(otherErr) {
		t.Fatalf("other transaction: %v", otherErr)
	} else {
		t.Logf("PostgreSQL aborted the other transaction, not the batch: %v", otherErr)
	}
	for _, k := range keys {
		mustBalance(t, s, k, 9_000)
	}
	if err := s.Verify(ctx); err != nil {
		t.Fatal(err)
	}
}
