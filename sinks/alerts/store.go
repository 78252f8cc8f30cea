// Package alerts is the alert outbox: paid webhook subscriptions, the
// events of mi.events.v1 kept 14 days, and one delivery per matching
// subscription and event with its state. The Dispatcher sends the due
// deliveries as signed HTTPS POSTs. The tables (prefix alert_) live in the
// ledger database, SQLite or PostgreSQL; the contract is in docs/alerts.md.
package alerts

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/marketintel/mi/sinks/sqldb"
)

// Dialects of the database the store runs on.
const (
	DialectSQLite   = sqldb.DialectSQLite
	DialectPostgres = sqldb.DialectPostgres
)

// Pack terms (spec §3.2) and retention.
const (
	PackDeliveries = 200
	PackLifetime   = 7 * 24 * time.Hour
	// EventRetention is how long events and their deliveries are kept.
	EventRetention = 14 * 24 * time.Hour
	// SuspendAfter is the number of failures in a row that suspends a
	// subscription.
	SuspendAfter = 50
	// MaxAttempts is the number of attempts of one delivery: the first and
	// two retries.
	MaxAttempts = 3
)

// RetryDelays are the waits before the second and third attempts.
var RetryDelays = [MaxAttempts - 1]time.Duration{30 * time.Second, 5 * time.Minute}

// Subscription states. A stored subscription is active, suspended or
// cancelled; expired and exhausted are derived when read.
const (
	StatusActive    = "active"
	StatusSuspended = "suspended"
	StatusCancelled = "cancelled"
	StatusExpired   = "expired"
	StatusExhausted = "exhausted"
)

// Delivery states.
const (
	// DeliveryPending waits for its next attempt.
	DeliveryPending = "pending"
	// DeliveryDelivered was answered 2xx; it used one delivery of the pack.
	DeliveryDelivered = "delivered"
	// DeliveryFailed failed all attempts; it did not use up the pack.
	DeliveryFailed = "failed"
	// DeliveryFetched was never delivered and was handed out by the events
	// route instead; it used one delivery of the pack.
	DeliveryFetched = "fetched"
	// DeliveryDropped was still pending when the subscription ended
	// (cancelled, expired or exhausted).
	DeliveryDropped = "dropped"
)

// TestEvent is the event name of a test delivery.
const TestEvent = "test"

// Sentinel errors.
var (
	// ErrNotFound: no subscription with that id and secret. A wrong secret
	// gives the same error as an unknown id.
	ErrNotFound = errors.New("no such subscription")
	// ErrNotResumable: the subscription is cancelled, expired or exhausted.
	ErrNotResumable = errors.New("subscription cannot be resumed")
	// ErrEnded: the subscription is cancelled, expired or exhausted.
	ErrEnded = errors.New("subscription has ended")
)

// Token is a watched token of token_risk_change.
type Token struct {
	Address string `json:"address"`
	Chain   string `json:"chain"`
}

// Filters narrow the events a subscription receives (spec §6). Empty
// means no narrowing.
type Filters struct {
	Symbols        []string `json:"symbols,omitempty"`
	Categories     []string `json:"categories,omitempty"`
	MinMateriality int      `json:"minMateriality,omitempty"`
	Tokens         []Token  `json:"tokens,omitempty"`
	Forms          []string `json:"forms,omitempty"`
}

// NewSubscription is what a paid create asks for; it is validated by the
// query tier.
type NewSubscription struct {
	URL     string
	Events  []string
	Filters Filters
	// Payer identifies who paid (wallet or "credits"); informational.
	Payer string
}

// Subscription is a stored subscription, without its secret.
type Subscription struct {
	ID                  string
	URL                 string
	Events              []string
	Filters             Filters
	Status              string
	DeliveriesLeft      int
	ExpiresAt           time.Time
	CreatedAt           time.Time
	ConsecutiveFailures int
	Payer               string
}

// Event is a stored event.
type Event struct {
	ID         string
	Event      string
	Symbol     string
	OccurredAt time.Time
	Data       json.RawMessage
}

