package target

import (
	"reflect"
	"testing"
)

// TestReachedFrom: a worker whose agent reached the coordinator on
// another host's address sends to the relays there; a worker on the
// coordinator's host, or a request without relays, keeps the replicas'
// own URLs.
func TestReachedFrom(t *testing.T) {
	local := []string{"http://127.0.0.1:4001", "http://127.0.0.1:4002"}
	req := Request{Replicas: local, Relays: []int{5001, 5002}}
	tests := []struct {
		name, coordinator string
		req               Request
		want              []string
	}{
		{"agent elsewhere", "10.0.0.5", req, []string{"http://10.0.0.5:5001", "http://10.0.0.5:5002"}},
		{"agent elsewhere over IPv6", "fd00::5", req, []string{"http://[fd00::5]:5001", "http://[fd00::5]:5002"}},
		{"agent on this host", "127.0.0.1", req, local},
		{"local worker", "", req, local},
		{"no relays (urls:)", "10.0.0.5", Request{Replicas: local}, local},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.req.reachedFrom(tt.coordinator).Replicas; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("replicas %v, want %v", got, tt.want)
			}
		})
	}
	if !reflect.DeepEqual(req.Replicas, local) {
		t.Errorf("reachedFrom changed the request it was called on: %v", req.Replicas)
	}
}
