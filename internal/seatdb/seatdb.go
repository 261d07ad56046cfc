// Package seatdb is the PostgreSQL side of a race: a schema created for
// one run holding the sectors table, the seat rows and the sales ledger, and
// the ways a contender can take a seat from it — read-then-write, which
// races, the atomic conditional UPDATE, the fenced write, a seat row locked
// with SKIP LOCKED, and the seat a stock counter handed out.
package seatdb

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hammer-load/hammer/fixtures"
	"github.com/hammer-load/hammer/history"
)

// Sentinel errors for the expected ways a sale does not happen.
var (
	// ErrSoldOut means the sector had no seat left when the contender looked.
	ErrSoldOut = errors.New("sold out")
	// ErrFenced means a newer fencing token had touched the sector.
	ErrFenced = errors.New("fenced out by a newer lock holder")
	// ErrDuplicate means the request id had already bought a seat.
	ErrDuplicate = errors.New("request already served")
)

// SchemaPrefix starts the name of every schema hammer creates.
const SchemaPrefix = "hammer_"

// schemaName matches what SchemaName returns: Create and Drop refuse anything else.
var schemaName = regexp.MustCompile(`^hammer_[a-z0-9_]{1,56}$`)

// SchemaName returns the schema for one run of one results folder, a valid
// PostgreSQL identifier under SchemaPrefix. A name too long for PostgreSQL
// is cut and ends in a hash of the whole name, so two long names never meet.
func SchemaName(runID, run string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
				return r
			case r >= 'A' && r <= 'Z':
				return r + 'a' - 'A'
			}
			return '_'
		}, s)
	}
	name := SchemaPrefix + clean(runID) + "_" + clean(run)
	if len(name) > maxSchemaName {
		sum := fnv.New32a()
		sum.Write([]byte(name))
		name = fmt.Sprintf("%s_%08x", name[:maxSchemaName-9], sum.Sum32())
	}
	return name
}

// maxSchemaName is the longest name SchemaName returns (PostgreSQL cuts
// identifiers at 63 bytes).
const maxSchemaName = 63

// Store is the inventory of one run.
type Store struct {
	pool *pgxpool.Pool
}

// Create makes the run's schema with its tables and one sector row. It fails
// if the schema already exists: hammer never reuses what it did not create.
func Create(ctx context.Context, pgURL, schema string, sector history.Sector) error {
	return create(ctx, pgURL, schema, sector, false)
}

// create makes the run's schema, tables and sector row and, with seatRows,
// one seat row per seat of the sector.
func create(ctx context.Context, pgURL, schema string, sector history.Sector, seatRows bool) error {
	return createSchema(ctx, pgURL, schema, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, fixtures.Schema()); err != nil {
			return fmt.Errorf("create tables: %w", err)
		}
		_, err := tx.Exec(ctx, "INSERT INTO sectors (id, capacity, available) VALUES ($1, $2, $2)",
			sector.ID, sector.Capacity)
		if err != nil {
			return fmt.Errorf("insert sector: %w", err)
		}
		if seatRows {
			return insertSeats(ctx, tx, sector)
		}
		return nil
	})
}

// CreateWith makes the run's schema and runs setup in it, in one
// transaction: the tables of a user's service. It fails if the schema
// already exists, and with an error matching ErrLeftTransaction, the
// schema dropped, if setup ends that transaction or leaves the schema
// (see ExecSetup).
func CreateWith(ctx context.Context, pgURL, schema, setup string) error {
	return createSchema(ctx, pgURL, schema, func(tx pgx.Tx) error {
		if err := ExecSetup(ctx, tx, schema, setup); err != nil {
			return fmt.Errorf("setup SQL: %w", err)
		}
		return nil
	})
}

// createSchema makes schema and fills it with fill, search_path set to
// it, in one transaction.
func createSchema(ctx context.Context, pgURL, schema string, fill func(pgx.Tx) error) error {
	if !schemaName.MatchString(schema) {
		return fmt.Errorf("create schema: %q is not a hammer schema name", schema)
	}
	conn, err := connect(ctx, pgURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
			return fmt.Errorf("create schema %s: %w", schema, err)
		}
		if _, err := tx.Exec(ctx, "SET LOCAL search_path TO "+pgx.Identifier{schema}.Sanitize()); err != nil {
			return fmt.Errorf("set search_path: %w", err)
		}
		return fill(tx)
	})
}

// Drop removes a schema made by Create, with everything in it.
func Drop(ctx context.Context, pgURL, schema string) error {
	if !schemaName.MatchString(schema) {
		return fmt.Errorf("drop schema: %q is not a hammer schema name", schema)
	}
	conn, err := connect(ctx, pgURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
		return fmt.Errorf("drop schema %s: %w", schema, err)
	}
	return nil
}

// Open connects a pool of at most maxConns connections to the run's schema.
// Its connections plan each prepared statement once, generically
// (plan_cache_mode, PostgreSQL 12 and later), as a connection that has
// served for a while does: left to choose, the server plans each
// statement's first five executions on every connection anew, which puts
// the planning of the race's first statements into its start.
func Open(ctx context.Context, pgURL, schema string, maxConns int) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(pgURL)
	if err != nil {
		return nil, fmt.Errorf("postgres url: %w", err)
	}
	cfg.MaxConns = int32(maxConns)
	cfg.MinConns = int32(maxConns)
	cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_generic_plan"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres pool: %w", err)
	}
	return &Store{pool: pool}, nil
}