// Delivery is one event for one subscription.
type Delivery struct {
	ID             string
	SubscriptionID string
	Event          Event
	State          string
	Attempts       int
	NextAttemptAt  time.Time
	LastAttemptAt  time.Time
	LastStatus     int
	LastError      string
	DeliveredAt    time.Time
}

// Store is the outbox on a database shared with the ledger. It is safe for
// concurrent use, also by several processes on one database.
type Store struct {
	db      *sql.DB
	dialect string
	aead    cipher.AEAD
	now     func() time.Time

	rebind *sqldb.Rebinder
	wmu    sync.Mutex // serializes SQLite write transactions (see tx)
}

// Config configures a Store.
type Config struct {
	// Key is the 32-byte server key that encrypts subscription secrets
	// (AES-256-GCM). It must stay the same for the life of the database:
	// the dispatcher needs each secret to sign deliveries.
	Key []byte
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Open returns the store on db (dialect DialectSQLite or DialectPostgres)
// after applying its pending migrations. SQLite databases should be opened
// with busy_timeout, WAL and _txlock=immediate, as the ledger does.
func Open(ctx context.Context, db *sql.DB, dialect string, cfg Config) (*Store, error) {
	if dialect != DialectSQLite && dialect != DialectPostgres {
		return nil, fmt.Errorf("cannot open alert store: unknown dialect %q (accepted: sqlite, postgres)", dialect)
	}
	if len(cfg.Key) != 32 {
		return nil, fmt.Errorf("cannot open alert store: the server key has %d bytes, want 32", len(cfg.Key))
	}
	blk, err := aes.NewCipher(cfg.Key)
	if err != nil {
		return nil, fmt.Errorf("cannot open alert store: %w", err)
	}
	aead, err := cipher.NewGCM(blk)
	if err != nil {
		return nil, fmt.Errorf("cannot open alert store: %w", err)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Store{db: db, dialect: dialect, aead: aead, now: cfg.Now, rebind: sqldb.NewRebinder(dialect)}
	if err := s.migrate(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Now is the store's clock.
func (s *Store) Now() time.Time { return s.now() }

// migrations are applied in order; each runs once per database. Times are
// Unix nanoseconds.
var migrations = []string{
	`CREATE TABLE IF NOT EXISTS alert_subscriptions (
		id TEXT PRIMARY KEY,
		secret_hash TEXT NOT NULL,
		secret_enc TEXT NOT NULL,
		url TEXT NOT NULL,
		events TEXT NOT NULL,
		filters TEXT NOT NULL,
		status TEXT NOT NULL,
		deliveries_left INTEGER NOT NULL,
		expires_at BIGINT NOT NULL,
		created_at BIGINT NOT NULL,
		consecutive_failures INTEGER NOT NULL DEFAULT 0,
		payer TEXT NOT NULL DEFAULT ''
	);
	CREATE TABLE IF NOT EXISTS alert_events (
		id TEXT PRIMARY KEY,
		event TEXT NOT NULL,
		symbol TEXT NOT NULL,
		occurred_at BIGINT NOT NULL,
		data TEXT NOT NULL,
		stored_at BIGINT NOT NULL
	);
	CREATE INDEX IF NOT EXISTS alert_events_stored ON alert_events (stored_at);
	CREATE TABLE IF NOT EXISTS alert_deliveries (
		id TEXT PRIMARY KEY,
		subscription_id TEXT NOT NULL,
		event_id TEXT NOT NULL,
		state TEXT NOT NULL,
		free INTEGER NOT NULL DEFAULT 0,
		reserved INTEGER NOT NULL DEFAULT 0,
		attempts INTEGER NOT NULL DEFAULT 0,
		next_attempt_at BIGINT NOT NULL,
		lease_until BIGINT NOT NULL DEFAULT 0,
		last_attempt_at BIGINT NOT NULL DEFAULT 0,
		last_status INTEGER NOT NULL DEFAULT 0,
		last_error TEXT NOT NULL DEFAULT '',
		delivered_at BIGINT NOT NULL DEFAULT 0,
		created_at BIGINT NOT NULL,
		UNIQUE (subscription_id, event_id)
	);
	CREATE INDEX IF NOT EXISTS alert_deliveries_due ON alert_deliveries (state, next_attempt_at, id);
	CREATE INDEX IF NOT EXISTS alert_deliveries_sub ON alert_deliveries (subscription_id, created_at)`,
}

// migrationLockID is the PostgreSQL advisory lock that serialises
// instances (API replicas, alert dispatchers) migrating the outbox of one
// database at start-up.
const migrationLockID = 0x6d695f616c7274 // "mi_alrt"

// lockMigrations takes the migration lock for the rest of tx (PostgreSQL;
// SQLite's write lock already serialises).
func (s *Store) lockMigrations(ctx context.Context, tx *sql.Tx) error {
	if s.dialect != DialectPostgres {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLockID)); err != nil {
		return fmt.Errorf("cannot lock alert migrations: %w", err)
	}
	return nil
}

func (s *Store) migrate(ctx context.Context) error {
	// Under the lock too: concurrent CREATE TABLE IF NOT EXISTS races on
	// PostgreSQL's catalog.
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.lockMigrations(ctx, tx); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS alert_schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`)
		return err
	})
	if err != nil {
		return fmt.Errorf("cannot create alert migrations table: %w", err)
	}
	for i, m := range migrations {
		v := i + 1
		err := s.tx(ctx, func(tx *sql.Tx) error {
			if err := s.lockMigrations(ctx, tx); err != nil {
				return err
			}
			var n int
			if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM alert_schema_migrations WHERE version = ?`), v).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			for _, stmt := range strings.Split(m, ";") {
				if strings.TrimSpace(stmt) == "" {
					continue
				}
				if _, err := tx.ExecContext(ctx, stmt); err != nil {
					return err
				}
			}
			_, err := tx.ExecContext(ctx, s.q(`INSERT INTO alert_schema_migrations (version, applied_at) VALUES (?, ?) ON CONFLICT DO NOTHING`), v, s.now().UnixNano())
			return err
		})
		if err != nil {
			return fmt.Errorf("cannot apply alert migration %d: %w", v, err)
		}
	}
	return nil
}

