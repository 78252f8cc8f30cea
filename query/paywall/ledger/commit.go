package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Group commit. The balance changes of paid calls (debits, refunds and key
// top-ups) do not each run their own transaction: the committer takes every
// operation queued while it was busy, applies them in arrival order in one
// transaction, commits once and then answers each caller with its own
// result. A caller is answered only after the commit, so a debit
// acknowledged to the caller is as durable as a transaction of its own was;
// the commit's WAL flush is shared by the batch.
//
// The contract of a batch:
//   - each operation is conditional on the state left by the operations
//     before it (a debit still never overdraws) and has its own result;
//   - an operation whose result is an expected refusal (a sentinel such as
//     ErrInsufficientCredit) changes nothing, by construction of its SQL;
//   - an operation that fails with a database error is answered with that
//     error and the transaction is rolled back and run again without it, so
//     it does not affect the others (on PostgreSQL only for an error the
//     server reported, which aborts the transaction for certain);
//   - when the transaction cannot begin or commit, or the connection fails,
//     every caller of the batch gets the error and nothing of the batch is
//     applied — except that a connection lost during a PostgreSQL commit
//     leaves the outcome unknown, as for any single transaction (on
//     PostgreSQL a deadlock or serialization failure is first retried, see
//     maxBatchRetries).
//
// There is no timer: when no other operation is queued, an operation runs at
// once, so an idle ledger adds no latency. A batch holds at most maxBatch
// operations.

const (
	// maxBatch bounds the operations of one transaction.
	maxBatch = 128
	// maxBatchRetries is how often a batch is run again after a PostgreSQL
	// deadlock or serialization failure (transactions of other replicas
	// locking the same accounts in another order).
	maxBatchRetries = 3
	// batchTimeout bounds one batch transaction on PostgreSQL.
	batchTimeout = 30 * time.Second
)

// ErrClosed: the ledger was closed before the operation ran; nothing was
// applied.
var ErrClosed = errors.New("ledger closed")

// change is one batched operation in the form of the ledger's dialect:
// apply on SQLite, pg on PostgreSQL.
type change struct {
	apply applyFn
	pg    *pgStmt
}

// applyFn applies one operation in the batch transaction. outcome is nil or
// a sentinel refusal; a refusal guarantees that the operation changed
// nothing. err is a database error, after which the transaction is rolled
// back.
type applyFn func(ctx context.Context, tx *sql.Tx) (outcome, err error)

// Operation states: queued, then taken by the committer or withdrawn by a
// caller whose context ended first.
const (
	opQueued int32 = iota
	opTaken
	opWithdrawn
)

type op struct {
	change
	state atomic.Int32
	done  chan error // receives the result once
}

// committer runs the batches of one SQL ledger. It has no goroutine of its
// own: the caller that queues an operation while no batch is running becomes
// the leader and runs batches itself, so an operation on an idle ledger runs
// in its caller's goroutine without a hand-off. Once the leader's own
// operation is answered, it passes the lead to a new goroutine when more
// operations are queued and returns.
type committer struct {
	s *SQL

	mu     sync.Mutex
	idle   sync.Cond // signalled when busy becomes false
	queue  []*op
	busy   bool // a leader is running batches
	closed bool

	// Test hooks (zero in production): beforeBatch runs with the size of a
	// batch before its transaction begins; commitHook is a statement run in
	// the transaction after the last operation.
	beforeBatch func(n int)
	commitHook  string
}

func newCommitter(s *SQL) *committer {
	c := &committer{s: s}
	c.idle.L = &c.mu
	return c
}

// submit queues ch and waits for its result. When ctx ends before a leader
// took the operation, it is withdrawn and ctx's error returned; once taken,
// submit waits for the commit, so a caller never sees an error for an
// operation that was applied.
func (c *committer) submit(ctx context.Context, ch change) error {
	o := &op{change: ch, done: make(chan error, 1)}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	c.queue = append(c.queue, o)
	lead := !c.busy
	c.busy = true
	c.mu.Unlock()
	if lead {
		c.lead(o)
	}
	select {
	case err := <-o.done:
		return err
	case <-ctx.Done():
		if o.state.CompareAndSwap(opQueued, opWithdrawn) {
			return fmt.Errorf("cannot wait for the ledger: %w", ctx.Err())
		}
		return <-o.done
	}
}

// lead runs batches until the queue is empty, or, for a caller's own
// operation own, until own is answered and then hands the rest to a new
// goroutine.
func (c *committer) lead(own *op) {
	for {
		batch, ok := c.take(maxBatch)
		if !ok {
			return
		}
		c.runBatch(batch)
		if own != nil && own.state.Load() == opTaken {
			// own was in a batch before or in this one: answered.
			c.mu.Lock()
			more := len(c.queue) > 0 || c.closed
			if !more {
				c.busy = false
				c.idle.Broadcast()
			}
			c.mu.Unlock()
			if more {
				go c.lead(nil)
			}
			return
		}
	}
}

// take removes up to n operations from the queue and marks them taken,
// dropping withdrawn ones. ok is false when there is nothing to run: the
// lead ends (busy is cleared), and on a closed committer every queued
// operation is answered with ErrClosed.
func (c *committer) take(n int) (batch []*op, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		for _, o := range c.queue {
			if o.state.CompareAndSwap(opQueued, opTaken) {
				o.done <- ErrClosed
			}
		}
		c.queue = nil
	}
	for len(batch) == 0 && len(c.queue) > 0 {
		i := 0
		for ; i < len(c.queue) && len(batch) < n; i++ {
			if o := c.queue[i]; o.state.CompareAndSwap(opQueued, opTaken) {
				batch = append(batch, o)
			}
		}
		c.queue = c.queue[i:]
	}
	if len(c.queue) == 0 {
		c.queue = nil // let the backing array go
	}
	if len(batch) == 0 {
		c.busy = false
		c.idle.Broadcast()
		return nil, false
	}
	return batch, true
}

