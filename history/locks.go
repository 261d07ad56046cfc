package history

// LockClaim is one claim on a user's service's lock as Redis's MONITOR
// stream showed it from outside the service: the SET … NX tries of one
// token (a client retries with the token it drew), whether and when one
// took the lock, and how the holding ended. Times are Unix nanoseconds on
// the coordinator's clock (Redis's clock moved by the offset measured when
// the watch began). hammer's own strategies record their lock on their
// attempts instead; a claim is tied to a replica, not to a request.
type LockClaim struct {
	Run string `json:"run"`
	// Replica is the index of the replica whose Redis client sent the
	// tries; -1 when the client could not be traced to one (urls:, or a
	// connection gone before it was mapped).
	Replica int `json:"replica"`
	// Token is the value the tries set, cut to 64 bytes.
	Token string `json:"token"`
	// First and Last are the first and the last try; Tries counts them.
	First int64 `json:"first_ns"`
	Last  int64 `json:"last_ns"`
	Tries int   `json:"tries"`
	// Acquired is when a try took the lock; zero when none did (the
	// client gave up, or the race ended while it waited).
	Acquired int64 `json:"acquired_ns,omitempty"`
	// Released is when the lock was deleted while this claim held it (its
	// release, or someone else's DEL); Expired is when its TTL ran out
	// before that. Both zero while it still held the lock when the watch
	// ended.
	Released int64 `json:"released_ns,omitempty"`
	Expired  int64 `json:"expired_ns,omitempty"`
}

// Waited reports whether the claim had to wait: a try failed before one
// took the lock, or none took it.
func (c LockClaim) Waited() bool { return c.Acquired == 0 || c.Tries > 1 }