// q rewrites ? placeholders to $n for PostgreSQL.
func (s *Store) q(query string) string {
	return s.rebind.Q(query)
}

// tx runs f in a transaction. On SQLite, which has one writer at a time,
// the transactions of this process take turns on a mutex rather than in
// SQLite's busy handler, which sleeps.
func (s *Store) tx(ctx context.Context, f func(*sql.Tx) error) error {
	if s.dialect == DialectSQLite {
		s.wmu.Lock()
		defer s.wmu.Unlock()
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

func randomID(prefix string, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("BUG: crypto/rand failed: " + err.Error())
	}
	return prefix + hex.EncodeToString(b)
}

func hashSecret(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}

func (s *Store) seal(secret, id string) string {
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		panic("BUG: crypto/rand failed: " + err.Error())
	}
	return base64.StdEncoding.EncodeToString(s.aead.Seal(nonce, nonce, []byte(secret), []byte(id)))
}

func (s *Store) open(enc, id string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil || len(b) < s.aead.NonceSize() {
		return "", fmt.Errorf("cannot decrypt the secret of %s: malformed", id)
	}
	p, err := s.aead.Open(nil, b[:s.aead.NonceSize()], b[s.aead.NonceSize():], []byte(id))
	if err != nil {
		return "", fmt.Errorf("cannot decrypt the secret of %s (server key changed?): %w", id, err)
	}
	return string(p), nil
}

