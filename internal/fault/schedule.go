package fault

import (
	"hash/fnv"
	"math/rand/v2"
	"slices"

	"github.com/hammer-load/hammer/scenarios"
)

// Schedule picks, from the seed, which lock holders fault f strikes:
// holder numbers (1-based, in the order holders are numbered) in the first
// half of the sale (of the seats, or of the contenders when they are
// fewer), so that seats are still left and holders still come when the
// fault hits. Faults that strike no chosen holder get none.
func Schedule(f scenarios.Fault, seed uint64, run string, seats, contenders int) []int64 {
	count := f.Strikes()
	if count == 0 {
		return nil
	}
	h := fnv.New64a()
	h.Write([]byte(run))
	rng := rand.New(rand.NewPCG(seed, h.Sum64()))
	hi := max(min(seats, contenders)/2, 2*count+2)
	var out []int64
	for len(out) < count {
		n := int64(2 + rng.IntN(hi-1))
		// Slow release also strikes the next holder: keep them apart.
		if !slices.Contains(out, n) && !slices.Contains(out, n-1) && !slices.Contains(out, n+1) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}
