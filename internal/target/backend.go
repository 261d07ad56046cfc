package target

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/driver"
	"github.com/hammer-load/hammer/internal/fault"
	"github.com/hammer-load/hammer/internal/replicas"
	"github.com/hammer-load/hammer/internal/seatdb"
)

// Kind names the contender of a user's service in a worker binary's
// worker.Kit.
const Kind = "http"

// Backend is one variant of a user's service as the driver.Backend of a
// race: its tables made by the file's setup SQL in the race's schema, its
// replicas started with the race's servers, its own ledger read back with
// the file's truth SQL. It is also the Holders the process faults strike.
type Backend struct {
	file     *File
	variant  Variant
	replicas int
	seats    int

	set *replicas.Set // nil for replicas already running (urls:)
	// startLogs is what the replicas printed when they did not all get
	// ready (set is then nil), for the results folder.
	startLogs []history.ReplicaLog
	relay     relaying // how agents on other hosts reach set
	watchURL  string   // the Redis the replicas reach, bypassing a proxy
	pgURL     string   // PostgreSQL as the coordinator reaches it
	// redisPort and pgPort are the servers' ports as the replicas reach
	// them: the far end of their connections.
	redisPort, pgPort int
	activity          *seatdb.Activity // opened by the first Sale, with looks
	looks             *redis.Client
	lockKey           string
	restarts          sync.WaitGroup
	schema            *schemaCheck // nil when it could not look

	mu      sync.Mutex
	trouble []string // restarts that failed
}

var (
	_ driver.Backend = (*Backend)(nil)
	_ driver.Holders = (*Backend)(nil)
	_ driver.Logs    = (*Backend)(nil)
	_ driver.Stager  = (*Backend)(nil)
)

// NewBackend is variant v of f, started as n replicas (when f says how),
// for races of seats seats.
func NewBackend(f *File, v Variant, n, seats int) *Backend {
	return &Backend{file: f, variant: v, replicas: n, seats: seats}
}

// vals are the placeholders of the race's SQL, lock key and request.
func (b *Backend) vals(prefix string) map[string]string { return raceVals(b.seats, prefix) }

// raceVals are the placeholders of a race of seats seats whose Redis keys
// start with prefix, for its SQL, lock key and request.
func raceVals(seats int, prefix string) map[string]string {
	return map[string]string{VarSector: "1", VarSeats: strconv.Itoa(seats), VarKeyPrefix: prefix}
}

// Create makes the race's schema and runs the file's setup SQL in it.
func (b *Backend) Create(ctx context.Context, r driver.BackendRace) error {
	b.pgURL = r.PGURL
	if err := seatdb.CreateWith(ctx, r.PGURL, r.Schema, Expand(b.file.Setup, b.vals(r.KeyPrefix))); err != nil {
		return fmt.Errorf("%s: %w", b.file.Path, err)
	}
	return nil
}

// Start starts the replicas, each told the servers, its schema, its key
// prefix and its port, and returns the request the workers send, its ids
// tagged with the race's IDPrefix.
func (b *Backend) Start(ctx context.Context, r driver.BackendRace, servers fault.Servers) (json.RawMessage, error) {
	b.watchURL = servers.WatchRedisURL
	b.redisPort, b.pgPort = urlPort(servers.RedisURL), urlPort(servers.PGURL)
	urls := b.file.URLs
	b.schema = noteTables(ctx, r.PGURL, r.Schema)
	if s := b.file.Service; s != nil {
		env := map[string]string{
			VarRedisURL: servers.RedisURL, VarPGURL: servers.PGURL, VarPGSchema: r.Schema,
			VarKeyPrefix: r.KeyPrefix, VarLockTTLMS: strconv.FormatInt(r.LockTTL.Milliseconds(), 10),
		}
		set, err := replicas.Start(ctx, replicas.Spec{
			Dir: b.file.Dir, Command: s.Command, Ready: s.Ready, ReadyTimeout: s.ReadyTimeout, PortEnv: s.PortEnv,
			Env: func(i, port int) []string { return b.env(env, i, port) },
		}, b.replicas)
		var failed *replicas.StartError
		if errors.As(err, &failed) {
			b.startLogs = failed.Logs
		}
		if errors.Is(err, replicas.ErrService) {
			return nil, fmt.Errorf("%s: %w", b.file.Path, serviceError{err})
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.file.Path, err)
		}
		b.set, urls = set, set.URLs()
	}
	req := b.file.Resolve(urls, b.vals(r.KeyPrefix))
	req.IDPrefix = IDPrefix(r.KeyPrefix)
	if b.set != nil {
		relays, err := b.startRelays(urls)
		if err != nil {
			b.set.Stop()
			return nil, fmt.Errorf("%s: %w", b.file.Path, err)
		}
		req.Relays = relays
	}
	return json.Marshal(req)
}

// serviceError is a replica's start that the service, as the target file
// sets it up, kept from getting ready (replicas.ErrService): it matches
// driver.ErrBackendSetUp too, so that no race waits for it again.
type serviceError struct{ error }

func (e serviceError) Is(target error) bool { return target == driver.ErrBackendSetUp }
func (e serviceError) Unwrap() error        { return e.error }

// env is the environment of replica i on port: the service's, then the
// variant's, placeholders expanded, hammer's PGOPTIONS unless they set
// it (replicaEnv), and the port.
func (b *Backend) env(base map[string]string, i, port int) []string {
	vals := maps.Clone(base)
	vals[VarPort], vals[VarReplica] = strconv.Itoa(port), strconv.Itoa(i)
	merged := maps.Clone(b.file.Service.Env)
	if merged == nil {
		merged = map[string]string{}
	}
	maps.Copy(merged, b.variant.Env)
	merged = replicaEnv(merged, base[VarPGSchema])
	out := []string{b.file.Service.PortEnv + "=" + strconv.Itoa(port)}
	for k, v := range merged {
		out = append(out, k+"="+Expand(v, vals))
	}
	return out
}