// Create stores a new subscription with a full pack and returns it with its
// secret, which is not retrievable later.
func (s *Store) Create(ctx context.Context, n NewSubscription) (Subscription, string, error) {
	now := s.now()
	sub := Subscription{
		ID: randomID("sub_", 12), URL: n.URL, Events: slices.Clone(n.Events), Filters: n.Filters,
		Status: StatusActive, DeliveriesLeft: PackDeliveries, ExpiresAt: now.Add(PackLifetime).UTC(),
		CreatedAt: now.UTC(), Payer: n.Payer,
	}
	secret := randomID("whsec_", 24)
	ev, _ := json.Marshal(sub.Events)
	fl, _ := json.Marshal(sub.Filters)
	_, err := s.db.ExecContext(ctx, s.q(`INSERT INTO alert_subscriptions
		(id, secret_hash, secret_enc, url, events, filters, status, deliveries_left, expires_at, created_at, consecutive_failures, payer)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)`),
		sub.ID, hashSecret(secret), s.seal(secret, sub.ID), sub.URL, string(ev), string(fl), sub.Status,
		sub.DeliveriesLeft, sub.ExpiresAt.UnixNano(), sub.CreatedAt.UnixNano(), sub.Payer)
	if err != nil {
		return Subscription{}, "", fmt.Errorf("cannot store subscription: %w", err)
	}
	return sub, secret, nil
}

const subColumns = `id, url, events, filters, status, deliveries_left, expires_at, created_at, consecutive_failures, payer, secret_hash, secret_enc`

type rowScanner interface{ Scan(...any) error }

func (s *Store) scanSub(r rowScanner) (Subscription, string, string, error) {
	var sub Subscription
	var ev, fl, hash, enc string
	var exp, created int64
	if err := r.Scan(&sub.ID, &sub.URL, &ev, &fl, &sub.Status, &sub.DeliveriesLeft, &exp, &created, &sub.ConsecutiveFailures, &sub.Payer, &hash, &enc); err != nil {
		return sub, "", "", err
	}
	_ = json.Unmarshal([]byte(ev), &sub.Events)
	_ = json.Unmarshal([]byte(fl), &sub.Filters)
	sub.ExpiresAt, sub.CreatedAt = time.Unix(0, exp).UTC(), time.Unix(0, created).UTC()
	sub.Status = effectiveStatus(sub, s.now())
	return sub, hash, enc, nil
}

// effectiveStatus derives expired and exhausted from a stored status.
func effectiveStatus(sub Subscription, now time.Time) string {
	if sub.Status == StatusCancelled {
		return StatusCancelled
	}
	if !now.Before(sub.ExpiresAt) {
		return StatusExpired
	}
	if sub.DeliveriesLeft <= 0 {
		return StatusExhausted
	}
	return sub.Status
}

// Get returns the subscription id if secret is its secret; ErrNotFound
// otherwise, the same for an unknown id and a wrong secret. The comparison
// is constant-time.
func (s *Store) Get(ctx context.Context, id, secret string) (Subscription, error) {
	sub, hash, _, err := s.scanSub(s.db.QueryRowContext(ctx, s.q(`SELECT `+subColumns+` FROM alert_subscriptions WHERE id = ?`), id))
	want := hashSecret(secret)
	if errors.Is(err, sql.ErrNoRows) {
		hmac.Equal([]byte(want), []byte(want)) // same work as a found id
		return Subscription{}, ErrNotFound
	}
	if err != nil {
		return Subscription{}, fmt.Errorf("cannot read subscription: %w", err)
	}
	if !hmac.Equal([]byte(hash), []byte(want)) {
		return Subscription{}, ErrNotFound
	}
	return sub, nil
}

// subscription reads a subscription and its plain secret, without a
// secret check (dispatcher use).
func (s *Store) subscription(ctx context.Context, id string) (Subscription, string, error) {
	sub, _, enc, err := s.scanSub(s.db.QueryRowContext(ctx, s.q(`SELECT `+subColumns+` FROM alert_subscriptions WHERE id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return Subscription{}, "", ErrNotFound
	}
	if err != nil {
		return Subscription{}, "", fmt.Errorf("cannot read subscription: %w", err)
	}
	secret, err := s.open(enc, sub.ID)
	return sub, secret, err
}

// Cancel cancels the subscription; its pending deliveries are dropped.
func (s *Store) Cancel(ctx context.Context, id, secret string) (Subscription, error) {
	sub, err := s.Get(ctx, id, secret)
	if err != nil {
		return sub, err
	}
	err = s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE alert_subscriptions SET status = ? WHERE id = ?`), StatusCancelled, id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.q(`UPDATE alert_deliveries SET state = ? WHERE subscription_id = ? AND state = ?`), DeliveryDropped, id, DeliveryPending)
		return err
	})
	if err != nil {
		return sub, fmt.Errorf("cannot cancel subscription: %w", err)
	}
	sub.Status = StatusCancelled
	return sub, nil
}

