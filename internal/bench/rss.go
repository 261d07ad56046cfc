package bench

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// rssEvery is how often the process tree is sampled. VmHWM is a high-water
// mark, so a sample only misses what a process grew in its last interval.
const rssEvery = 20 * time.Millisecond

// treeRSS samples the peak resident set (VmHWM) of a process and all its
// descendants while they run, keeping each process's highest value.
type treeRSS struct {
	root int
	mu   sync.Mutex
	peak map[int]int64 // pid → VmHWM in bytes
	stop chan struct{}
	done chan struct{}
}

// watchTree starts sampling the tree under root until Stop.
func watchTree(root int) *treeRSS {
	t := &treeRSS{root: root, peak: map[int]int64{}, stop: make(chan struct{}), done: make(chan struct{})}
	go t.loop()
	return t
}

func (t *treeRSS) loop() {
	defer close(t.done)
	tick := time.NewTicker(rssEvery)
	defer tick.Stop()
	for {
		t.sample()
		select {
		case <-t.stop:
			return
		case <-tick.C:
		}
	}
}

// sample reads VmHWM of every process now in the tree.
func (t *treeRSS) sample() {
	for _, pid := range descendants(t.root) {
		hwm, ok := readHWM(pid)
		if !ok {
			continue
		}
		t.mu.Lock()
		t.peak[pid] = max(t.peak[pid], hwm)
		t.mu.Unlock()
	}
}

// Stop ends the sampling and returns the sum of the peaks of every process
// seen, in bytes, and how many processes that was.
func (t *treeRSS) Stop() (sum int64, procs int) {
	close(t.stop)
	<-t.done
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, v := range t.peak {
		sum += v
	}
	return sum, len(t.peak)
}

// descendants is root and every process below it, found through the
// children lists of each thread (/proc/<pid>/task/<tid>/children).
func descendants(root int) []int {
	out := []int{root}
	for i := 0; i < len(out); i++ {
		tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(out[i]), "task", "*", "children"))
		for _, f := range tasks {
			b, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			for _, field := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(field); err == nil {
					out = append(out, pid)
				}
			}
		}
	}
	return out
}

// readHWM reads VmHWM from /proc/<pid>/status, in bytes.
func readHWM(pid int) (int64, bool) { return readStatus(pid, "VmHWM:") }

// parseHWM finds the "VmHWM:  1234 kB" line of a status file.
func parseHWM(status []byte) (int64, bool) { return parseStatus(status, "VmHWM:") }

// readStatus reads the field key ("VmRSS:") of /proc/<pid>/status, in
// bytes.
func readStatus(pid int, key string) (int64, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, false
	}
	return parseStatus(b, key)
}

// parseStatus finds the "key  1234 kB" line of a status file.
func parseStatus(status []byte, key string) (int64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), key)
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, false
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		return kb * 1024, err == nil
	}
	return 0, false
}