// queued is the number of operations waiting (for tests).
func (c *committer) queued() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.queue)
}

// isClosed reports whether close has begun (for tests).
func (c *committer) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// close waits for the batch being run; operations still queued get
// ErrClosed, and later ones too.
func (c *committer) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for c.busy {
		c.idle.Wait()
	}
	for _, o := range c.queue {
		if o.state.CompareAndSwap(opQueued, opTaken) {
			o.done <- ErrClosed
		}
	}
	c.queue = nil
}

// runBatch applies batch in one transaction and answers every operation.
func (c *committer) runBatch(batch []*op) {
	defer func() {
		// A panic (a broken invariant) in the leader's goroutine may be
		// recovered by an HTTP server: answer the batch (on SQLite its
		// transaction was rolled back; on PostgreSQL database/sql closes
		// the connection, and the outcome is unknown if the panic came
		// after the pipeline was sent) and hand the lead on, so the
		// committer is not left busy forever.
		if r := recover(); r != nil {
			for _, o := range batch {
				o.done <- fmt.Errorf("cannot apply ledger operation: batch panicked: %v", r)
			}
			go c.lead(nil)
			panic(r)
		}
	}()
	retries := 0
	for len(batch) > 0 {
		outcomes, failed, err := c.attempt(batch)
		switch {
		case err == nil:
			for i, o := range batch {
				o.done <- outcomes[i]
			}
			return
		case retryable(err) && retries < maxBatchRetries:
			retries++
		case failed >= 0 && c.isolatable(err):
			// The operation's own failure: answer it, run the rest again.
			batch[failed].done <- err
			batch = append(batch[:failed:failed], batch[failed+1:]...)
		default:
			for _, o := range batch {
				o.done <- err
			}
			return
		}
	}
}

// attempt runs batch in one transaction. On error, failed is the index of
// the operation that failed, or -1 when the transaction itself failed; the
// transaction is rolled back either way.
func (c *committer) attempt(batch []*op) (outcomes []error, failed int, err error) {
	if c.beforeBatch != nil {
		c.beforeBatch(len(batch))
	}
	if c.s.dialect == DialectPostgres {
		ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
		defer cancel()
		return c.attemptPG(ctx, batch)
	}
	// SQLite is a local file: its waits are bounded by the busy timeout,
	// and a context that cannot end spares database/sql a goroutine per
	// transaction.
	ctx := context.Background()
	defer c.s.preparePending(ctx)
	tx, err := c.s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, -1, fmt.Errorf("cannot begin ledger transaction: %w", err)
	}
	defer tx.Rollback() // after Commit a no-op (sql.ErrTxDone)
	outcomes = make([]error, len(batch))
	for i, o := range batch {
		out, err := o.apply(ctx, tx)
		if err != nil {
			return nil, i, err
		}
		outcomes[i] = out
	}
	if c.commitHook != "" {
		if _, err := tx.ExecContext(ctx, c.commitHook); err != nil {
			return nil, -1, err
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, -1, fmt.Errorf("cannot commit ledger transaction: %w", err)
	}
	return outcomes, -1, nil
}

// isolatable reports whether err, the error of one operation, certainly
// rolled back the batch's transaction, so the batch may run again without
// that operation. On SQLite the transaction was never committed. On
// PostgreSQL the whole pipeline, Sync included, was sent: only an error the
// server reported for the statement guarantees that the implicit
// transaction aborted; a lost connection may have committed it.
func (c *committer) isolatable(err error) bool {
	if c.s.dialect != DialectPostgres {
		return true
	}
	var pe *pgconn.PgError
	return errors.As(err, &pe)
}

// retryable reports a PostgreSQL transaction rollback (class 40: deadlock
// detected, serialization failure): the transaction changed nothing and may
// run again.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && len(pe.Code) == 5 && pe.Code[:2] == "40"
}