// Resume makes a suspended subscription active again with its failure
// count reset; its pending deliveries become due now. Resuming an active
// subscription changes nothing. ErrNotResumable when it has ended.
func (s *Store) Resume(ctx context.Context, id, secret string) (Subscription, error) {
	sub, err := s.Get(ctx, id, secret)
	if err != nil {
		return sub, err
	}
	switch sub.Status {
	case StatusActive:
		return sub, nil
	case StatusSuspended:
	default:
		return sub, ErrNotResumable
	}
	now := s.now().UnixNano()
	err = s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE alert_subscriptions SET status = ?, consecutive_failures = 0 WHERE id = ? AND status = ?`), StatusActive, id, StatusSuspended); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.q(`UPDATE alert_deliveries SET next_attempt_at = ? WHERE subscription_id = ? AND state = ?`), now, id, DeliveryPending)
		return err
	})
	if err != nil {
		return sub, fmt.Errorf("cannot resume subscription: %w", err)
	}
	sub.Status, sub.ConsecutiveFailures = StatusActive, 0
	return sub, nil
}

// Match reports whether e is for sub: its event is one of sub's, and it
// passes sub's filters. Symbols narrow every event that has a symbol, and
// news by any of its data field symbols; categories and minMateriality
// narrow news (data fields category and materiality), forms narrow sec_filing (data field form) and tokens narrow
// token_risk_change (data fields token and chain; symbols do not narrow it).
func Match(sub Subscription, e Event) bool {
	if !slices.Contains(sub.Events, e.Event) {
		return false
	}
	f := sub.Filters
	var d struct {
		Category    string   `json:"category"`
		Materiality int      `json:"materiality"`
		Form        string   `json:"form"`
		Token       string   `json:"token"`
		Chain       string   `json:"chain"`
		Symbols     []string `json:"symbols"`
	}
	_ = json.Unmarshal(e.Data, &d)
	if e.Event == eventNews {
		// A news item names any number of symbols (Symbol is the first):
		// it is for a subscription watching any of them, and an item
		// naming none is not for a subscription that lists symbols.
		if len(f.Symbols) > 0 && !slices.ContainsFunc(f.Symbols, func(s string) bool { return s == e.Symbol || slices.Contains(d.Symbols, s) }) {
			return false
		}
	} else if e.Event != eventTokenRiskChange && len(f.Symbols) > 0 && e.Symbol != "" && !slices.Contains(f.Symbols, e.Symbol) {
		// token_risk_change is narrowed by tokens alone: its symbol is
		// "<chain>:<token>", never one of a subscription's symbols.
		return false
	}
	switch e.Event {
	case eventNews:
		if len(f.Categories) > 0 && !slices.Contains(f.Categories, d.Category) {
			return false
		}
		minM := f.MinMateriality
		if minM == 0 {
			minM = DefaultMinMateriality
		}
		return d.Materiality >= minM
	case eventSECFiling:
		return len(f.Forms) == 0 || slices.ContainsFunc(f.Forms, func(x string) bool { return strings.EqualFold(x, d.Form) })
	case eventTokenRiskChange:
		return slices.ContainsFunc(f.Tokens, func(t Token) bool { return t.Chain == d.Chain && sameToken(t.Chain, t.Address, d.Token) })
	}
	return true
}

// sameToken compares two token addresses of chain: EVM addresses in any
// letter case (checksummed or not), Solana's base58 exactly.
func sameToken(chain, a, b string) bool {
	if chain == "solana" {
		return a == b
	}
	return strings.EqualFold(a, b)
}

// WatchedTokens returns the tokens the risk watch checks (token_risk_change,
// docs/token.md): the distinct tokens of every subscription to
// token_risk_change that can still receive events — active or suspended
// (a suspended subscription's events are kept), not expired, not
// exhausted, not cancelled — in the order first subscribed. EVM addresses
// are compared in any letter case.
func (s *Store) WatchedTokens(ctx context.Context) ([]Token, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+subColumns+` FROM alert_subscriptions WHERE status <> ? AND expires_at > ? AND deliveries_left > 0 ORDER BY created_at, id`),
		StatusCancelled, s.now().UnixNano())
	if err != nil {
		return nil, fmt.Errorf("cannot read the watched tokens: %w", err)
	}
	defer rows.Close()
	var out []Token
	for rows.Next() {
		sub, _, _, err := s.scanSub(rows)
		if err != nil {
			return nil, fmt.Errorf("cannot read the watched tokens: %w", err)
		}
		if !slices.Contains(sub.Events, eventTokenRiskChange) {
			continue
		}
		for _, t := range sub.Filters.Tokens {
			if !slices.ContainsFunc(out, func(o Token) bool { return o.Chain == t.Chain && sameToken(t.Chain, o.Address, t.Address) }) {
				out = append(out, t)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cannot read the watched tokens: %w", err)
	}
	return out, nil
}

// Event names whose filters Match reads (the names are defined by the
// detectors in package operators; sinks do not import operators).
const (
	eventNews            = "news"
	eventSECFiling       = "sec_filing"
	eventTokenRiskChange = "token_risk_change"
)

// DefaultMinMateriality is the news materiality threshold when a
// subscription sets none (spec §6).
const DefaultMinMateriality = 4

// deliveryID is the id of the delivery of event to sub; it is derived so
// that storing the same event twice yields the same delivery.
func deliveryID(subID, eventID string) string {
	h := sha256.Sum256([]byte(subID + "|" + eventID))
	return "dlv_" + hex.EncodeToString(h[:12])
}

// AddEvent stores e (once per id) and a pending delivery of it for every
// live subscription it matches; suspended subscriptions get theirs too, sent
// after a resume. Storing the same event again changes nothing. It returns
// the number of deliveries created.
func (s *Store) AddEvent(ctx context.Context, e Event) (int, error) {
	if e.ID == "" || e.Event == "" {
		return 0, fmt.Errorf("cannot store event: id and event are required")
	}
	if len(e.Data) == 0 {
		e.Data = json.RawMessage("{}")
	}
	now := s.now()
	created := 0
	err := s.tx(ctx, func(tx *sql.Tx) error {
		created = 0
		res, err := tx.ExecContext(ctx, s.q(`INSERT INTO alert_events (id, event, symbol, occurred_at, data, stored_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`),
			e.ID, e.Event, e.Symbol, e.OccurredAt.UnixNano(), string(e.Data), now.UnixNano())
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil // stored before, with its deliveries
		}
		rows, err := tx.QueryContext(ctx, s.q(`SELECT `+subColumns+` FROM alert_subscriptions WHERE status <> ? AND expires_at > ? AND deliveries_left > 0`),
			StatusCancelled, now.UnixNano())
		if err != nil {
			return err
		}
		var subs []Subscription
		for rows.Next() {
			sub, _, _, err := s.scanSub(rows)
			if err != nil {
				rows.Close()
				return err
			}
			if Match(sub, e) {
				subs = append(subs, sub)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, sub := range subs {
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO alert_deliveries (id, subscription_id, event_id, state, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`),
				deliveryID(sub.ID, e.ID), sub.ID, e.ID, DeliveryPending, now.UnixNano(), now.UnixNano()); err != nil {
				return err
			}
			created++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("cannot store event %s: %w", e.ID, err)
	}
	return created, nil
}

