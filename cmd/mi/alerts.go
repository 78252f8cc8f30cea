package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite"

	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/sinks/alerts"
)

// alertKeyEnv holds the 32-byte server key (64 hex digits) that encrypts
// alert subscription secrets; without it the key is kept in
// <data-dir>/alerts.key, created on first use.
const alertKeyEnv = "MI_ALERTS_KEY"

// alertServerKey returns the server key of the alert outbox.
func alertServerKey(dataDir string) ([]byte, error) {
	if v := os.Getenv(alertKeyEnv); v != "" {
		k, err := hex.DecodeString(strings.TrimSpace(v))
		if err != nil || len(k) != 32 {
			return nil, fmt.Errorf("cannot use %s: want 64 hex digits (32 bytes)", alertKeyEnv)
		}
		return k, nil
	}
	path := filepath.Join(dataDir, "alerts.key")
	b, err := os.ReadFile(path)
	if err == nil {
		k, err := hex.DecodeString(strings.TrimSpace(string(b)))
		if err != nil || len(k) != 32 {
			return nil, fmt.Errorf("cannot use the alert server key %s: want 64 hex digits", path)
		}
		return k, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("cannot read the alert server key: %w", err)
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("cannot create the alert server key: %w", err)
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create data directory: %w", err)
	}
	if err := os.WriteFile(path, []byte(hex.EncodeToString(k)+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("cannot write the alert server key: %w", err)
	}
	return k, nil
}

// openAlerts opens the alert outbox on db (dialect "sqlite" or "postgres",
// normally the ledger's database) and returns its dispatcher. With a nil
// db it opens the SQLite ledger file <data-dir>/ledger.db itself, with the
// pragmas the ledger uses.
func openAlerts(ctx context.Context, db *sql.DB, dialect, dataDir string, log *slog.Logger) (*alerts.Dispatcher, error) {
	if db == nil {
		if err := os.MkdirAll(dataDir, 0o755); err != nil {
			return nil, fmt.Errorf("cannot create data directory: %w", err)
		}
		dsn := "file:" + filepath.Join(dataDir, "ledger.db") + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)" +
			"&_pragma=synchronous(NORMAL)&_txlock=immediate"
		var err error
		if db, err = sql.Open("sqlite", dsn); err != nil {
			return nil, fmt.Errorf("cannot open the alert outbox: %w", err)
		}
		dialect = alerts.DialectSQLite
	}
	key, err := alertServerKey(dataDir)
	if err != nil {
		return nil, err
	}
	st, err := alerts.Open(ctx, db, dialect, alerts.Config{Key: key})
	if err != nil {
		return nil, err
	}
	return alerts.NewDispatcher(st, alerts.DispatcherConfig{Logger: log}), nil
}

// startAlertStages runs the outbox sink and the dispatcher until ctx ends;
// a stage that fails is logged. The events themselves come from the
// operators (the process role), with the documents they are detected in.
func startAlertStages(ctx context.Context, brokers []string, d *alerts.Dispatcher, log *slog.Logger) {
	stage := func(name string, f func() error) {
		go func() {
			if err := f(); err != nil && ctx.Err() == nil {
				log.Error("alert stage stopped", "stage", name, "err", err)
			}
		}()
	}
	stage("outbox", func() error { return pipeline.SinkEvents(ctx, brokers, d.Store(), log) })
	stage("dispatch", func() error { return d.Run(ctx) })
}
