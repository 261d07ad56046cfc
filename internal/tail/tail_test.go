package tail

import "testing"

func TestBuffer(t *testing.T) {
	tests := []struct {
		name   string
		max    int
		writes []string
		want   string
	}{
		{"nothing written", 16, nil, ""},
		{"last line", 64, []string{"one\n", "two\n\n"}, "two"},
		{"cut to max", 8, []string{"a long first line\nend"}, "end"},
		{"line split across writes", 64, []string{"listen: add", "ress in use\n"}, "listen: address in use"},
		{"scheduler trace passed over", 256, []string{"config: bad\n", "SCHED 2147483647ms: gomaxprocs=1 idleprocs=1 threads=4\n"}, "config: bad"},
		{"only a scheduler trace", 256, []string{"SCHED 0ms: gomaxprocs=2 idleprocs=2\n"}, ""},
		{"a line that only starts like one", 64, []string{"SCHED went wrong\n"}, "SCHED went wrong"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New(tt.max)
			for _, w := range tt.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if got := b.Last(); got != tt.want {
				t.Errorf("Last() = %q, want %q", got, tt.want)
			}
		})
	}
}