// AddTestDelivery stores a test event for sub and its free delivery (it
// does not use up the pack and does not count as a failure) and returns it.
func (s *Store) AddTestDelivery(ctx context.Context, sub Subscription) (Delivery, error) {
	now := s.now()
	data, _ := json.Marshal(map[string]string{"message": "test delivery from the Market Intelligence Service"})
	e := Event{ID: randomID("evt_test_", 12), Event: TestEvent, Symbol: "", OccurredAt: now.UTC(), Data: data}
	d := Delivery{ID: deliveryID(sub.ID, e.ID), SubscriptionID: sub.ID, Event: e, State: DeliveryPending, NextAttemptAt: now.UTC()}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO alert_events (id, event, symbol, occurred_at, data, stored_at) VALUES (?, ?, ?, ?, ?, ?)`),
			e.ID, e.Event, e.Symbol, e.OccurredAt.UnixNano(), string(e.Data), now.UnixNano()); err != nil {
			return err
		}
		// The lease keeps the dispatcher loop off it while the caller sends it.
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO alert_deliveries (id, subscription_id, event_id, state, free, next_attempt_at, lease_until, created_at) VALUES (?, ?, ?, ?, 1, ?, ?, ?)`),
			d.ID, sub.ID, e.ID, DeliveryPending, now.UnixNano(), now.Add(time.Minute).UnixNano(), now.UnixNano())
		return err
	})
	if err != nil {
		return d, fmt.Errorf("cannot store test delivery: %w", err)
	}
	return d, nil
}