// LockKey is the file's lock key under the race's prefix.
func (b *Backend) LockKey(prefix string) string { return Expand(b.file.LockKey, b.vals(prefix)) }

// ReadBack reads the service's ledger and counter with the file's SQL; the
// ledger's request ids lose the race's tag (IDPrefix), before the read
// asks whether they are the race's own too. An empty ledger while tables
// of the race's names outside hammer's schemas gained rows is reported
// unread, naming them: the service did not use the race's schema.
func (b *Backend) ReadBack(ctx context.Context, r driver.BackendRace, wait time.Duration) seatdb.ReadBack {
	vals := b.vals(r.KeyPrefix)
	ledger, sector := Expand(b.file.Truth.Ledger, vals), Expand(b.file.Truth.Sector, vals)
	prefix, bound := IDPrefix(r.KeyPrefix), r.Ledger
	if ours := bound.Ours; ours != nil {
		bound.Ours = func(id string) bool { return ours(strings.TrimPrefix(id, prefix)) }
	}
	rb := seatdb.Retry(ctx, wait, func(ctx context.Context) seatdb.ReadBack {
		return seatdb.ReadTruth(ctx, r.PGURL, r.Schema, r.Run, 1, seatdb.Truth{Ledger: ledger, Sector: sector, Bound: bound})
	})
	untag(rb.Sales, prefix)
	if len(rb.Sales) == 0 && rb.LedgerErr == nil && b.schema != nil {
		if msg := b.schema.elsewhere(ctx, r.PGURL, b.file.schemaVars(b.variant)); msg != "" {
			rb.LedgerErr = errors.New(msg)
		}
	}
	return rb
}

// Stop stops the replicas, once the ones a crash killed are back, and
// says which died without hammer killing them or did not come back.
func (b *Backend) Stop() []string {
	if b.set == nil {
		return nil
	}
	b.restarts.Wait()
	b.stopRelays()
	b.set.Stop()
	if b.activity != nil {
		b.activity.Close()
		b.looks.Close()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return append(b.set.Deaths(), b.trouble...)
}

// Starting says what Start starts: "3 replicas of ticketd" ("" for
// replicas hammer did not start).
func (b *Backend) Starting() string {
	if b.file.Service == nil {
		return ""
	}
	what := "replicas"
	if b.replicas == 1 {
		what = "replica"
	}
	return fmt.Sprintf("%d %s of %s", b.replicas, what, b.file.ServiceName())
}

// Logs is what each replica printed, once Stop stopped them; nil for
// replicas hammer did not start.
func (b *Backend) Logs() []history.ReplicaLog {
	if b.set == nil {
		return b.startLogs // of replicas that never got ready, if any
	}
	return b.set.Logs()
}

// Name names replica proc.
func (b *Backend) Name(proc int) string { return fmt.Sprintf("replica %d", proc) }

// Signal sends sig to replica proc's process group.
func (b *Backend) Signal(proc int, sig syscall.Signal) (int, error) {
	if b.set == nil || proc < 0 || proc >= b.set.Len() {
		return 0, fmt.Errorf("the lock's holder could not be traced to a replica hammer started")
	}
	return b.set.Signal(proc, sig)
}

// Crashed marks replica proc as killed on purpose and starts it again
// once it is gone, as a supervisor would.
func (b *Backend) Crashed(proc int) {
	if b.set == nil || proc < 0 || proc >= b.set.Len() {
		return
	}
	b.set.Killed(proc)
	b.restarts.Add(1)
	go func() {
		defer b.restarts.Done()
		if err := b.set.Restart(context.Background(), proc); err != nil {
			b.mu.Lock()
			b.trouble = append(b.trouble, fmt.Sprintf("replica %d did not come back after the crash: %v", proc, err))
			b.mu.Unlock()
		}
	}()
}

// Resume does nothing: a replica is not held at a point of an attempt.
func (b *Backend) Resume(fault.Target) {}

// WatchHolders reports each new holder of the service's lock, as the
// replica whose Redis client took it, and once the watch ends every claim
// on the lock it saw.
func (b *Backend) WatchHolders(ctx context.Context, lockKey string, held func(n int64, proc int, token string)) (func() ([]history.LockClaim, error), error) {
	opt, err := redis.ParseURL(b.watchURL)
	if err != nil {
		return nil, err
	}
	owner := func(int) (int, bool) { return 0, false }
	var rescan func()
	if b.set != nil {
		// The replicas' sockets are mapped now; connections their pools
		// open during the race are mapped in the background, as holders
		// on them are seen: the watch never waits for a scan, so that it
		// keeps up with the lock. A holder on a connection not mapped yet
		// is not traced, and the fault catches the replica by its write.
		b.set.Scan()
		owner = func(port int) (int, bool) { return b.set.Known(replicas.Conn{Local: port, Remote: b.redisPort}) }
		rescan = b.set.Scan
	}
	b.lockKey = lockKey
	w := &holderWatch{opt: opt, lockKey: lockKey, owner: owner, rescan: rescan}
	return w.start(ctx, held)
}

// urlPort is the port of a server URL, 0 when it names none.
func urlPort(raw string) int {
	u, err := url.Parse(raw)
	if err != nil {
		return 0
	}
	p, _ := strconv.Atoi(u.Port())
	return p
}