// The statements the sales send.
const (
	sqlReadSector  = "SELECT capacity, available FROM sectors WHERE id = $1"
	sqlWriteSector = "UPDATE sectors SET available = $2 WHERE id = $1"
	sqlTakeSeat    = "UPDATE sectors SET available = available - 1 WHERE id = $1 AND available > 0 RETURNING capacity - available"
	sqlClaimSector = "UPDATE sectors SET fence = $2 WHERE id = $1 AND fence < $2 RETURNING capacity, available"
	sqlWriteFenced = "UPDATE sectors SET available = $3 WHERE id = $1 AND fence = $2"
	sqlInsertSale  = "INSERT INTO sales (sector_id, seat, request_id, worker, started_at) VALUES ($1, $2, $3, $4, $5)"
)

// Close closes the pool.
func (s *Store) Close() { s.pool.Close() }

// Pool is the store's connection pool, whose search_path is the run's
// schema: for tests that plant their own (broken) statements.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Querier runs a statement: a transaction or the pool.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Request is one contender's purchase.
type Request struct {
	Sector    int
	RequestID string
	Worker    string
	StartedAt time.Time
	// Token is the fencing token of the lock holder (SellFenced only).
	Token int64
	// Left is what the stock counter held after it admitted the request
	// (SellCounted only).
	Left int64
	// MidWrite, if set, is called between the first statement of the sale
	// and the rest (between the read and the write of a read-then-write;
	// inside the transaction after the UPDATE of an atomic sale). An error
	// aborts the sale. Fault injection hooks in here.
	MidWrite func(ctx context.Context, q Querier) error
}

// Result is what a sale saw and did.
type Result struct {
	Seat int
	// Read is the available count a read-then-write saw, at ReadAt; nil
	// for an atomic sale.
	Read   *int
	ReadAt time.Time
}

func (r Request) midWrite(ctx context.Context, q Querier) error {
	if r.MidWrite == nil {
		return nil
	}
	return r.MidWrite(ctx, q)
}

// SellReadWrite reads the sector's available count, then writes back that
// count minus one and inserts a sale for the seat it thinks is next. Two
// contenders that read the same count both sell the same seat: this is the
// race the locks are meant to close.
func (s *Store) SellReadWrite(ctx context.Context, r Request) (res Result, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var capacity, available int
		err := tx.QueryRow(ctx, sqlReadSector, r.Sector).
			Scan(&capacity, &available)
		if err != nil {
			return fmt.Errorf("read sector: %w", err)
		}
		res.Read, res.ReadAt = &available, time.Now()
		if available <= 0 {
			return ErrSoldOut
		}
		if err := r.midWrite(ctx, tx); err != nil {
			return err
		}
		res.Seat = capacity - available + 1
		if _, err := tx.Exec(ctx, sqlWriteSector, r.Sector, available-1); err != nil {
			return fmt.Errorf("write sector: %w", err)
		}
		return insertSale(ctx, tx, r, res.Seat)
	})
	return res, err
}

// SellFenced is a read-then-write guarded by the holder's fencing token.
// The read claims the sector for the token (it fails if a newer token got
// there first); the write, in a second transaction, goes through only while
// the sector still carries that token. A holder that wakes up after its
// lock passed to someone else is rejected instead of selling a seat twice.
func (s *Store) SellFenced(ctx context.Context, r Request) (res Result, err error) {
	var capacity, available int
	err = s.pool.QueryRow(ctx,
		sqlClaimSector,
		r.Sector, r.Token).Scan(&capacity, &available)
	if errors.Is(err, pgx.ErrNoRows) {
		return res, ErrFenced
	}
	if err != nil {
		return res, fmt.Errorf("claim sector: %w", err)
	}
	res.Read, res.ReadAt = &available, time.Now()
	if available <= 0 {
		return res, ErrSoldOut
	}
	if err := r.midWrite(ctx, s.pool); err != nil {
		return res, err
	}
	res.Seat = capacity - available + 1
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, sqlWriteFenced,
			r.Sector, r.Token, available-1)
		if err != nil {
			return fmt.Errorf("write sector: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return ErrFenced
		}
		return insertSale(ctx, tx, r, res.Seat)
	})
	return res, err
}

func insertSale(ctx context.Context, tx pgx.Tx, r Request, seat int) error {
	_, err := tx.Exec(ctx, sqlInsertSale, r.Sector, seat, r.RequestID, r.Worker, r.StartedAt)
	return saleError(err)
}

// Sector reads one sector row, tagged with the run's name. Its available
// count is the row's counter less the seat rows sold: the counter for the
// modes without seat rows, and for those with them (which leave the counter
// alone) what their seat rows say is left.
func (s *Store) Sector(ctx context.Context, run string, id int) (history.Sector, error) {
	sec := history.Sector{Run: run, ID: id}
	err := s.pool.QueryRow(ctx, `SELECT capacity, available -
		(SELECT count(*) FROM seats WHERE sector_id = $1 AND sold_to IS NOT NULL) FROM sectors WHERE id = $1`, id).
		Scan(&sec.Capacity, &sec.Available)
	if err != nil {
		return sec, fmt.Errorf("read sector %d: %w", id, err)
	}
	return sec, nil
}

func connect(ctx context.Context, pgURL string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(pgURL)
	if err != nil {
		return nil, fmt.Errorf("postgres url: %w", err)
	}
	cfg.ConnectTimeout = 5 * time.Second
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect postgres: %w", err)
	}
	return conn, nil
}