// EventsSince returns the events of sub stored since since (at most the
// last 14 days), oldest first, with their delivery state, up to limit. The
// deliveries among them that were never delivered and are still pending are
// handed out: their state becomes fetched and each uses one delivery of the
// pack, as long as the pack lasts (spec §4.8).
func (s *Store) EventsSince(ctx context.Context, sub Subscription, since time.Time, limit int) ([]Delivery, error) {
	now := s.now()
	if min := now.Add(-EventRetention); since.Before(min) {
		since = min
	}
	var out []Delivery
	err := s.tx(ctx, func(tx *sql.Tx) error {
		out = out[:0]
		rows, err := tx.QueryContext(ctx, s.q(`SELECT d.id, d.state, d.attempts, d.next_attempt_at, d.last_attempt_at, d.last_status, d.last_error, d.delivered_at,
			e.id, e.event, e.symbol, e.occurred_at, e.data
			FROM alert_deliveries d JOIN alert_events e ON e.id = d.event_id
			WHERE d.subscription_id = ? AND d.free = 0 AND e.occurred_at >= ?
			ORDER BY e.occurred_at, e.id LIMIT ?`), sub.ID, since.UnixNano(), limit)
		if err != nil {
			return err
		}
		for rows.Next() {
			var d Delivery
			var next, last, dlv, occ int64
			var data string
			if err := rows.Scan(&d.ID, &d.State, &d.Attempts, &next, &last, &d.LastStatus, &d.LastError, &dlv, &d.Event.ID, &d.Event.Event, &d.Event.Symbol, &occ, &data); err != nil {
				rows.Close()
				return err
			}
			d.SubscriptionID = sub.ID
			d.NextAttemptAt, d.LastAttemptAt, d.DeliveredAt = unixOrZero(next), unixOrZero(last), unixOrZero(dlv)
			d.Event.OccurredAt = time.Unix(0, occ).UTC()
			d.Event.Data = json.RawMessage(data)
			out = append(out, d)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if sub.Status == StatusCancelled || sub.Status == StatusExpired {
			return nil
		}
		for i := range out {
			if out[i].State != DeliveryPending {
				continue
			}
			res, err := tx.ExecContext(ctx, s.q(`UPDATE alert_subscriptions SET deliveries_left = deliveries_left - 1 WHERE id = ? AND deliveries_left > 0`), sub.ID)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				break // the pack is used up
			}
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE alert_deliveries SET state = ? WHERE id = ? AND state = ?`), DeliveryFetched, out[i].ID, DeliveryPending); err != nil {
				return err
			}
			out[i].State = DeliveryFetched
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cannot read events: %w", err)
	}
	return out, nil
}

func unixOrZero(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

// Prune deletes events stored more than 14 days ago and their deliveries,
// and returns the number of events deleted.
func (s *Store) Prune(ctx context.Context) (int64, error) {
	cut := s.now().Add(-EventRetention).UnixNano()
	var n int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM alert_deliveries WHERE event_id IN (SELECT id FROM alert_events WHERE stored_at < ?)`), cut); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, s.q(`DELETE FROM alert_events WHERE stored_at < ?`), cut)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("cannot prune alert events: %w", err)
	}
	return n, nil
}
